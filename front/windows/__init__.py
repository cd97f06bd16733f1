"""The window language's front end: window specifications and the query model."""
