"""Window conditions order only numbers: text in a column a FILTER or JOIN condition compares with < <= > >=
is an event error naming the row and column (it was compared with numbers, exit 0; fuzz reproducer 33)."""
from __future__ import annotations

from cepkit.cli import main


def test_text_in_a_compared_column_exits_3(tmp_path, capsys):
    q = tmp_path / "q.win"
    q.write_text("FILTER WHERE p > 50 OR v > 1000\n")
    e = tmp_path / "e.csv"
    e.write_text("ts,p,v\n1,abc,100\n2,60,100\n")
    assert main(["run", str(q), str(e)]) == 3
    err = capsys.readouterr().err
    assert "row 1, column 'p'" in err and "non-numeric value 'abc'" in err


def test_numbers_as_text_still_compare(tmp_path, capsys):
    q = tmp_path / "q.win"
    q.write_text("FILTER WHERE p > 50\n")
    e = tmp_path / "e.csv"
    e.write_text("ts,p\n1,40\n2,60\n")
    assert main(["run", str(q), str(e)]) == 0
    assert capsys.readouterr().out.count("\n") == 1
