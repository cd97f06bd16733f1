"""The Parquet files of an indexed event directory, and their fingerprints (size, mtime, a SHA-256 of the
Parquet footer), so that a data file changed after `cepkit spark index` is detected, never trusted."""
from __future__ import annotations

import hashlib
import json
import os
import struct

from cepkit.core.errors import EventError

# a reference replay store (reference/replay/store.py, `cepkit store`) lists its data files in this manifest;
# its other top-level files (the reference's secondary indexes) are not events
STORE_MANIFEST = "_cepkit_store.json"


class StaleIndex(EventError):
    """The side table no longer describes the data (or is missing or damaged): rebuild it."""


def data_files(root: str) -> list[str]:
    """The event files of `root`, in stream order (names relative to `root`): a reference store's manifest
    list, else every file that Spark reads there (names not starting with '_' or '.'), sorted by name."""
    if not os.path.isdir(root):
        what = "is not a directory (give the directory of Parquet files)" if os.path.exists(root) \
            else "does not exist"
        raise EventError(f"events directory '{root}' {what}")
    manifest = os.path.join(root, STORE_MANIFEST)
    if os.path.exists(manifest):
        try:
            with open(manifest, encoding="utf-8") as fh:
                files = list(json.load(fh)["files"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EventError(f"'{manifest}' is unreadable: {exc}") from None
    else:
        files = sorted(f for f in os.listdir(root) if not f.startswith(("_", ".")))
    for f in files:
        path = os.path.join(root, f)
        if os.path.isdir(path):
            raise EventError(f"'{path}' is a directory: spark index reads a flat directory of Parquet files "
                             "(no partitioned layout)")
        if not os.path.isfile(path):
            raise EventError(f"data file '{path}' does not exist")
    if not files:
        raise EventError(f"events directory '{root}' holds no Parquet file")
    return files


def store_ts_unit(root: str) -> str | None:
    """The time unit a reference store's manifest records (None elsewhere)."""
    try:
        with open(os.path.join(root, STORE_MANIFEST), encoding="utf-8") as fh:
            return json.load(fh).get("ts_unit")
    except (OSError, ValueError, AttributeError):
        return None


def fingerprint(path: str) -> dict:
    """Size, modification time (ns) and the SHA-256 of the Parquet footer (which holds every row group's
    offsets and statistics)."""
    st = os.stat(path)
    with open(path, "rb") as fh:
        if st.st_size < 12:
            footer = fh.read()
        else:
            fh.seek(-8, os.SEEK_END)
            length = struct.unpack("<i", fh.read(4))[0]
            fh.seek(max(0, st.st_size - 8 - length))
            footer = fh.read()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "footer_sha256": hashlib.sha256(footer).hexdigest()}


def check_fresh(root: str, recorded: dict[str, dict], what: str) -> None:
    """StaleIndex naming the first file of `recorded` (name -> fingerprint) that is gone or changed."""
    for name, want in recorded.items():
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            raise StaleIndex(f"the index of '{root}' is stale: {what} '{name}' is gone; rebuild it with "
                             f"`cepkit spark index {root}`")
        have = fingerprint(path)
        changed = [k for k in ("size", "mtime_ns", "footer_sha256") if have[k] != want.get(k)]
        if changed:
            raise StaleIndex(f"the index of '{root}' is stale: {what} '{name}' changed since it was indexed "
                             f"({', '.join(changed)} differ); rebuild it with `cepkit spark index {root}`")
