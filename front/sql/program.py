"""A row pattern compiled to a program of instructions (after Trino's row pattern matcher, which follows
the Pike VM): the one compilation of a PATTERN, run by reference/sql/vm.py (SQL mode), and the source
of the Glushkov automaton that the ALL MATCHES runner (reference/sql/allmatches.py) and the device
plan (gpu/pattern_plan.py) use.

Instructions (`Program.describe()` prints one a line):
  match L [excluded]    consume the current row as variable L if L's DEFINE holds (RUNNING semantics over
                        the match so far); `excluded`: inside {- -}, left out of ALL ROWS output
  split a, b            fork: the thread at a is preferred over the thread at b
  jump a
  iteration k           an iteration of loop k begins (with no row consumed yet)
  exit-if-empty k, a    if iteration k consumed no row: jump to a (ends the loop), else go on
  at-start / at-end     `^` / `$`: go on only at the first row / past the last row of the partition
  done                  a match ends here

Bounded quantifiers are unrolled (p{2,4} = p p then two optional iterations; p{1,} = p then the loop
p*), PERMUTE is expanded into the alternation of every order in lexicographic order of the items, and
`()` compiles to nothing. Preference follows SQL:2016 (Perl): `split` puts the preferred branch first
(greedy: another iteration; reluctant: leaving the loop; alternation: the left one). `iteration` and
`exit-if-empty` are emitted only around loop bodies that can match no rows: an iteration beyond the
quantifier's minimum that consumed no row ends the loop (Perl's rule), so no thread ever loops without
consuming a row.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import factorial

from cepkit.core.errors import QueryError
from cepkit.front.sql import ast as S
from cepkit.front.sql.patterns import expand_permute, nullable

MATCH, SPLIT, JUMP, ITERATION, EXIT_IF_EMPTY, AT_START, AT_END, DONE = range(8)
_NAMES = ("match", "split", "jump", "iteration", "exit-if-empty", "at-start", "at-end", "done")

# Unrolled bounded quantifiers and expanded PERMUTE grow the program; past this it is refused.
MAX_INSTRUCTIONS = 100_000


@dataclass(frozen=True)
class Instruction:
    kind: int
    label: str | None = None      # match
    excluded: bool = False        # match
    a: int = -1                   # split (preferred), jump, exit-if-empty: target
    b: int = -1                   # split: the other branch
    loop: int = -1                # iteration, exit-if-empty

    def __str__(self) -> str:
        name = _NAMES[self.kind]
        if self.kind == MATCH:
            return f"{name} {self.label}" + (" excluded" if self.excluded else "")
        if self.kind == SPLIT:
            return f"{name} {self.a}, {self.b}"
        if self.kind == JUMP:
            return f"{name} {self.a}"
        if self.kind == ITERATION:
            return f"{name} {self.loop}"
        if self.kind == EXIT_IF_EMPTY:
            return f"{name} {self.loop}, {self.a}"
        return name


@dataclass(frozen=True)
class Program:
    instructions: tuple[Instruction, ...]
    loops: int                    # number of loop ids used by iteration / exit-if-empty

    def __len__(self) -> int:
        return len(self.instructions)

    def __getitem__(self, pc: int) -> Instruction:
        return self.instructions[pc]

    def describe(self) -> str:
        width = len(str(len(self.instructions) - 1))
        return "\n".join(f"{pc:>{width}}: {ins}" for pc, ins in enumerate(self.instructions))

    __str__ = describe


def _err(msg: str, pos) -> QueryError:
    return QueryError(msg, (pos.line or None) if pos else None, (pos.column or None) if pos else None)


@dataclass
class _Compiler:
    code: list[dict] = field(default_factory=list)
    loops: int = 0
    blame: list = field(default_factory=list)     # the unrolling constructs being compiled (outermost first)
    root: object = None

    def emit(self, kind: int, **kw) -> int:
        if len(self.code) >= MAX_INSTRUCTIONS:
            node = self.blame[0] if self.blame else self.root
            raise _err(f"the pattern compiles to more than {MAX_INSTRUCTIONS} instructions (bounded "
                       "quantifiers and PERMUTE are unrolled); write a smaller bound or fewer PERMUTE items",
                       getattr(node, "pos", None))
        self.code.append(dict(kind=kind, **kw))
        return len(self.code) - 1

    def patch(self, pc: int, **kw) -> None:
        self.code[pc].update(kw)

    def here(self) -> int:
        return len(self.code)

    def compile(self, p: S.Pattern, excluded: bool) -> None:
        if isinstance(p, S.PVar):
            self.emit(MATCH, label=p.name, excluded=excluded)
        elif isinstance(p, S.PEmpty):
            pass
        elif isinstance(p, S.PAnchor):
            self.emit(AT_START if p.kind == "^" else AT_END)
        elif isinstance(p, S.PConcat):
            for item in p.items:
                self.compile(item, excluded)
        elif isinstance(p, S.PAlt):
            self.alternation(p.items, excluded)
        elif isinstance(p, S.PPermute):
            if factorial(len(p.items)) > MAX_INSTRUCTIONS:
                raise _err(f"PERMUTE of {len(p.items)} items has too many orders to compile", p.pos)
            self.blame.append(p)
            self.alternation(expand_permute(p).items, excluded)
            self.blame.pop()
        elif isinstance(p, S.PExclude):
            self.compile(p.item, True)
        elif isinstance(p, S.PQuant):
            self.blame.append(p)
            self.quantifier(p, excluded)
            self.blame.pop()
        else:
            raise _err(f"pattern element {type(p).__name__} cannot be compiled", getattr(p, "pos", None))

    def alternation(self, items, excluded: bool) -> None:
        jumps = []
        for k, item in enumerate(items):
            if k == len(items) - 1:
                self.compile(item, excluded)
                break
            split = self.emit(SPLIT)
            self.patch(split, a=self.here())
            self.compile(item, excluded)
            jumps.append(self.emit(JUMP))
            self.patch(split, b=self.here())
        for j in jumps:
            self.patch(j, a=self.here())

    def quantifier(self, p: S.PQuant, excluded: bool) -> None:
        for _ in range(p.low):                     # the minimum: plain copies
            self.compile(p.item, excluded)
        empty_body = nullable(p.item)
        if p.high is None:                         # the loop p*
            head = self.emit(SPLIT)
            body = self.here()
            loop = self._iteration(empty_body)
            self.compile(p.item, excluded)
            check = self.emit(EXIT_IF_EMPTY, loop=loop) if empty_body else None
            self.emit(JUMP, a=head)
            self._branch(head, body, self.here(), p.reluctant)
            if check is not None:
                self.patch(check, a=self.here())
            return
        exits = []                                 # high - low optional iterations, each ending the loop
        for _ in range(p.high - p.low):            # when it is skipped or consumed no row
            split = self.emit(SPLIT)
            body = self.here()
            loop = self._iteration(empty_body)
            self.compile(p.item, excluded)
            if empty_body:
                exits.append(self.emit(EXIT_IF_EMPTY, loop=loop))
            exits.append(split)
            self.patch(split, a=body)               # the other branch is patched below
        end = self.here()
        for pc in exits:
            ins = self.code[pc]
            if ins["kind"] == SPLIT:
                self._branch(pc, ins["a"], end, p.reluctant)
            else:
                self.patch(pc, a=end)

    def _iteration(self, empty_body: bool) -> int:
        if not empty_body:
            return -1
        self.loops += 1
        self.emit(ITERATION, loop=self.loops - 1)
        return self.loops - 1

    def _branch(self, split: int, body: int, out: int, reluctant: bool) -> None:
        self.patch(split, a=out, b=body) if reluctant else self.patch(split, a=body, b=out)


@lru_cache(maxsize=128)
def compile_pattern(p: S.Pattern) -> Program:
    """The program of a row pattern; QueryError (with the position of the construct) if it is too large.
    Cached: a query's pattern is compiled once for every partition and every engine."""
    c = _Compiler(root=p)
    c.compile(p, False)
    c.emit(DONE)
    return Program(tuple(Instruction(**ins) for ins in c.code), c.loops)


# ----------------------------------------------------------------------------- Glushkov automaton
@dataclass
class Glushkov:
    """Positions are the program's `match` instructions, in program order (pc_of[q] is the pc of position
    q); first / last / follow are read off the program by following its non-consuming instructions."""

    labels: list[str] = field(default_factory=list)        # position -> variable
    first: set[int] = field(default_factory=set)
    last: set[int] = field(default_factory=set)
    follow: dict[int, set[int]] = field(default_factory=dict)
    pc_of: list[int] = field(default_factory=list)


def glushkov(prog: Program) -> Glushkov:
    g = Glushkov()
    position = {}
    for pc, ins in enumerate(prog.instructions):
        if ins.kind == MATCH:
            position[pc] = len(g.labels)
            g.labels.append(ins.label)
            g.pc_of.append(pc)
    g.first, _ = _reach(prog, 0, position)
    for q, pc in enumerate(g.pc_of):
        g.follow[q], done = _reach(prog, pc + 1, position)
        if done:
            g.last.add(q)
    return g


def _reach(prog: Program, pc: int, position: dict[int, int]) -> tuple[set[int], bool]:
    """Positions reachable from pc without consuming a row, and whether `done` is.

    As languages go, an empty iteration that loops again reaches nothing new, so exit-if-empty follows
    both ways. Anchors are not allowed in ALL MATCHES (validation refuses them)."""
    out: set[int] = set()
    done = False
    seen: set[int] = set()
    stack = [pc]
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        ins = prog.instructions[pc]
        if ins.kind == MATCH:
            out.add(position[pc])
        elif ins.kind == DONE:
            done = True
        elif ins.kind == SPLIT:
            stack += [ins.a, ins.b]
        elif ins.kind == JUMP:
            stack.append(ins.a)
        elif ins.kind == ITERATION:
            stack.append(pc + 1)
        elif ins.kind == EXIT_IF_EMPTY:
            stack += [ins.a, pc + 1]
        else:
            raise TypeError("anchors are not supported in ALL MATCHES")
    return out, done
