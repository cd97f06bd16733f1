"""The AFA's front end: the automaton model, stream elements, expressions (fences, transfers), the AFA file
format, event files and the change records of its output."""
