"""TPStream's front end: the parser, the query model, Allen relations, their detection times, the pattern
order and the reading of situation values."""
