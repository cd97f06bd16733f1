"""A streaming job's checkpoint belongs to one query: a fingerprint of the query text and the options that
shape its state and output is kept beside Spark's checkpoint files, and a start with another query or
other options is refused before Spark runs (semantics SP-S6). An output directory that already holds
another stream's output (Spark's `_spark_metadata` log) is refused the same way: a new checkpoint would
restart the batch numbers, and Spark's file sink skips batch numbers it has already committed."""
from __future__ import annotations

import hashlib
import json
import os

from cepkit.core.errors import CepkitError
from cepkit.spark_jobs import source as S

FINGERPRINT = "_cepkit_stream.json"


class CheckpointError(CepkitError):
    """The checkpoint or output directory belongs to another query."""

    exit_code = 2


def fingerprint(query: str, options: dict) -> dict:
    """What the checkpoint records: a hash of the query text and the options, and the options themselves."""
    text = json.dumps({"query": query, **options}, sort_keys=True, default=str)
    return {"query_sha256": hashlib.sha256(query.encode()).hexdigest(),
            "sha256": hashlib.sha256(text.encode()).hexdigest(), "options": options}


def check(checkpoint: str, out_dir: str, query: str, options: dict) -> bool:
    """CheckpointError for a checkpoint of another query or options, or an output directory with other
    content; returns whether the checkpoint is new. Local paths only (others are not checked)."""
    if not (S.is_local(checkpoint) and S.local_path(checkpoint)):
        return False
    ckpt, out = S.local_path(checkpoint), S.local_path(out_dir)
    mine = fingerprint(query, options)
    path = os.path.join(ckpt, FINGERPRINT)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            theirs = json.load(fh)
        if theirs.get("sha256") != mine["sha256"]:
            what = "query text" if theirs.get("query_sha256") != mine["query_sha256"] else "options"
            changed = sorted(k for k in set(mine["options"]) | set(theirs.get("options", {}))
                             if mine["options"].get(k) != theirs.get("options", {}).get(k))
            detail = f" ({', '.join(changed)})" if what == "options" and changed else ""
            raise CheckpointError(f"the checkpoint '{checkpoint}' belongs to another stream: its {what} differ"
                                  f"{detail}; use a new checkpoint directory, or the same query and options")
        return False
    if os.path.isdir(ckpt) and os.listdir(ckpt):
        raise CheckpointError(f"'{checkpoint}' is not empty and is not a cepkit stream's checkpoint (no "
                              f"{FINGERPRINT}); use a new or empty checkpoint directory")
    if os.path.isdir(out) and os.listdir(out):
        kind = "another stream's output" if os.path.isdir(os.path.join(out, "_spark_metadata")) else "other files"
        raise CheckpointError(f"the output directory '{out_dir}' holds {kind}, and the checkpoint '{checkpoint}' "
                              "is new; use a new output directory, or that stream's checkpoint")
    return True


def record(checkpoint: str, query: str, options: dict) -> None:
    """Write the fingerprint (once the checks passed, before Spark writes its first file)."""
    if not S.is_local(checkpoint):
        return
    ckpt = S.local_path(checkpoint)
    os.makedirs(ckpt, exist_ok=True)
    path = os.path.join(ckpt, FINGERPRINT)
    if not os.path.exists(path):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(fingerprint(query, options), fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
