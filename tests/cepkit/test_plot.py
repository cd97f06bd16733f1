"""`cepkit plot`: the PNG is a real picture, the HTML page draws one mark group per match in a real headless
browser (Chromium; `make install` installs it where it can: scripts/ensure_system_tool.sh), errors are one line."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cepkit.api import run
from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
CASES = {  # name: (query, events, extra options)
    "sase": (EX / "query3.sase", EX / "fig3_stream.csv", ["--value", "price"]),
    "sql": (EX / "sql" / "v_shape.sql", EX / "sql" / "ticker.csv", ["--value", "price"]),
    "tpstream": (EX / "tpstream" / "aggressive_drivers.tps", EX / "tpstream" / "car_sensors.csv",
                 ["--ts-unit", "s", "--value", "speed"]),
    "afa": (EX / "afa" / "q1.afa.yaml", EX / "afa" / "q1.shuffled.csv", ["--value", "price"]),
    "sase-lanes": (EX / "shoplifting.sase", EX / "rfid.jsonl", ["--ts-unit", "h"]),
}


def plot(capsys, *argv) -> tuple[int, str]:
    code = main(["plot", *map(str, argv)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("lang", ["sase", "sase-lanes", "tpstream", "afa"])
def test_png_is_a_picture(tmp_path, capsys, lang):
    import matplotlib.image

    query, events, extra = CASES[lang]
    out = tmp_path / "p.png"
    code, err = plot(capsys, query, events, "--out", out, *extra)
    assert code == 0, err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 10_000
    pixels = matplotlib.image.imread(out)
    height, width = pixels.shape[:2]
    assert 600 <= width <= 2000 and 300 <= height <= 2000
    assert pixels[..., :3].std() > 0.05   # not a blank canvas
    assert re.search(r"\d+ matches.* over \d+ events ->", err)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no chromium on PATH (make install runs scripts/ensure_system_tool.sh, which needs apt-get and root): "
                "the HTML plot cannot be checked in a browser here")


def _dom(page: Path, tmp_path: Path) -> str:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.resolve().as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("lang", ["sql", "tpstream"])
def test_html_draws_each_match_in_a_browser(tmp_path, capsys, lang):
    query, events, extra = CASES[lang]
    read = {"ts_unit": "s"} if lang == "tpstream" else {}
    expected = len(run(query, events, read_options=read))
    page = tmp_path / "p.html"
    code, err = plot(capsys, query, events, "--out", page, *extra)
    assert code == 0, err
    text = page.read_text()
    assert not re.search(r"(src|href)\s*=|https?://(?!www\.w3\.org/2000/svg)", text)  # self-contained
    dom = _dom(page, tmp_path)
    body = re.search(r"<body[^>]*>", dom).group(0)
    assert "data-error" not in body, body          # no JavaScript error
    assert 'data-rendered="yes"' in body           # the script ran to its end
    assert f'data-matches="{expected}"' in body
    assert len(re.findall(r'<g class="match"', dom)) == expected > 0
    bound = sum(len(ids) for m in run(query, events, read_options=read) for _v, ids in m.bindings)
    assert len(re.findall(r'class="bound"', dom)) == bound
    if lang == "tpstream":  # three situations per match, as intervals
        assert len(re.findall(r'class="interval"', dom)) == 3 * expected


@pytest.mark.parametrize("argv, code, message", [
    (["examples/sql/volume.win", "examples/sql/trades.csv", "--out", "{tmp}/w.png"], 2, "window queries"),
    (["examples/query3.sase", "examples/fig3_stream.csv", "--out", "{tmp}/w.svg"], 2, ".png or .html"),
    (["examples/query3.sase", "examples/fig3_stream.csv", "--out", "{tmp}/w.png", "--value", "nope"], 3,
     "--value nope: no such column"),
    (["examples/query3.sase", "examples/fig3_stream.csv", "--out", "{tmp}/w.png", "--engine", "nope"], 2,
     "engine 'nope'"),
    (["examples/query3.sase", "examples/fig3_stream.csv", "--out", "{tmp}/no/dir/w.png"], 2, "no directory"),
])
def test_errors_are_one_line(tmp_path, capsys, monkeypatch, argv, code, message):
    monkeypatch.chdir(ROOT)
    got, err = plot(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert got == code
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_a_failed_plot_leaves_out_as_it_was(tmp_path, capsys):
    out = tmp_path / "p.png"
    out.write_bytes(b"previous")
    code, err = plot(capsys, *CASES["sase"][:2], "--out", out, "--value", "nope")
    assert code == 3 and "--value nope" in err
    assert out.read_bytes() == b"previous"
    code, err = plot(capsys, *CASES["sase"][:2], "--out", out)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png"]   # no temporary file left beside it


RAW_NS = re.compile(r"\d{13,}")   # a raw count of nanoseconds since 1970 (2001 onwards)


def _round_steps(values: list[float]) -> bool:
    """Whether values are evenly spaced multiples of a 1, 2, 2.5 or 5 × 10^k step."""
    step = values[1] - values[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    return any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5)) and \
        all(math.isclose(v / step, round(v / step), abs_tol=1e-9) for v in values) and \
        all(math.isclose(b - a, step) for a, b in zip(values, values[1:]))


def _seconds(clock: str) -> int:
    h, m, s = clock.split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


def test_png_legend_and_ticks_read_as_the_axis(tmp_path, capsys, monkeypatch):
    """query3 over fig3_stream has clock times (2008-06-10 09:01..09:08): the legend writes a match's time
    as the axis does, not as nanoseconds, and the time ticks are round clock times."""
    import matplotlib.pyplot as plt

    drawn = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (drawn.append(fig), close(fig)))
    query, events, extra = CASES["sase"]
    code, err = plot(capsys, query, events, "--out", tmp_path / "p.png", *extra)
    assert code == 0, err
    (fig,) = drawn
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert not [t for t in legend if RAW_NS.search(t)], legend
    assert "m1 at 09:06:00 | a=[e1, e2, e3, e4, e5]; b=[e6]" in legend[2]
    assert ax.get_xlabel() == "time (UTC), 2008-06-10"
    ticks = [_seconds(t.get_text()) for t in ax.get_xticklabels()]
    assert ticks == [_seconds("09:02:00") + 120 * k for k in range(4)]


def test_html_times_and_ticks_read_as_the_axis_in_a_browser(tmp_path, capsys):
    """The HTML page of the same plot: legend and hover text with clock times, round ticks on both axes."""
    query, events, extra = CASES["sase"]
    page = tmp_path / "p.html"
    code, err = plot(capsys, query, events, "--out", page, *extra)
    assert code == 0, err
    dom = _dom(page, tmp_path)
    assert 'data-rendered="yes"' in dom
    shown = re.findall(r">([^<]*)<", dom.split('id="cepkit-data"')[0])     # text, hover text (<title>), labels
    assert not [t for t in shown if RAW_NS.search(t)]
    legend = re.findall(r'<li class="legend-match">.*?</span>(.*?)</li>', dom)
    assert legend[0].startswith("m1 at 09:06:00 | a=[e1, e2, e3, e4, e5]; b=[e6]"), legend
    hover = re.findall(r"<title>(.*?)</title>", dom)
    assert "e1 (Stock) at 09:01:00 | symbol=Goog, price=100, volume=1010" in hover
    assert any(t.startswith("m3 at 09:08:00 | ") for t in hover)
    y = [float(t) for t in re.findall(r'<text class="ytick"[^>]*>([^<]*)</text>', dom)]
    assert len(y) >= 3 and _round_steps(y), y                     # was 98 / 112.5 / 127
    x = [_seconds(t) for t in re.findall(r'<text class="xtick"[^>]*>([^<]*)</text>', dom)]
    assert len(x) >= 3 and all(s % (x[1] - x[0]) == 0 for s in x), x
