"""The operator's state as arrays (optimized/afa/kernel.py names their columns), growable by the kernel."""
from __future__ import annotations

import numpy as np

from cepkit.optimized.afa import kernel as K
from cepkit.optimized.afa.exprgen import CONSTANTS, EHEAD, HEAD


class State:
    """Entries K, node pool R, event store E, output rows O and punctuations P since the last hand-over,
    Cleanse's waiting insertions Q, and the scalars S, followed by the AFA's constants (read by `fire`)."""

    def __init__(self, n_fields: int, n_slots: int, initial: np.ndarray, constants: tuple[int, ...] | list[int] = ()):
        self.S = np.zeros(CONSTANTS + len(constants), np.int64)
        self.S[CONSTANTS:] = constants
        self.S[[K.T_E, K.T_P, K.MAX_LE]] = K.MINF
        self.K = np.zeros((256, 5), np.int64)
        self.R = np.zeros((1024, HEAD + 3 * n_fields), np.int64)
        self.R[0, HEAD:] = initial
        self.E = np.zeros((256, EHEAD + 3 * n_slots), np.int64)
        self.O = np.zeros((256, HEAD + 3 * n_fields), np.int64)
        self.P = np.zeros((16, 2), np.int64)
        self.Q = np.zeros((64, EHEAD + 3 * n_slots), np.int64)   # Cleanse's waiting insertions
        # AFA+ignore (optimized/afa/ignorable.py): node links and the entries' id lists
        self.X = np.full((1024, 6), -1, np.int64)
        self.X[:, 4:] = 0
        self.L = np.zeros((1024, 1), np.int64)

    def arrays(self) -> tuple:
        return self.S, self.K, self.R, self.X, self.L, self.E, self.O, self.P, self.Q

    def take(self, grown: tuple) -> None:
        """The arrays the kernel (optimized/afa/loop.py `run`) returns, possibly reallocated."""
        self.K, self.R, self.X, self.L, self.E, self.O, self.P, self.Q = grown

    def waiting(self) -> np.ndarray:
        """The LEs of Cleanse's waiting insertions."""
        return self.Q[int(self.S[K.Q_HEAD]):int(self.S[K.Q_TAIL]), K.E_LE]

    def live_nodes(self) -> int:
        n = int(self.S[K.N_ENT])
        return int(self.K[:n, K.K_CNT].sum())

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays())
