"""Engines over the pattern model: eager NFA, brute force, lazy Chain NFA and Tree NFA (spec/001)."""
from __future__ import annotations

from cepkit.core.contract import Engine
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.pattern.model import compile_pattern
from cepkit.reference.pattern.program import unsupported_options
from cepkit.reference.lazy.chain import LazyChainProgram
from cepkit.reference.lazy.tree import TreeProgram
from cepkit.reference.pattern.eager import EagerProgram


def _pattern(engine: str, q: A.Query):
    """The pattern model of a query, or Unsupported for a strategy other than skip-till-any-match or for
    the SASE 1.0 dialect (the reference engine runs it)."""
    if q.dialect == "sase1":
        raise Unsupported(engine, "SASE 1.0 dialect", q.pos.line or None, q.pos.column or None)
    if q.strategy is not A.Strategy.SKIP_TILL_ANY_MATCH:
        raise Unsupported(engine, f"the {q.strategy.value} strategy (spec/001 defines skip-till-any-match only)",
                          q.pos.line or None, q.pos.column or None)
    return compile_pattern(q)


def all_only(engine: str, selection: str) -> None:
    """Unsupported for an output selection other than all matches (the pattern engines have no other)."""
    if selection != "all":
        shown = selection.replace('_', '-')
        raise Unsupported(engine, f"the {shown} output format (--selection {shown})")


class EagerEngine(Engine):
    """The eager NFA: every event applied to every instance (spec/001 §3), skip-till-any-match only."""

    name = "reference-eager"
    language = "sase"
    counts_state = True  # instances (live_count)

    def build(self, q: A.Query, selection: str = "all", **options):
        unsupported_options(self.name, options, ())
        all_only(self.name, selection)
        return EagerProgram(_pattern(self.name, q))


class LazyChainEngine(Engine):
    """The lazy Chain NFA; options: order (rarest first; types or variables), negation
    ('post-processing' or 'first-chance'), estimate_prefix (events used to estimate rates)."""

    name = "reference-lazy"
    extra_options = ("order", "negation", "estimate_prefix")   # what build's **options takes
    language = "sase"
    counts_state = True  # instances (live_count)

    def build(self, q: A.Query, selection: str = "all", **options):
        unsupported_options(self.name, options, ("order", "negation", "estimate_prefix"))
        all_only(self.name, selection)
        return LazyChainProgram(_pattern(self.name, q), **options)


class TreeEngine(Engine):
    """The Tree NFA: adaptive order from per-instance buffer counts (spec/001 §5)."""

    name = "reference-tree"
    language = "sase"
    counts_state = True  # instances (live_count)

    def build(self, q: A.Query, selection: str = "all", **options):
        unsupported_options(self.name, options, ())
        all_only(self.name, selection)
        return TreeProgram(_pattern(self.name, q))
