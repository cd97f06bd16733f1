"""Reading an events file in chunks gives the whole-file reader's events, with rows counted from the
start of the file, for Parquet, CSV and JSON Lines."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cepkit.core.errors import EventError
from cepkit.core.event_chunks import iter_events
from cepkit.core.readers import read_events

FRAME = pd.DataFrame({"id": np.arange(23) * 10, "ts": np.arange(23) // 2, "type": ["A", "B", "C"] * 7 + ["A", "A"],
                      "x": np.arange(23) % 5, "name": list("abcdefghijklmnopqrstuvw")})


def _write(frame: pd.DataFrame, path) -> str:
    suffix = str(path).rsplit(".", 1)[1]
    if suffix == "parquet":
        frame.to_parquet(path, index=False, row_group_size=6)
    elif suffix == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return str(path)


@pytest.mark.parametrize("suffix", ["parquet", "csv", "jsonl"])
@pytest.mark.parametrize("chunk", [1, 4, 23, 100])
def test_chunks_concatenate_to_the_whole_file(tmp_path, suffix, chunk):
    path = _write(FRAME, tmp_path / f"e.{suffix}")
    whole = read_events(path)
    chunks = list(iter_events(path, chunk))
    assert [len(c) for c in chunks] == [min(chunk, 23 - lo) for lo in range(0, 23, chunk)]
    assert np.concatenate([c.ids for c in chunks]).tolist() == whole.ids.tolist()
    assert np.concatenate([c.ts for c in chunks]).tolist() == whole.ts.tolist()
    assert np.concatenate([c.source_rows for c in chunks]).tolist() == whole.source_rows.tolist()
    types = [c.type_names[k] for c in chunks for k in c.type_codes]
    assert types == [whole.type_names[k] for k in whole.type_codes]
    for col in ("x", "name"):
        assert [v for c in chunks for v in c.columns[col].tolist()] == whole.columns[col].tolist()


@pytest.mark.parametrize("suffix", ["parquet", "csv", "jsonl"])
def test_an_error_in_a_later_chunk_names_the_file_row(tmp_path, suffix):
    frame = FRAME.copy()
    frame.loc[17, "id"] = frame.loc[16, "id"]  # file rows 17 and 18, both in the fourth chunk of 5
    path = _write(frame, tmp_path / f"e.{suffix}")
    with pytest.raises(EventError) as err:
        list(iter_events(path, 5))
    assert (err.value.row, err.value.column) == (18, "id")


def test_sort_and_bad_sizes_are_refused(tmp_path):
    path = _write(FRAME, tmp_path / "e.csv")
    with pytest.raises(EventError, match="sort cannot be combined with chunk_size"):
        next(iter_events(path, 5, sort=True))
    with pytest.raises(EventError, match="positive"):
        next(iter_events(path, 0))


def test_an_empty_file_reads_as_the_whole_file_reader_reads_it(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text("")
    (batch,) = iter_events(path, 10)
    assert len(batch) == 0
