"""Figures drawn from the results tables."""
