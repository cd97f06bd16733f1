"""TPStream (spec/004 §5): situations derived from point events, Allen-relation patterns, early output."""
