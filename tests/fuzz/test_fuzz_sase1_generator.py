"""SASE 1.0's stream generator (`python -m cepkit.reference.sase1 CONFIG OUT.csv`) under generated configs
(issue 30, item 7): every config gives exit 0 with exactly streamSize events, or a one-line error with exit
2; never a traceback or a hang. Parameters range over Java's int and past it; a stream of any size is written
piece by piece (a size near 2^31 held every event in lists: the process was killed for memory)."""
from __future__ import annotations

import contextlib
import csv
import io
import tempfile
from pathlib import Path

from hypothesis import given, strategies as st

from cepkit.reference.sase1.__main__ import main
from tests.fuzz.settings import fuzz_settings

KEYS = ["streamSize", "maxPrice", "numOfSymbol", "maxVolume", "randomSeed", "increaseProbability"]
JAVA_INT = 2**31
EDGES = [0, 1, -1, JAVA_INT - 1, JAVA_INT, 2**32, 2**32 + 1, -JAVA_INT, -JAVA_INT - 1, 10**11, 2**63]
values = st.one_of(st.integers(-3, 120), st.sampled_from(EDGES), st.integers(-2**70, 2**70).map(str),
                   st.sampled_from(["ten", "1.5", "1e3", "", "0x10", "١٢", " 7 ", "+7", "--1"]))
junk = st.sampled_from(["", "# note", "end", "streamSize 10", "= 3", "colour = 3", "\t", "randomSeed = = 1"])


@st.composite
def configs(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(junk))
        else:
            value = draw(values)
            key = draw(st.sampled_from(KEYS))
            if key == "streamSize" and (isinstance(value, int) or value.lstrip("-").isdigit()):
                value = int(value)   # a size Java's int holds is kept small (the generator streams any size)
                value = value % 200 if -JAVA_INT <= value < JAVA_INT else value
            lines.append(f"{key} = {value}")
    if draw(st.booleans()):
        lines.append("end")
    text = "\n".join(lines) + ("\n" if draw(st.booleans()) else "")
    data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:   # bytes that are not UTF-8
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3(", b"\x00", b"\xed\xa0\x80"])) + data[at:]
    return data


@fuzz_settings(0.5)
@given(configs())
def test_generated_configs_run_or_fail_in_one_line(data):
    with tempfile.TemporaryDirectory() as tmp:
        config, out = Path(tmp) / "c.stream", Path(tmp) / "out.csv"
        config.write_bytes(data)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            code = main([str(config), str(out)])
        err = stderr.getvalue()
        check(data, code, err, out)


def check(data: bytes, code: int, err: str, out: Path) -> None:
    assert code in (0, 2), (code, data, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, (data, err)
    if code == 0:
        size = next((int(line.split("=")[1]) for line in reversed(data.decode().splitlines())
                     if line.replace(" ", "").startswith("streamSize=")), 10000)
        with out.open(newline="") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == size, (data, len(rows))
        assert all(int(r["volume"]) >= 1 for r in rows), data   # prices may walk below 1, as in SASE 1.0
