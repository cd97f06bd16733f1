"""Malformed event files (CSV, JSON lines, gzip, Parquet) under every language's seed queries: exit 0,
or 3 naming the row or column; never a traceback or a hang. A header-only file is 0 matches."""
import pytest
from hypothesis import given, strategies as st

from tests.fuzz.driver import run_case
from tests.fuzz.formats import serialize
from tests.fuzz.properties import well_handled
from tests.fuzz.seeds import LANGS, Table, seeds_for
from tests.fuzz.settings import explain, fuzz_settings
from tests.fuzz.strategies import event_cases


@pytest.mark.parametrize("lang", LANGS)
@fuzz_settings()
@given(data=st.data())
def test_malformed_event_files_are_handled(lang, data):
    case = data.draw(event_cases(lang))
    out, problem = well_handled(case)
    assert problem is None, explain(case, out, problem)


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "afa"])
def test_header_only_file_gives_no_match(lang):
    """Every seed of the language over its header alone: exit 0 and nothing on standard output."""
    wrong = []
    for seed in seeds_for(lang):
        out = run_case(lang, seed.query.encode(), "events.csv", serialize(Table(seed.events.header, ()), "csv"),
                       seed.args)
        if (out.code, out.stdout) != (0, ""):
            wrong.append(f"{seed.name}: exit {out.code} {out.error} {out.stderr.strip()[-300:]}")
    assert not wrong, f"{len(wrong)} seeds:\n" + "\n".join(wrong[:5])


def test_header_only_file_gives_no_afa_output():
    """An AFA over an empty stream: exit 0 and no insertion or retraction."""
    wrong = []
    for seed in seeds_for("afa"):
        out = run_case("afa", seed.query.encode(), "events.csv", serialize(Table(seed.events.header, ()), "csv"),
                       seed.args)
        if out.code != 0 or '"insert' in out.stdout or "retract" in out.stdout:
            wrong.append(f"{seed.name}: exit {out.code} {out.error} {out.stdout[:200]} {out.stderr.strip()[-300:]}")
    assert not wrong, f"{len(wrong)} seeds:\n" + "\n".join(wrong[:5])
