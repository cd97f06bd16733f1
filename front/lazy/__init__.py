"""The lazy NFAs' front end: the `order` option (parsing, names, rarest-first order)."""
