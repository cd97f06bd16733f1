"""`--output FILE` is written atomically: a temporary file beside FILE, renamed onto it only when the run
succeeds. A failed run (exit != 0, an exception, KeyboardInterrupt) leaves FILE byte for byte as it was
and no temporary file behind (docs/semantics.md, "Output: atomic writes")."""
from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pandas as pd
import pytest

from cepkit.cli import main
from cepkit.output import OutputError, atomic_output, write_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OLD = b"previous good result \x00\xff\n"   # any bytes: they must survive a failed run unchanged


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".cepkit-tmp-" in p.name)


@pytest.fixture
def fig3(tmp_path):
    """The fig. 3 stream, and a copy with one more row whose price is not a number (exit 3 on reading it,
    after the first matches have been found and, in streamed JSON lines, written)."""
    good = tmp_path / "good.csv"
    shutil.copy(EXAMPLES / "fig3_stream.csv", good)
    bad = tmp_path / "bad.csv"
    bad.write_text(good.read_text() + "e99,2008-06-10T09:30:00,Stock,Goog,abc,5\n")
    return good, bad


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "table", "parquet"])
@pytest.mark.parametrize("chunk", [None, "2"])
def test_failed_sase_run_leaves_previous_output(tmp_path, fig3, capsys, fmt, chunk):
    good, bad = fig3
    out = tmp_path / "out"
    out.write_bytes(OLD)
    extra = ["--chunk-size", chunk] if chunk else []
    code = main(["run", str(EXAMPLES / "query3.sase"), str(bad), "--format", fmt, "--output", str(out), *extra])
    assert code == 3, capsys.readouterr().err
    assert out.read_bytes() == OLD
    assert leftovers(tmp_path) == []
    # the same command on good events replaces the file
    assert main(["run", str(EXAMPLES / "query3.sase"), str(good), "--format", fmt, "--output", str(out),
                 *extra]) == 0
    assert out.read_bytes() != OLD and leftovers(tmp_path) == []
    if fmt == "parquet":
        assert len(pd.read_parquet(out)) == 3
    elif fmt == "jsonl":
        assert len(out.read_text().splitlines()) == 3


def _bad_copy(src: Path, dst: Path, column: str) -> Path:
    """The events without a column the query reads (exit 3)."""
    pd.read_csv(src, dtype=str).drop(columns=[column]).to_csv(dst, index=False)
    return dst


# every other subcommand that writes --output: (argv before the events, events file, a column it reads)
OTHERS = {
    "sql": (["run", str(EXAMPLES / "sql" / "v_shape.sql")], EXAMPLES / "sql" / "ticker.csv", "price"),
    "tpstream": (["run", str(EXAMPLES / "tpstream" / "aggressive_drivers.tps")],
                 EXAMPLES / "tpstream" / "car_sensors.csv", "speed"),
    "afa": (["run", str(EXAMPLES / "afa" / "q1.afa.yaml")], EXAMPLES / "afa" / "q1.shuffled.csv", "le"),
    "window": (["window", "filter"], EXAMPLES / "sql" / "trades.csv", "p"),
}
TAIL = {"tpstream": ["--ts-unit", "s"], "window": ["--where", "p > 9"]}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_subcommands_write_atomically(tmp_path, capsys, name):
    head, events, column = OTHERS[name]
    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    bad = _bad_copy(events, tmp_path / "bad.csv", column)
    code = main([*head, str(bad), *TAIL.get(name, []), "--format", "csv", "--output", str(out)])
    assert code in (2, 3), capsys.readouterr().err
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []
    code = main([*head, str(events), *TAIL.get(name, []), "--format", "csv", "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.read_bytes() != OLD and leftovers(tmp_path) == []


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt(), SystemExit(3)])
def test_atomic_output_aborts_on_anything_raised(tmp_path, error):
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD)
    with pytest.raises(type(error)):
        with atomic_output(str(out)) as f:
            f.open().write("half a result")
            assert Path(f.path).parent == tmp_path and Path(f.path).name.startswith(".out.jsonl.cepkit-tmp-")
            assert out.read_bytes() == OLD  # nothing reaches the target before the commit
            raise error
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []


def test_commit_keeps_the_old_files_permissions_and_a_new_file_gets_the_umask(tmp_path):
    out = tmp_path / "out.txt"
    out.write_bytes(OLD)
    os.chmod(out, 0o640)
    write_text("new\n", str(out))
    assert out.read_text() == "new\n" and stat.S_IMODE(out.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.txt"
    umask = os.umask(0o022)
    try:
        write_text("x\n", str(fresh))
    finally:
        os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_symlink_is_followed_and_its_target_replaced(tmp_path):
    real = tmp_path / "real.txt"
    real.write_bytes(OLD)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text("new\n", str(link))
    assert link.is_symlink() and real.read_text() == "new\n"


def test_device_is_written_directly(tmp_path):
    write_text("discarded\n", os.devnull)  # a rename onto /dev/null would replace the device
    assert Path(os.devnull).exists() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("where, why", [("dir", "is a directory"), ("missing/out.txt", "No such file")])
def test_unwritable_target_is_exit_1(tmp_path, fig3, capsys, where, why):
    (tmp_path / "dir").mkdir()
    good, _ = fig3
    assert main(["run", str(EXAMPLES / "query3.sase"), str(good), "--output", str(tmp_path / where)]) == 1
    assert why in capsys.readouterr().err
    with pytest.raises(OutputError):
        write_text("x", str(tmp_path / where))


def test_match_writer_interrupted_mid_stream_leaves_previous_output(tmp_path):
    import cepkit
    from cepkit.output import MatchWriter
    from cepkit.core.readers import read_events

    program = cepkit.compile((EXAMPLES / "query3.sase").read_text())
    matches = program.run(read_events(str(EXAMPLES / "fig3_stream.csv")))
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt):
        with MatchWriter("jsonl", str(out), program) as writer:
            writer.write(matches)  # written, to the temporary file
            assert len(leftovers(tmp_path)) == 1 and out.read_bytes() == OLD
            raise KeyboardInterrupt
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []


def test_replay_writes_atomically(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["store", str(EXAMPLES / "sql" / "trades.csv"), str(store), "--block-size", "5"]) == 0
    out = tmp_path / "out.csv"
    out.write_bytes(OLD)
    bad = tmp_path / "bad.sql"
    bad.write_text((EXAMPLES / "sql" / "insider.sql").read_text().replace("DEFINE", "DEFINE nonsense ("))
    assert main(["replay", str(bad), str(store), "--format", "csv", "--output", str(out)]) == 2
    assert out.read_bytes() == OLD and leftovers(tmp_path) == []
    code = main(["replay", str(EXAMPLES / "sql" / "insider.sql"), str(store), "--format", "csv", "--output", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.read_bytes() != OLD and leftovers(tmp_path) == []
