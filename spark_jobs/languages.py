"""How the Spark job splits a query of any language (docs/spark.md "Every language on Spark").

The flat SASE+ sequences keep their own tuned path (cepkit.spark_jobs.plan); this module plans everything else:
- **MATCH_RECOGNIZE**: by its PARTITION BY columns (the engine partitions and orders each task's rows
  itself, so a task may hold several partitions); without PARTITION BY, with WITHIN, by time slices of the
  first ORDER BY key: the thesis' ALL MATCHES mode keeps each slice's matches (each is independent and spans
  at most WITHIN); ONE ROW / ALL ROWS PER MATCH carry AFTER MATCH SKIP's walk from slice to slice
  (cepkit.spark_jobs.sql_walk); anything else is refused by name.
- **TPStream**: by its PARTITION BY (situations and their relations are per partition), exact output only.
- **AFA**: by a key column the user names (one AFA per key value); punctuations and arc rows go to every
  key's group.
- **SASE+ forms** the flat path refuses (AND / OR / nested patterns, ANY, the RFID form, count windows):
  by time slices of the WITHIN window, or for WITHIN n EVENTS by slices of stream positions.

What none of these splits exactly is refused here, by name (QueryError), before any Spark work.
"""
from __future__ import annotations

from dataclasses import dataclass

from cepkit.core import registry
from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.nfab.compile import is_nfab_query
from cepkit.front.sql.table import within_ticks
from cepkit.spark_jobs.plan import window_in_ts_long

# engines preferred for the SASE+ forms the flat path refuses, fastest first (the first that runs the query)
SASE_ENGINES = ("optimized-lazy", "optimized-eager", "optimized", "reference")
# the SQL engines whose programs give the match at every start row (close_starts, cepkit.front.sql.starts)
WALK_ENGINES = ("optimized", "reference")
# the other languages: their optimized engine (every construct of theirs)
DEFAULT_ENGINES = {"sql": "optimized", "tpstream": "optimized", "afa": "optimized"}


@dataclass(frozen=True)
class LanguagePlan:
    """How one query is split. `kind`:
    - "partition": rows hashed by `keys` (coarsened for text); one program per Spark partition, fed its
      rows in (timestamp, file row) order; the engine separates the partitions itself;
    - "key": one program per value of `keys` (AFA), fed in file order, plus the control rows;
    - "time-slice" / "position-slice": slices of the timestamp (or of the stream position in (ts, id)
      order) with `context` ticks on both sides; a slice keeps the matches whose first event is its own."""

    kind: str
    keys: tuple[str, ...] = ()
    context: int | None = None     # slices: the window in ticks (timestamp ticks or positions)
    note: str = ""

    @property
    def sliced(self) -> bool:
        return self.kind in ("time-slice", "position-slice", "walk-slice")


def refuse(lang: str, message: str, node=None) -> QueryError:
    pos = getattr(node, "pos", None)
    title = registry.language(lang).title or lang
    return QueryError(f"the Spark job cannot split this {title} query exactly: {message}",
                      (getattr(pos, "line", None) or None), (getattr(pos, "column", None) or None))


def needs_generic(lang: str, q) -> bool:
    """Whether the query goes to the generic path (every language but the flat SASE+ sequences with a
    time window, which cepkit.spark_jobs.plan splits)."""
    if lang != "sase":
        return True
    return not is_nfab_query(q) or (q.window is not None and q.window.kind == "events")


def default_engine(lang: str, q) -> str:
    """The engine the executors run when none is named."""
    if lang != "sase":
        eng = DEFAULT_ENGINES.get(lang, "reference")
        return eng if (lang, eng) in registry.ENGINES else registry.language(lang).default_engine
    found = set(registry.constructs("sase", q))
    runs = registry.runs("sase", found)
    return next((e for e in SASE_ENGINES if e in runs), "reference")


def plan_sql(q, window_ticks: int | None, engine: str | None = None) -> LanguagePlan:
    """PARTITION BY: by its columns. Else, with WITHIN, time slices: ALL MATCHES keeps each slice's matches;
    ONE ROW / ALL ROWS PER MATCH carries AFTER MATCH SKIP's walk across them (cepkit.spark_jobs.sql_walk).
    Else refused by name."""
    if q.partition_by:
        return LanguagePlan("partition", tuple(c.col for c in q.partition_by),
                            note=f"by PARTITION BY [{', '.join(c.col for c in q.partition_by)}]")
    hint = "; add PARTITION BY (each partition is matched on its own)"
    walk = q.rows != "all_matches"
    if q.within is None and walk:
        raise refuse("sql", "AFTER MATCH SKIP chains the matches of ONE ROW / ALL ROWS PER MATCH over the whole "
                     "ordered table, and without WITHIN a match may span the whole table, so no time slice holds "
                     "the context it needs" + hint + " or WITHIN", q.skip or q)
    if q.within is None:
        raise refuse("sql", "ALL MATCHES without WITHIN: a match may span the whole table, so no time slice "
                     "holds the context it needs" + hint + " or WITHIN", q)
    if q.order_by[0].descending:
        raise refuse("sql", "time slices follow the first ORDER BY key ascending, and it is DESC" + hint,
                     q.order_by[0])
    found = registry.constructs("sql", q)
    for name in found:
        if name.startswith(("PREV", "NEXT")):
            raise refuse("sql", f"{name} reads rows outside the match (before its first or after its last row), "
                         "which a time slice may not hold" + hint, found[name])
        if name.startswith("MATCH_NUMBER") and (not walk or name.endswith("DEFINE")):
            raise refuse("sql", f"{name} numbers the matches of the whole table" + hint, found[name])
        if name == "anchors" and walk:
            raise refuse("sql", "anchors (^, $) name the first and last row of the whole table, which a time "
                         "slice does not know" + hint, found[name])
    if not walk:
        return LanguagePlan("time-slice", context=window_ticks,
                            note="by time slice (ALL MATCHES with WITHIN, no PARTITION BY)")
    if q.source is not None:
        raise refuse("sql", "a subquery input: the time slices cut the table's rows, before the subquery" + hint,
                     q.source)
    if engine is not None and engine not in WALK_ENGINES:
        raise refuse("sql", f"engine {engine} does not give the match at every start row that the time slices "
                     f"walk over (engines: {', '.join(WALK_ENGINES)})" + hint, q)
    return LanguagePlan("walk-slice", context=window_ticks,
                        note="by time slice (AFTER MATCH SKIP walked across slices, WITHIN, no PARTITION BY)")


def check_slice_key(q, ts_col: str) -> None:
    """Time slices cut the timestamp column (the job's order), which must be the first ORDER BY key (WITHIN's)."""
    key = q.order_by[0].col.col
    if key != ts_col and key.lower() != ts_col.lower():
        raise refuse("sql", f"time slices cut the timestamp column '{ts_col}', and the first ORDER BY key (which "
                     f"WITHIN bounds) is '{key}'; order by '{ts_col}' first, pass --ts-col {key}, or add "
                     "PARTITION BY", q.order_by[0])


def plan_tpstream(q, mode: str = "exact") -> LanguagePlan:
    """By PARTITION BY; early output and queries without PARTITION BY are refused by name."""
    if mode != "exact":
        raise refuse("tpstream", "early output reports detection times from the whole stream's clock, which a "
                     "partition of the stream does not see; use exact output", q)
    if not q.partition_by:
        raise refuse("tpstream", "it has no PARTITION BY, and its situations (maximal intervals of the whole "
                     "stream) may be arbitrarily long, so no time slice holds the context they need; add "
                     "PARTITION BY", q)
    return LanguagePlan("partition", tuple(q.partition_by), note=f"by PARTITION BY [{', '.join(q.partition_by)}]")


def plan_afa(key: str | None) -> LanguagePlan:
    """By the key column the user names (one AFA per key value)."""
    if not key:
        raise QueryError("the Spark job runs an AFA once per key: name the key column (--key COL, key=); "
                         "punctuations and arc rows reach every key's AFA")
    return LanguagePlan("key", (key,), note=f"by key [{key}] (one AFA per value)")


def plan_sase(q: A.Query, selection: str, window_ticks: int | None) -> LanguagePlan:
    """AND / OR / nested / ANY / RFID and count windows: slices of time or of stream positions."""
    if selection != "all":
        raise refuse("sase", "the non-overlap output format needs the whole history of a partition, and the "
                     "Spark job splits this form by slices", q)
    if q.window is None:
        raise refuse("sase", "it has no WITHIN window, so a match may span the whole stream and no slice "
                     "holds the context it needs; add WITHIN (a time or a count window)", q.pattern)
    if q.window.kind == "events":
        return LanguagePlan("position-slice", context=window_ticks,
                            note="by slices of stream positions (count window)")
    return LanguagePlan("time-slice", context=window_ticks, note="by time slice")


def sql_window_ticks(q, ts_unit: str | None) -> int | None:
    """ALL MATCHES' WITHIN in ticks of the first ORDER BY key, as context (inclusive bound: +1)."""

    ticks = within_ticks(q, ts_unit)
    return None if ticks is None else ticks + (0 if q.within.exclusive else 1)


def sase_window_ticks(q: A.Query, ts_unit: str | None, ns_per_tick: int) -> int:
    """The WITHIN window as context in ticks (positions for a count window)."""

    if q.window.kind == "events":
        strict = q.conventions.window_bound == "strict"
        return int(q.window.amount) + (0 if strict else 1)
    return window_in_ts_long(q, ts_unit, ns_per_tick)
