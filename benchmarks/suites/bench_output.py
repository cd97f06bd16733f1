"""asv: writing an output-heavy Kleene query's matches (benchmarks/output_heavy.py: its query over its stream,
20,000 events, optimized engine), JSON lines and CSV, with the column writer (cepkit.match_output) and, for
JSON lines, the row-by-row formatting it replaced (`json_line(m.to_json())` per Match, the rows decoded from
the table as `cepkit run` did). The table is built once; each timing writes it to memory."""
from __future__ import annotations

from benchmarks import output_heavy as H

EVENTS = 20_000


class WriteMatches:
    params = (["column-jsonl", "column-csv", "row-jsonl"],)
    param_names = ["writer"]
    timeout = 600

    def setup_cache(self):
        from cepkit import compile
        from cepkit.core.readers import from_arrow

        return compile(H.QUERY, engine="optimized").run(from_arrow(H.generate(EVENTS))).to_arrow()

    def setup(self, arrow, writer):
        from cepkit import compile
        from cepkit.core.match_table import MatchTable

        self.layout = compile(H.QUERY, engine="optimized").layout
        self.arrow = arrow
        self.MatchTable = MatchTable

    def time_write(self, arrow, writer):
        from cepkit import match_output as M
        from cepkit.forms import TimeForm, json_line, use_time_form

        table = self.MatchTable(self.layout, arrow=self.arrow)  # fresh: no rows decoded yet
        with use_time_form(TimeForm("ticks")):
            if writer == "column-jsonl":
                return sum(len(p) for p in M.jsonl(table))
            if writer == "column-csv":
                names, cells, _ = M.match_cells(table, "csv")
                return sum(len(p) for p in M.csv_text(names, cells))
            return len("".join(json_line(m.to_json()) for m in table))

    def track_matches(self, arrow, writer):
        return self.arrow.num_rows

    track_matches.unit = "matches"
