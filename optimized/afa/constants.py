"""The AFA's constants as data that `fire` (optimized/afa/exprgen.py) reads by address: they follow the
kernel's scalars in S (S[CONSTANTS:]), and each call of `fire` gets the address of S as an int64. A scalar
argument, not an array: the kernel calls `fire` as a first-class function, and an array argument there
costs reference counting on every call (passing S itself made the basic flavour 12-20 % slower,
benchmarks/afa_flavors.py)."""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def address(typingctx, ary):
    """The address of an int64 array's first element, as an int64 (the array must outlive its use)."""
    if not (isinstance(ary, types.Array) and ary.dtype == types.int64):
        return None
    sig = types.int64(ary)

    def codegen(context, builder, signature, args):
        a = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(a.data, ir.IntType(64))

    return sig, codegen


@intrinsic
def peek(typingctx, addr, k):
    """The int64 at element k of the array at `addr` (address)."""
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load(builder.gep(ptr, [args[1]]))

    return sig, codegen
