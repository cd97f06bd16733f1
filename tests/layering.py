"""An import-linter contract type for layers by folder (pyproject.toml [tool.importlinter] contract_types):
a layers contract in which a layer item `PACKAGE.*` stands for every module and subpackage directly in
PACKAGE that no other layer names (modules that may import each other). So cepkit's own modules (the door: cli, api, runner, ...) form a layer
without a list of their names, below the conformance kit and above the engines' subpackages. And a forbidden
contract told the other way round (`only_parts`: which parts of a package a source may use)."""
from __future__ import annotations

from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import Layer, LayersContract, ModuleTail
from importlinter.domain import fields


class FolderLayersContract(LayersContract):
    """`layers`, where `PACKAGE.*` is the rest of PACKAGE's direct children."""

    type_name = "folder_layers"

    def check(self, graph, verbose):
        named = {t.name for layer in self.layers for t in layer.module_tails}
        expanded = []
        for layer in self.layers:
            tails, independent = set(), layer.is_independent
            for tail in layer.module_tails:
                if not tail.name.endswith(".*"):
                    tails.add(tail)
                    continue
                package = tail.name[:-2]
                rest = {c for c in graph.find_children(package)
                        if not any(c == n or c.startswith(n + ".") or n.startswith(c + ".") for n in named)}
                tails |= {ModuleTail(name=c, is_optional=False) for c in sorted(rest)}
                independent = False   # the modules of one folder may import each other
            expanded.append(Layer(tails, is_independent=independent))
        self.layers = expanded
        return super().check(graph, verbose)


class OnlyPartsContract(ForbiddenContract):
    """`forbidden`, told the other way round: `source_modules` may import from the package `within` only its
    subpackages `allowed_parts`; every other child of `within` (and any added later) is forbidden."""

    type_name = "only_parts"

    within = fields.StringField()
    allowed_parts = fields.ListField(subfield=fields.StringField())
    forbidden_modules = fields.SetField(subfield=fields.ModuleExpressionField(), required=False)

    def check(self, graph, verbose):
        allowed = set(self.allowed_parts)
        missing = sorted(a for a in allowed if a not in graph.modules)
        if missing:
            raise ValueError(f"only_parts: no such package {missing}")
        self.forbidden_modules = {fields.ModuleExpressionField().parse(child)
                                  for child in sorted(graph.find_children(self.within)) if child not in allowed}
        return super().check(graph, verbose)
