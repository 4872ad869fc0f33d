"""Default settings of the calibration, light enough for the command line's parser.

The parser of ``newsdedup`` shows these defaults in ``--help`` and must not
import numpy, pandas or scipy to do so (a command imports only the run module
it calls). Each constant is defined here once; the calibration modules that use
it (:mod:`newsdedup.calibration.evidence`, :mod:`newsdedup.calibration.sweep_floor`,
:mod:`newsdedup.runs.calibrate`) import it from here.
"""

from __future__ import annotations

SIMULATION_ITEMS = 5000
"""Items simulated at most: 5,000 x 7 levels x 20 trials is 700k simulated pairs, plenty for
the shares and percentiles the tables report, and a few seconds of work."""

DEFAULT_DECOY_DAYS = 7.0
"""Pairs published at least this many days apart are decoys.

Coverage of a news event decays within days: wire copies and rewrites
follow within hours, and the cross-host study of this project looks for
cross-posts within a 3-day window. A week is more than twice that window, so
the re-coverage that still exists (a follow-up, a court date) is rare among
pairs a week apart and mostly has new headlines; shorter gaps would let
two-day-old rewrites pass for decoys and inflate the false-merge estimate.
"""

DEFAULT_PRECISION = 0.90
"""Target precision of the recommended threshold: the low end of its 95% interval reaches it.

Nine merges in ten right, with confidence: a dedupe that removes one real article
for every nine duplicates is one a feed can run unattended; higher targets need far
more labels to show (the low end of an interval on a few hundred labels rarely
clears 0.95), and ``--precision`` sets another."""

FIRST_BATCH = 100
"""Pairs of the labeling loop's first batch (a hundred labels, an hour of reading)."""

NEXT_BATCH = 50
"""Pairs of every later batch of the loop."""

HOLDOUT_BATCH = 0
"""Batch number of a hold-out sheet (``--holdout``, ``--model-holdout``; the loop's batches
count from 1)."""

SWEEP_PAIRS_PER_ITEM = 50
"""Pairs per item the sweep may list: 50 x 24 bytes per pair (two int64 ids and a float64
score) is 1.2 KB per item and scorer, 120 MB at 100k items. Korean headlines at the
requested 0.05 hold about 41 per item at 100k (so their sweep is unchanged), English ones
about 350. A cost budget, not a property of any corpus: ``newsdedup calibrate
--sweep-pairs-per-item`` raises it on a machine with memory and time to spare (the sweep then
starts lower) or lowers it on a small one."""
