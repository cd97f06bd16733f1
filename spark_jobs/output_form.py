"""The columns the Spark batch jobs write: those `cepkit run --format parquet` writes for the query's language
(docs/spark.md "Output", semantics SP-T4), taken from the match-table columns the tasks produce (bindings, ts,
detection, payload: generic_tasks.output_schema):

- SASE+: a list of ids per variable, `ts`, the RETURN items (cepkit.output.write_matches);
- MATCH_RECOGNIZE: the query's rows, its output columns alone (cepkit.runners.sql.write_match_table: no
  bindings; a name given twice keeps its last column);
- TPStream: the partition attributes, each situation's NAME_ts and NAME_te, `ts` (the detection time), the
  RETURN items (cepkit.runners.tpstream.frame);
- AFA: the match table's own columns (key, bindings, ts, sign, lifetime, registers): `cepkit run` writes no
  Parquet for AFA.

A column holding times of a datetime input (nanoseconds since the epoch in the match table) is written as a
timestamp, as the single process writes it (`times`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class OutputForm:
    """What to write: (name written, match-table column it comes from) in order, and the names written as
    timestamps. `columns` empty: the match-table columns as they are."""

    columns: tuple[tuple[str, str], ...] = ()
    times: tuple[str, ...] = ()


def _last_wins(pairs: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Each name once, at its first place, from its last column (as a dict of each row would hold it)."""
    last = dict(pairs)
    seen: list[str] = []
    for name, _ in pairs:
        if name not in seen:
            seen.append(name)
    return tuple((name, last[name]) for name in seen)


def sase_form(is_datetime: bool) -> OutputForm:
    """SASE+: the match-table columns as they are (ids per variable, ts, RETURN items), ts a timestamp for a
    datetime input."""
    return OutputForm((), ("ts",) if is_datetime else ())


def sql_form(payload: Sequence[str], value_cols: Sequence[str], timestamps: Sequence[str],
             is_datetime: bool) -> OutputForm:
    """MATCH_RECOGNIZE: the output columns `payload` (from the value columns `value_cols`, in order); the
    columns in `timestamps` (the query's time columns) as timestamps for a datetime input."""
    columns = _last_wins(list(zip(payload, value_cols)))
    return OutputForm(columns, tuple(n for n, _ in columns if n in timestamps) if is_datetime else ())


def tpstream_form(partition_by: Sequence[str], streams: Sequence[str], returns: Sequence[str],
                  value_cols: Sequence[str], is_datetime: bool) -> OutputForm:
    """TPStream: the value columns hold the partition attributes, NAME.start and NAME.end per situation, then
    the RETURN items (reference/tpstream/engine.py's layout)."""
    k, s = len(partition_by), len(streams)
    pairs = list(zip(partition_by, value_cols[:k]))
    for i, name in enumerate(streams):
        pairs += [(f"{name}_ts", value_cols[k + 2 * i]), (f"{name}_te", value_cols[k + 2 * i + 1])]
    pairs.append(("ts", "ts"))
    pairs += list(zip(returns, value_cols[k + 2 * s:]))
    times = [f"{n}_{e}" for n in streams for e in ("ts", "te")] + ["ts"]
    return OutputForm(_last_wins(pairs), tuple(times) if is_datetime else ())


def project(out, form: OutputForm):
    """The Spark DataFrame `out` (match-table columns) in `form`'s columns."""
    from pyspark.sql import functions as F

    if not form.columns:
        return out
    return out.select(*[F.col(f"`{source}`").alias(name) for name, source in form.columns])
