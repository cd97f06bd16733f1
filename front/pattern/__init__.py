"""The pattern model: a query's alternatives, order pairs and WHERE clauses placed as NFA^b places them."""
