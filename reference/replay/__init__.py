"""Index-based offline replay (spec/004 §3): a stored stream in blocks with lightweight and secondary
indexes, replay intervals, index selection, and index-based windowed aggregation."""
