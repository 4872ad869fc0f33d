"""Labelled evaluation: STS pairs, story ids, gold pair files, metrics."""
