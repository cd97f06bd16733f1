"""SASE 1.0's synthetic streams, rebuilt exactly: java.util.Random and the stock stream generator."""
