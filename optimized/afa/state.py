"""The operator's state as arrays (optimized/afa/kernel.py names their columns), growable by the kernel."""
from __future__ import annotations

import numpy as np

from optimized.afa import kernel as K


class State:
    """Entries, node pool, event store, output since the last hand-over, and the scalars S."""

    def __init__(self, n_fields: int, n_slots: int, initial: tuple[np.ndarray, np.ndarray, np.ndarray]):
        self.S = np.zeros(12, np.int64)
        self.S[[K.T_E, K.T_P, K.MAX_LE]] = K.MINF
        self.K = np.zeros((256, 4), np.int64)
        self.NODE = np.zeros((1024, 3), np.int64)
        self.RT = np.zeros((1024, n_fields), np.int8)
        self.RN = np.zeros((1024, n_fields), np.int64)
        self.RD = np.ones((1024, n_fields), np.int64)
        self.RT[0], self.RN[0], self.RD[0] = initial
        self.EV = np.zeros((256, 3), np.int64)
        self.ET = np.zeros((256, n_slots), np.int8)
        self.EN = np.zeros((256, n_slots), np.int64)
        self.ED = np.ones((256, n_slots), np.int64)
        self.OUT = np.zeros((256, 3), np.int64)
        self.ORT = np.zeros((256, n_fields), np.int8)
        self.ORN = np.zeros((256, n_fields), np.int64)
        self.ORD = np.ones((256, n_fields), np.int64)
        self.PUN = np.zeros((16, 2), np.int64)

    def arrays(self) -> tuple:
        return (self.S, self.K, self.NODE, self.RT, self.RN, self.RD, self.EV, self.ET, self.EN, self.ED,
                self.OUT, self.ORT, self.ORN, self.ORD, self.PUN)

    def take(self, grown: tuple) -> None:
        (self.NODE, self.RT, self.RN, self.RD, self.EV, self.ET, self.EN, self.ED, self.OUT, self.ORT, self.ORN,
         self.ORD, self.PUN, self.K) = grown

    def live_nodes(self) -> int:
        n = int(self.S[K.N_ENT])
        return int(self.K[:n, K.K_CNT].sum())

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays())
