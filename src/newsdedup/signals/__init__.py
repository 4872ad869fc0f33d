"""Pair signals beyond the surface string: hosts, dates, entities, the detector."""
