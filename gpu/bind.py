"""Binding a condition's column references to device columns: kernel parameters, arrays and operands."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from cepkit.gpu.clexpr import Operand
from cepkit.gpu.columns import DeviceColumn, device_columns
from cepkit.core.errors import Unsupported
from cepkit.front.sql import ast as S
from cepkit.reference.sql.run import numeric_refs


@dataclass
class Bound:
    """The device columns a condition reads, keyed by (qualifier, column), and how a kernel reads them."""

    columns: dict[tuple[str | None, str], DeviceColumn]
    index: Callable[[str | None], str]
    engine: str = "gpu"
    names: dict[tuple[str | None, str], str] = field(default_factory=dict)

    def __post_init__(self):
        self.names = {key: f"c{k}" for k, key in enumerate(self.columns)}

    def params(self) -> list[str]:
        return [p for key, col in self.columns.items() for p in col.params(self.names[key])]

    def arrays(self, rows: Callable[[str | None], slice | np.ndarray] | None = None) -> list[np.ndarray]:
        """The kernel's column arrays, each restricted to rows(qualifier) when given."""
        out = []
        for (var, _), col in self.columns.items():
            out.extend(col.arrays() if rows is None else [a[rows(var)] for a in col.arrays()])
        return out

    def resolve(self, node) -> Operand:
        if isinstance(node, S.ColRef) and (node.var, node.col) in self.columns:
            return self.columns[(node.var, node.col)].operand(self.names[(node.var, node.col)],
                                                               self.index(node.var))
        pos = getattr(node, "pos", None)
        raise Unsupported(self.engine, type(node).__name__, pos.line if pos else None, pos.column if pos else None)


def column_refs(expr) -> list[tuple[str | None, str]]:
    """(qualifier, column) of every column reference, in first-use order."""
    out: dict = {}
    for n in expr.walk():
        if isinstance(n, S.ColRef):
            out.setdefault((n.var, n.col), None)
    return list(out)


def bind(expr, raw: Callable[[str | None, str], np.ndarray], index: Callable[[str | None], str],
         engine: str = "gpu") -> Bound:
    """Device columns for the references of `expr`; `raw(qualifier, column)` gives the whole column.
    Text columns share one sorted dictionary, so any two of them compare by code; float64 columns that
    arithmetic reads also get their exact decimal form."""

    keys = column_refs(expr)
    computed = numeric_refs([expr])
    cols = device_columns([raw(v, c) for v, c in keys], [c for _, c in keys], engine,
                          [k in computed for k in keys]) if keys else []
    return Bound(dict(zip(keys, cols)), index, engine)
