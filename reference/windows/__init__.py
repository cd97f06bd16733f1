"""Windowed operators of spec/004 §2.3-2.6: count and time windows, filter, windowed aggregation
(naive and with the slide-by-slide aggregate tree of §3.3), and the windowed join."""
from cepkit.reference.windows.aggregate import AggRow, aggregate
from cepkit.reference.windows.filter import filter_events
from cepkit.reference.windows.join import JoinRow, join
from cepkit.front.windows.spec import Window, WindowSpec, windows

__all__ = ["WindowSpec", "Window", "windows", "filter_events", "aggregate", "AggRow", "join", "JoinRow"]
