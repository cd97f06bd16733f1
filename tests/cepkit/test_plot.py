"""`cepkit plot`: the PNG is a real picture, the HTML page draws one mark group per match in a real headless
browser (Chromium; `make install` installs it where it can: scripts/ensure_system_tool.sh), errors are one line."""
from __future__ import annotations

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
