"""Usage errors (docs/semantics.md "Query limits and odd text (issue 14)"): a malformed option value is
exit 2 naming the option, for every subcommand; a query file that is not UTF-8, or holds a control
character, is exit 2 naming line and column."""
from __future__ import annotations

from pathlib import Path

import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.errors import QueryError

EX = Path(__file__).resolve().parents[2] / "examples"
SASE, STOCKS = str(EX / "query3.sase"), str(EX / "stocks.csv")
SQL, TICKER = str(EX / "sql" / "v_shape.sql"), str(EX / "sql" / "ticker.csv")
TPS, CARS = str(EX / "tpstream" / "aggressive_drivers.tps"), str(EX / "tpstream" / "car_sensors.csv")
AFA, AFA_EVENTS = str(EX / "afa" / "q1.afa.yaml"), str(EX / "afa" / "q1.events.csv")
WIN, TRADES = str(EX / "sql" / "big_trades.win"), str(EX / "sql" / "trades.csv")


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:   # argparse's usage errors
        return exc.code


# (arguments, the option the message must name); each must exit 2
BAD_OPTIONS = [
    (["run", SASE, STOCKS, "--ts-unit", "fortnight"], "--ts-unit"),
    (["run", SASE, STOCKS, "--ts-unit", ""], "--ts-unit"),
    (["run", TPS, CARS, "--ts-unit", "fortnight"], "--ts-unit"),
    (["run", WIN, TRADES, "--ts-unit", "fortnight"], "--ts-unit"),
    (["run", SQL, TICKER, "--ts-unit", "fortnight"], "--ts-unit"),
    (["run", SASE, STOCKS, "--engine", "nosuch"], "engine 'nosuch'"),
    (["run", SASE, STOCKS, "--device", "0:0"], "--device"),
    (["run", SASE, STOCKS, "--format", "xml"], "--format"),
    (["run", SASE, STOCKS, "--language", "cobol"], "--language"),
    (["run", SASE, STOCKS, "--type-col", ""], "--type-col"),
    (["run", SASE, STOCKS, "--id-col", " "], "--id-col"),
    (["run", SASE, STOCKS, "--chunk-size", "-1"], "--chunk-size"),
    (["run", SASE, STOCKS, "--chunk-size", "many"], "--chunk-size"),
    (["run", SASE, STOCKS, "--selection", "some"], "--selection"),
    (["run", SASE, STOCKS, "--engine", "reference-lazy", "--order", "A,,B"], "--order"),
    (["run", SASE, STOCKS, "--negation", "never"], "--negation"),
    (["run", AFA, AFA_EVENTS, "--sigma", "abc"], "--sigma"),
    (["run", AFA, AFA_EVENTS, "--sigma", "-1"], "--sigma"),
    (["run", AFA, AFA_EVENTS, "--sigma", "nan"], "--sigma"),
    (["run", AFA, AFA_EVENTS, "--flavor", "fast"], "--flavor"),
    (["run", SQL, TICKER, "--ts-col", ""], "--ts-col"),
    (["run", SQL, TICKER, "--gpu-launch", "soon"], "--gpu-launch"),
    (["run", SASE, STOCKS, "--sigma", "1"], "--sigma"),            # an AFA option on a SASE query
    (["window", "filter", TRADES, "--where", "p > 1", "--ts-unit", "fortnight"], "--ts-unit"),
    (["window", "filter", TRADES, "--where", "p >"], "--where"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "0"], "--size"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "ten"], "--size"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "5", "--slide", "-1"], "--slide"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "5", "--slide", "6"], "--slide"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "5", "--funcs", "median"], "--funcs"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "5", "--funcs", ","], "--funcs"),
    (["window", "aggregate", TRADES, "--attr", "p", "--size", "5", "--method", "magic"], "--method"),
    (["window", "join", TRADES, TRADES, "--on", "L.p = R.p", "--size", "5", "--right-size", "0"], "--right-size"),
    (["window", "join", TRADES, TRADES, "--on", "p = 1", "--size", "5"], "--on"),
    (["window", "filter", TRADES, "--where", "p > 1", "--engine", "gpu", "--device", "no such device"], "--where"),
    (["store", STOCKS, "STORE", "--block-size", "0"], "--block-size"),
    (["store", STOCKS, "STORE", "--blocks-per-file", "-2"], "--blocks-per-file"),
    (["store", STOCKS, "STORE", "--ts-unit", "fortnight"], "--ts-unit"),
    (["store", STOCKS, "STORE", "--index", "price,,volume"], "--index"),
    (["replay-plan", SQL, "STORE", "--use", ","], "--use"),
    (["replay-plan", SQL, "STORE", "--method", "guess"], "--method"),
    (["spark", "run", SASE, STOCKS, "OUT", "--master", "bogus://x"], "--master"),
    (["spark", "run", SASE, STOCKS, "OUT", "--master", "local[two]"], "--master"),
    (["spark", "run", SASE, STOCKS, "OUT", "--ts-unit", "fortnight"], "--ts-unit"),
    (["spark", "run", SASE, STOCKS, "OUT", "--slice-length", "0"], "--slice-length"),
    (["spark", "run", SASE, STOCKS, "OUT", "--partitions", "-1"], "--partitions"),
    (["spark", "run", SASE, STOCKS, "OUT", "--ts-col", ""], "--ts-col"),
    (["spark", "run", SASE, STOCKS, "OUT", "--engine", "nosuch"], "engine 'nosuch'"),
    (["devices", "--device", "no such device"], "--device"),
]


@pytest.mark.parametrize("argv,option", BAD_OPTIONS, ids=[" ".join(a[:1] + a[3:]) for a, _ in BAD_OPTIONS])
def test_a_malformed_option_is_exit_2_naming_it(argv, option, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)   # STORE / OUT are never written: the options are refused first
    assert _exit(argv) == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err
    assert not (tmp_path / "STORE").exists() and not (tmp_path / "OUT").exists()


def test_well_formed_spark_masters_pass_the_option_check():
    from cepkit.options import spark_master

    for url in ("local", "local[4]", "local[*]", "local[*, 2]", "local[4,3]", "local-cluster[2, 1, 1024]",
                "spark://host:7077", "yarn", "k8s://https://h:443"):
        assert spark_master(url) == url


LATIN1 = "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) { a.sym = 'café' }\nWITHIN 3\n"
QUERIES = {".sase": LATIN1, ".query": LATIN1, ".sql": "-- é\nSELECT * FROM t", ".tps": "// é\nFROM s",
           ".afa.yaml": "# é\nname: x", ".win": "-- é\nFILTER WHERE p > 1", ".txt": LATIN1}


@pytest.mark.parametrize("suffix", sorted(QUERIES))
@pytest.mark.parametrize("command", ["run", "explain"])
def test_a_query_file_that_is_not_utf8_is_exit_2_with_its_position(suffix, command, tmp_path, capsys):
    q = tmp_path / f"q{suffix}"
    q.write_bytes(QUERIES[suffix].encode("latin-1"))
    argv = [command, str(q)] + ([STOCKS] if command == "run" else [])
    assert _exit(argv) == 2
    err = capsys.readouterr().err
    line = 2 if suffix in (".sase", ".query", ".txt") else 1
    column = {".sase": 48, ".query": 48, ".txt": 48}.get(suffix, 4 if suffix != ".afa.yaml" else 3)
    assert f"line {line}, column {column}: " in err and "not UTF-8" in err and "0xE9" in err


def test_the_python_api_refuses_a_file_that_is_not_utf8(tmp_path):
    q = tmp_path / "q.sase"
    q.write_bytes(LATIN1.encode("latin-1"))
    with pytest.raises(QueryError) as exc:
        cepkit.run(q, STOCKS)
    assert (exc.value.line, exc.value.column) == (2, 48)


def test_a_byte_order_mark_is_dropped(tmp_path, capsys):
    q = tmp_path / "q.sase"
    q.write_bytes(b"\xef\xbb\xbf" + (EX / "query3.sase").read_bytes())
    assert _exit(["run", str(q), STOCKS, "--ts-unit", "s", "--format", "csv"]) == 0
    plain = capsys.readouterr().out
    assert _exit(["run", SASE, STOCKS, "--ts-unit", "s", "--format", "csv"]) == 0
    assert capsys.readouterr().out == plain


ODD = [("\x00", "U+0000"), ("\x1b", "U+001B"), ("\x7f", "U+007F"), ("\x0b", "U+000B")]


@pytest.mark.parametrize("char,name", ODD, ids=[n for _, n in ODD])
@pytest.mark.parametrize("suffix,text", [(".sase", "PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match(a, b) "
                                          "{ a.price > 1 }"), (".sql", "SELECT *\nFROM t"),
                                         (".tps", "FROM s\nDEFINE"), (".win", "FILTER\nWHERE p > 1"),
                                         (".afa.yaml", "name: x\nwindow: 3")])
def test_a_control_character_is_exit_2_with_its_position(char, name, suffix, text, tmp_path, capsys):
    q = tmp_path / f"q{suffix}"
    lines = text.split("\n")
    q.write_text(lines[0] + "\n" + lines[1][:2] + char + lines[1][2:], encoding="utf-8")
    assert _exit(["run", str(q), STOCKS]) == 2
    err = capsys.readouterr().err
    assert f"line 2, column 3: control character {name}" in err


def test_text_that_was_not_utf8_on_the_command_line_is_a_query_error(capsys):
    """Python reads undecodable command-line bytes as surrogates; a window condition refuses them."""
    assert _exit(["window", "filter", TRADES, "--where", "p > 1 AND q = 'caf\udce9'"]) == 2
    assert "line 1, column 19: a byte that is not UTF-8" in capsys.readouterr().err
