"""Figures drawn from the results tables."""

KINDS = ("corpus", "eval", "signals")
"""The figure kinds :func:`newsdedup.plots.write.write_all` knows, in the order it writes them
(here, not in that module, so the command line's parser names them without matplotlib)."""
