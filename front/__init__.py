"""The front end shared by every engine: the query languages' parsers, ASTs and printers, their compilers to
automata and plans (NFA^b, Glushkov, the lazy order, the pattern model), binding and the evaluation of SASE
expressions, and the query and stream models of the AFA, TPStream and window languages. It matches nothing:
the engines (cepkit.reference, cepkit.optimized, cepkit.gpu, cepkit.spark_jobs) build on it."""
