"""java.util.Random as Java defines it (a 48-bit linear congruential generator), so that streams generated
by Java programs from a seed are rebuilt value for value.

The constants and the algorithms of setSeed, next(bits), nextInt(), nextInt(bound), nextLong(),
nextBoolean() and nextDouble() are those of the java.util.Random documentation (Java SE 17 API)."""
from __future__ import annotations

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK = (1 << 48) - 1


def _int32(value: int) -> int:
    """The value as a Java int (two's complement, 32 bits)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class JavaRandom:
    """`new java.util.Random(seed)`."""

    def __init__(self, seed: int):
        self.seed = (seed ^ MULTIPLIER) & MASK

    def next(self, bits: int) -> int:
        """The next `bits` pseudorandom bits, as Java's protected next(int) returns them (a signed int)."""
        self.seed = (self.seed * MULTIPLIER + ADDEND) & MASK
        return _int32(self.seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """nextInt() without a bound, else nextInt(bound): uniform in [0, bound)."""
        if bound is None:
            return self.next(32)
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & -bound == bound:  # a power of two: the high bits
            return _int32((bound * self.next(31)) >> 31)
        while True:
            bits = self.next(31)
            value = bits % bound
            if _int32(bits - value + (bound - 1)) >= 0:  # Java rejects the draws whose int sum overflows
                return value

    def next_long(self) -> int:
        """nextLong(): ((long) next(32) << 32) + next(32), as a signed 64-bit value."""
        value = ((self.next(32) << 32) + self.next(32)) & ((1 << 64) - 1)
        return value - (1 << 64) if value >> 63 else value

    def next_boolean(self) -> bool:
        return self.next(1) != 0

    def next_double(self) -> float:
        """nextDouble(): 53 random bits over 2^53."""
        return ((self.next(26) << 27) + self.next(27)) * (1.0 / (1 << 53))
