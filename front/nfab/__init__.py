"""The NFA^b compiler (SIGMOD'08 §4): a SASE+ query to its automaton."""
