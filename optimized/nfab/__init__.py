"""The optimized SASE+ engine's NFA^b (issue 7), split as Flink CEP splits NFACompiler / NFA / SharedBuffer.

Modules: layout (the record layouts: run rows, query scalars, buffer nodes), compiler (edge formulas ->
packed tables), formulas (the tables' evaluator `holds`), rows (run rows and the window), buffer (the shared
match buffer: nodes, compaction, materialization), matches (ordering and gathering matches as columns),
merging (merging of equivalent runs), runindex (runs grouped by partition key), runtime (the per-event run
loop), generated (a per-query module of generated formulas and the run loop), program (
OptimizedProgram: feed, close, the match table). optimized/engine.py compiles a query to it.
"""
