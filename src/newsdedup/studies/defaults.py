"""Default settings of the published measurement, light enough for the command line's parser.

The parser of ``newsdedup`` shows these defaults in ``--help`` and must not
import numpy, pandas or scipy to do so (a command imports only the run module
it calls). Each constant is defined here once; the study modules that use it
(:mod:`newsdedup.studies.measure`, :mod:`newsdedup.studies.measure_errors`)
import it from here. The calibration's are in :mod:`newsdedup.calibration.defaults`.
"""

from __future__ import annotations

PUBLISHED_THRESHOLDS: tuple[float, ...] = (0.7, 0.5, 0.4, 0.3, 0.2)
"""Thresholds of the published block-1 table."""

ERROR_PERMS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024)
"""Permutation counts of the MinHash error-versus-k study."""

PAIR_BUDGET = 120.0
"""Most seconds ``measure``'s exact pass over every pair may be estimated at; within it the
cost model takes that pass only while it is about as cheap as sampling
(:mod:`newsdedup.studies.cost`)."""

SAMPLE_PAIRS = 500_000
"""Pairs of the uniform pair sample of ``measure``'s sampled path, per n-gram size."""
