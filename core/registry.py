"""Which languages exist, which engines run each, and what each engine runs: the lowest layer's registry.

Entries hold "module:Class" / "module:function" strings, so looking an engine up imports that engine
only: Spark, the CLI and the conformance harness find engines here without importing each other.

An engine declares the constructs it runs (`constructs`, None for every construct of its language);
`check_constructs` refuses any other construct at compile time, naming it and the engines that run it.
Engines may still refuse finer things themselves (Unsupported); `with_alternatives` adds the engines
that declare the query's constructs to such a refusal.
"""
from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable

from cepkit.core.errors import CepkitError, QueryError, Unsupported, require_extra


# The reading options of the EventBatch readers (core/inputs.py): the flags of `cepkit run` (--ts-unit, ...) as
# keywords; `input_format` is the format of an events file whose suffix does not say it.
READ_OPTIONS = ("ts_unit", "ts_col", "type_col", "id_col", "default_type", "sort", "input_format")


@dataclass(frozen=True)
class LanguageEntry:
    name: str
    description: str
    suffixes: tuple[str, ...]
    parse: str                      # "module:function": text -> AST (QueryError with line and column)
    constructs: str                 # "module:function": AST -> {construct name: position}
    title: str = ""                 # how messages name the language's queries ("MATCH_RECOGNIZE")
    events: str = "cepkit.core.inputs:to_batch"   # "module:function": (events, **read options) -> program input
    # the engines that run its queries when none is named, fastest first, the reference last (cepkit/engine_choice.py)
    by_speed: tuple[str, ...] = ("reference",)
    # "module:function" (query, engine name, build) -> program: the language's front-end step around every
    # engine's program (SQL: the outer query and the input forms); None: build(query)
    program: str | None = None
    read_options: tuple[str, ...] = READ_OPTIONS   # the keywords its reader takes
    # why its programs take the whole input at once (`cepkit run`'s summary says so; docs/semantics.md SD1);
    # None: they are fed the events chunk by chunk
    whole: str | None = None
    # how `cepkit run` writes its programs' tables: "matches" (bindings, ts, RETURN items, as they come),
    # "items" (the RETURN items alone), "rows" (a SQL query's output rows), "situations" (TPStream's
    # intervals), "changes" (an AFA's change stream, or its net result)
    output: str = "matches"
    carries_rows: bool = False      # a query may carry its rows (SQL VALUES): it runs without an events file

    @property
    def default_engine(self) -> str:
        """The engine tried first when none is named."""
        return self.by_speed[0]


@dataclass(frozen=True)
class EngineEntry:
    language: str
    name: str
    target: str                     # "module:Class" of a cepkit.core.contract.Engine
    description: str
    constructs: frozenset[str] | None = None   # None: every construct of the language
    # "module:function" for input other than the language's reader gives (a replay store; the optimized AFA
    # program's events file read column-wise)
    events: str | None = None
    whole: str | None = None        # why it takes the whole input at once, where its language is fed chunks


def _load(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


SASE_CORE = frozenset({"SEQ", "Kleene closure", "negation", "partition", "window", "aggregate", "RETURN"})
NON_OVERLAP = "non-overlap output (--selection non-overlap)"
SASE1_DIALECT = "SASE 1.0 dialect"  # cepkit.front.language.constructs.SASE1_DIALECT
STRATEGIES = frozenset({"strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"})
SASE_PATTERNS = frozenset({"AND(...)", "OR(...)", "ANY(...)", "nested pattern", "RFID dialect"})
# what optimized/lazy runs (optimized/lazy/plan.py refuses the rest by name as well)
OPTIMIZED_PATTERNS = frozenset({"SEQ", "negation", "partition", "window", "AND(...)", "OR(...)", "ANY(...)",
                                "nested pattern", "skip_till_any_match", "RETURN"})
OPTIMIZED_KLEENE = OPTIMIZED_PATTERNS | {"Kleene closure", "aggregate"}  # optimized-lazy / -eager

LANGUAGES: dict[str, LanguageEntry] = {e.name: e for e in (
    LanguageEntry("sase", "SASE+ / SASE RFID patterns (spec/000, spec/001, spec/002)", (".sase", ".query"),
                  "cepkit.front.language:parse", "cepkit.front.language.constructs:constructs", "SASE+",
                  by_speed=("optimized", "optimized-lazy", "reference")),

    LanguageEntry("sql", "SQL MATCH_RECOGNIZE (row pattern recognition, spec/004)", (".sql",),
                  "cepkit.front.sql.parse:parse", "cepkit.front.sql.constructs:constructs", "MATCH_RECOGNIZE",
                  events="cepkit.reference.sql.engine:to_table", program="cepkit.reference.sql.front:build",
                  whole="a MATCH_RECOGNIZE query runs over its table at once (ORDER BY, the outer query)",
                  output="rows", carries_rows=True, by_speed=("optimized", "reference")),

    LanguageEntry("tpstream", "TPStream interval patterns over derived situations (spec/004)", (".tps",),
                  "cepkit.front.tpstream.parser:parse_tpstream", "cepkit.front.tpstream.constructs:constructs",
                  "TPStream", events="cepkit.core.inputs:to_untyped_batch",
                  whole="TPStream programs run over the whole stream (Program.run)", output="situations",
                  by_speed=("optimized", "reference")),

    LanguageEntry("afa", "AFA patterns over disordered streams (spec/003)", (".afa.yaml", ".afa.yml", ".afa.json"),
                  "cepkit.front.afa.afafile:loads_afa", "cepkit.front.afa.constructs:constructs", "AFA",
                  events="cepkit.front.afa.eventfile:read_input", read_options=(),
                  whole="the change stream is printed at the end", output="changes",
                  by_speed=("optimized", "reference")),

    LanguageEntry("window", "windowed filter, aggregation and join (spec/004)", (".win",),
                  "cepkit.front.windows.query:parse", "cepkit.front.windows.query:constructs", "window",
                  events="cepkit.reference.windows.engine:to_input",
                  whole="window programs run over the whole stream (Program.run)", output="items"),
)}

ENGINES: dict[tuple[str, str], EngineEntry] = {(e.language, e.name): e for e in (
    EngineEntry("sase", "reference", "cepkit.reference.engine:ReferenceEngine",
                "NFA^b runs (flat sequences, spec/000); the eager pattern NFA for AND / OR / ANY / RFID"),
    EngineEntry("sase", "brute", "cepkit.reference.engine:BruteForceEngine",
                "the definitions by enumeration (at most 200 events)",
                SASE_CORE | STRATEGIES | SASE_PATTERNS | {NON_OVERLAP},  # not the SASE 1.0 dialect
                whole="engine brute enumerates the matches over the whole stream at its end"),
    EngineEntry("sase", "reference-eager", "cepkit.reference.pattern.engines:EagerEngine",
                "the eager NFA of spec/001 (skip-till-any-match)",
                SASE_CORE | SASE_PATTERNS | {"skip_till_any_match"}),
    EngineEntry("sase", "reference-lazy", "cepkit.reference.pattern.engines:LazyChainEngine",
                "the lazy chain NFA of spec/001 (rarest event type first)",
                SASE_CORE | SASE_PATTERNS | {"skip_till_any_match"}),
    EngineEntry("sase", "reference-tree", "cepkit.reference.pattern.engines:TreeEngine",
                "the lazy tree NFA of spec/001 (no Kleene closure)",
                (SASE_CORE - {"Kleene closure"}) | SASE_PATTERNS | {"skip_till_any_match"}),
    EngineEntry("sase", "reference-ssc", "cepkit.reference.rfid.engine:SSCEngine",
                "the SASE RFID plan of spec/002 (SSC, active instance stacks)",
                (SASE_CORE - {"Kleene closure", "aggregate"}) | {"ANY(...)", "RFID dialect", "skip_till_any_match"}),
    EngineEntry("sase", "optimized-lazy", "cepkit.optimized.lazy.engines:OptimizedLazyEngine",
                "Numba lazy chain NFA of spec/001 (rarest type first; Kleene closure included)",
                OPTIMIZED_KLEENE),
    EngineEntry("sase", "optimized-tree", "cepkit.optimized.lazy.engines:OptimizedTreeEngine",
                "Numba tree NFA of spec/001 (adaptive order; no Kleene closure)",
                OPTIMIZED_PATTERNS),
    EngineEntry("sase", "optimized-eager", "cepkit.optimized.lazy.engines:OptimizedEagerEngine",
                "Numba eager NFA of spec/001 over the same pattern model (the lazy engines' baseline)",
                OPTIMIZED_KLEENE),
    EngineEntry("sase", "optimized", "cepkit.optimized.engine:OptimizedEngine",
                "Numba NFA^b over columnar batches (flat SASE+ sequences; SASE 1.0's runs in its dialect)",
                SASE_CORE | STRATEGIES | {NON_OVERLAP, SASE1_DIALECT}),

    EngineEntry("sql", "reference", "cepkit.reference.sql.engine:SqlEngine",
                "the row-pattern program (ONE ROW / ALL ROWS PER MATCH) and the thesis' ALL MATCHES"),
    EngineEntry("sql", "gpu", "cepkit.gpu.pattern_engine:GpuSqlEngine",
                "OpenCL step kernel for ALL MATCHES sequential patterns",
                # what gpu/pattern_plan.py lets the kernel run (names of front/sql/constructs.py); the
                # host evaluates MEASURES with the reference, so every MEASURES construct is the gpu's too
                frozenset({"ALL MATCHES", "CONTIGUOUS", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH",
                           "Kleene quantifier (*, +)", "PARTITION BY", "SUBSET", "WITHIN", "SELECT columns",
                           "PREV in DEFINE", "AFTER MATCH SKIP TO NEXT ROW", "AFTER MATCH SKIP TO FIRST",
                           "AFTER MATCH SKIP TO LAST"}
                          | {f"{f} in MEASURES" for f in ("PREV", "NEXT", "FIRST", "LAST", "PREV of an expression",
                                                          "CLASSIFIER", "MATCH_NUMBER", "aggregates")})),
    EngineEntry("sql", "optimized", "cepkit.optimized.sql.engine:OptimizedSqlEngine",
                "Numba row-pattern matcher and ALL MATCHES runner over partitions sorted in NumPy"),
    EngineEntry("sql", "replay", "cepkit.reference.replay.engine:ReplayEngine",
                "index-based offline replay over a store directory (spec/004 §3)",
                events="cepkit.reference.replay.engine:open_store"),

    EngineEntry("tpstream", "reference", "cepkit.reference.tpstream.engine:TPStreamEngine",
                "situation derivation and the Allen-relation matcher (exact and early output)"),
    EngineEntry("tpstream", "brute", "cepkit.reference.tpstream.engine:TPStreamBruteEngine",
                "the definitions by enumerating configurations (small inputs)"),
    EngineEntry("tpstream", "gpu", "cepkit.gpu.situations_engine:GpuTPStreamEngine",
                "situation derivation in OpenCL, the reference's exact matcher",
                frozenset({"situations", "Allen relations", "PARTITION BY", "duration bounds", "disjunctive relations",
                           "RETURN", "exact output"})),  # not "early output"
    EngineEntry("tpstream", "optimized", "cepkit.optimized.tpstream.engine:OptimizedTPStreamEngine",
                "columnar situation derivation and the Allen-relation matcher in Numba (exact and early output)",
                frozenset({"situations", "Allen relations", "PARTITION BY", "duration bounds", "disjunctive relations",
                           "RETURN", "exact output", "early output"})),

    EngineEntry("afa", "reference", "cepkit.reference.afa.engine:AfaEngine",
                "the speculative AFA operator and its flavours (ignorable, seq, cleanse)",
                frozenset({"flavor:basic", "flavor:ignorable", "flavor:seq", "flavor:cleanse", "register", "window",
                           "epsilon arcs", "standby arcs"})),  # flavour refusals: the input's, at feed time
    EngineEntry("afa", "optimized", "cepkit.optimized.afa.engine:OptimizedAfaEngine",
                "Algorithm 1 over typed arrays in Numba (every flavour; dynamic patterns under basic)",
                frozenset({"flavor:basic", "flavor:ignorable", "flavor:seq", "flavor:cleanse", "register", "window",
                           "epsilon arcs", "standby arcs"}),
                events="cepkit.optimized.afa.inputs:read_input"),   # an events file read column-wise

    EngineEntry("window", "reference", "cepkit.reference.windows.engine:WindowEngine",
                "windowed filter, aggregation (tree / recompute) and join"),
    EngineEntry("window", "gpu", "cepkit.gpu.windows_engine:GpuWindowEngine",
                "OpenCL filter, windowed aggregation and join"),
)}


def language(name: str) -> LanguageEntry:
    if name not in LANGUAGES:
        raise QueryError(f"unknown query language '{name}'", expected=sorted(LANGUAGES))
    return LANGUAGES[name]


def engines_for(lang: str) -> list[str]:
    """The engines registered for a language, default first."""
    default = language(lang).default_engine
    names = [n for (l, n) in ENGINES if l == lang]
    return sorted(names, key=lambda n: (n != default, n))


def engine_entry(lang: str, name: str) -> EngineEntry:
    language(lang)
    if (lang, name) not in ENGINES:
        raise QueryError(f"engine '{name}' cannot run {LANGUAGES[lang].title or lang} queries",
                         expected=engines_for(lang))
    return ENGINES[(lang, name)]


# The extra (core/errors.py EXTRAS) an engine needs, by the cepkit subpackage of its "module:Class" target.
ENGINE_EXTRAS: dict[str, str] = {"cepkit.gpu": "gpu", "cepkit.spark_jobs": "spark"}


def engine_extra(lang: str, name: str) -> str | None:
    """The extra the named engine needs beyond the core install, else None (imports nothing)."""
    return ENGINE_EXTRAS.get(".".join(engine_entry(lang, name).target.partition(":")[0].split(".")[:2]))


COMPILED = "cepkit.optimized"   # the package whose engines Numba compiles


def compiles(lang: str, name: str) -> bool:
    """Whether Numba compiles the named engine's code (its target lies in cepkit.optimized)."""
    return engine_entry(lang, name).target.startswith(COMPILED + ".")


def require_engine(lang: str, name: str) -> None:
    """MissingExtra (naming `pip install 'cepkit[EXTRA]'`) when the engine's extra is not installed."""
    extra = engine_extra(lang, name)
    if extra is not None:
        require_extra(extra, f"engine '{name}'")


def get_engine(lang: str, name: str):
    """An instance of the named engine for the language (QueryError naming the ones there are; MissingExtra
    when it needs an extra that is not installed)."""
    require_engine(lang, name)
    return _load(engine_entry(lang, name).target)()


def takes(engine: Any, option: str) -> bool:
    """Whether an Engine instance takes the named option (its `build` names it, or `extra_options` does)."""
    params = inspect.signature(engine.build).parameters
    return option in params or option in getattr(engine, "extra_options", ())


def engines_taking(lang: str, option: str) -> list[str]:
    """The engines of the language that take the named option (those whose extra is not installed left out)."""
    out = []
    for name in [n for (l, n) in ENGINES if l == lang]:
        try:
            engine = get_engine(lang, name)
        except CepkitError:
            continue
        if takes(engine, option):
            out.append(name)
    return out


def parse(lang: str, text: str) -> Any:
    return _load(language(lang).parse)(text)


def build(lang: str, engine: str, query: Any, make: Callable[[Any], Any]) -> Any:
    """The engine's program for the query (`make(query)`), through the language's front-end step if it has one."""
    step = language(lang).program
    return make(query) if step is None else _load(step)(query, engine, make)


def read_input(lang: str, engine: str, events: Any, query: Any = None, **read_options: Any) -> Any:
    """What the engine's programs feed on, from a path, a pandas DataFrame, an Arrow table or a batch.
    A reader that takes the query (the SQL table reader: its first ORDER BY column as the timestamp) gets it."""
    reader = _load(engine_entry(lang, engine).events or language(lang).events)
    if query is not None and "query" in inspect.signature(reader).parameters:
        read_options["query"] = query
    return reader(events, **read_options)


def read_option_names(lang: str, engine: str) -> list[str]:
    """The reading options of the engine's input: its language's, and the keywords of an engine's own reader
    (a replay store's `block_size`, `indexes`)."""
    names = list(language(lang).read_options)
    own = engine_entry(lang, engine).events
    if own is not None:
        params = list(inspect.signature(_load(own)).parameters.values())[1:]
        names += [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                  and p.name != "query" and p.name not in names]
    return names


def constructs(lang: str, query: Any, **options: Any) -> dict[str, Any]:
    """The constructs a query uses, each with its position (an object with line and column, or None)."""
    found = _load(language(lang).constructs)(query, **options)
    return found if isinstance(found, dict) else {c: None for c in found}


def runs(lang: str, needed: set[str]) -> list[str]:
    """The engines of a language that declare every construct in `needed`."""
    return [n for n in engines_for(lang)
            if ENGINES[(lang, n)].constructs is None or needed <= ENGINES[(lang, n)].constructs]


def check_constructs(lang: str, engine: str, query: Any, **options: Any) -> None:
    """Unsupported at compile time for the first construct of the query the engine does not declare."""
    declared = engine_entry(lang, engine).constructs
    if declared is None:
        return
    found = constructs(lang, query, **options)
    missing = [c for c in found if c not in declared]
    if missing:
        pos = found[missing[0]] or getattr(query, "pos", None)
        exc = Unsupported(engine, missing[0], getattr(pos, "line", None) or None, getattr(pos, "column", None) or None)
        raise _name_alternatives(exc, [n for n in runs(lang, set(found)) if n != engine])


def with_alternatives(lang: str, exc: Unsupported, query: Any, **options: Any) -> Unsupported:
    """The refusal, naming the other engines that declare every construct of the query."""
    if "run it with" in exc.message:
        return exc
    try:
        others = [n for n in runs(lang, set(constructs(lang, query, **options))) if n != exc.engine]
    except CepkitError:  # a construct lister that refuses the options: say no more
        others = []
    return _name_alternatives(exc, others)


def _name_alternatives(exc: Unsupported, others: list[str]) -> Unsupported:
    if others:
        exc.message = f"{exc.message} (run it with: {', '.join(others)})"
        exc.args = (str(exc),)
    return exc


# ---------------------------------------------------------------------- finding the language of a text
_SQL = re.compile(r"\bMATCH_RECOGNIZE\b", re.IGNORECASE)
_TPSTREAM = re.compile(r"^\s*FROM\b[^\n]*\n(.|\n)*\bDEFINE\b", re.IGNORECASE)
_AFA = re.compile(r"^\s*(states|arcs|register|start)\s*:", re.MULTILINE)


def detect(text: str) -> str:
    """The language of a query text: SQL names MATCH_RECOGNIZE, TPStream starts with FROM ... DEFINE, an
    AFA is a YAML / JSON mapping with states and arcs, anything else is SASE."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("--", "//", "#")))
    if _SQL.search(body):
        return "sql"
    if _TPSTREAM.search(body):
        return "tpstream"
    if len(_AFA.findall(body)) >= 2 or body.lstrip().startswith("{") and '"arcs"' in body:
        return "afa"
    return "sase"


def by_suffix(path: str) -> str | None:
    """The language whose file suffix the path has (the longest suffix wins), else None."""
    lower = str(path).lower()
    best: tuple[int, str] | None = None
    for entry in LANGUAGES.values():
        for suffix in entry.suffixes:
            if lower.endswith(suffix) and (best is None or len(suffix) > best[0]):
                best = (len(suffix), entry.name)
    return best[1] if best else None


def load(target: str) -> Callable:
    """The object named by a "module:name" string (used by the layers above for their own tables)."""
    return _load(target)
