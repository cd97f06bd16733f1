"""Windowed operators of spec/004 §2.3-2.6: count and time windows, filter, windowed aggregation
(naive and with the slide-by-slide aggregate tree of §3.3), and the windowed join."""
from reference.windows.aggregate import AggRow, aggregate
from reference.windows.filter import filter_events
from reference.windows.join import JoinRow, join
from reference.windows.spec import Window, WindowSpec, windows

__all__ = ["WindowSpec", "Window", "windows", "filter_events", "aggregate", "AggRow", "join", "JoinRow"]
