"""AFA: augmented finite automata over disordered streams (Chandramouli, Goldstein, Maier, VLDB 2010).

Modules: `model` (the automaton), `stream` (events and stream elements), `expr` (fences and transfers
in the expression language), `afafile` (the YAML/JSON file format), `operator` (the speculative
operator, spec/003 §5), `oracle` (the brute-force Definition 2), `seqop` (AFA+O), `cleanse`
(Cleanse(σ)), `driver` (the flavors and the net input), `eventfile` (event files with insertions,
retractions, punctuations and arc events).
"""
