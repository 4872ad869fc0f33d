"""Step 5: the calibration of a dedupe on one corpus, and the labeling loop that feeds it.

``newsdedup calibrate`` learns the corpus's recurring series and date window,
sweeps the calibrated dedupe over a grid of thresholds, and recommends one
from the best evidence there is (labels, then matched decoys, then the
published bound), saying what every figure is over; it also draws the next
pairs to label. One module per concept:

* :mod:`~newsdedup.calibration.defaults`: its default settings (light: the parser shows them);
* :mod:`~newsdedup.calibration.population`: the candidate pairs and their strata;
* :mod:`~newsdedup.calibration.design`: which pairs to label next (the sampling design);
* :mod:`~newsdedup.calibration.sheet`: the labeling sheet;
* :mod:`~newsdedup.calibration.estimate`: precision and recall from labelled pairs;
* :mod:`~newsdedup.calibration.stories`: labels for every pair from a story column;
* :mod:`~newsdedup.calibration.decoys`: matched decoys and their check;
* :mod:`~newsdedup.calibration.choice`: the order of evidence and the recommendation;
* :mod:`~newsdedup.calibration.sweep_pairs`: every scorer's pairs above the sweep's lowest
  threshold, without ``N x N``; :mod:`~newsdedup.calibration.sweep_floor`: that lowest
  threshold, chosen so the pair list stays proportional to ``N``;
* :mod:`~newsdedup.calibration.evidence`: the orchestrator;
* :mod:`~newsdedup.calibration.file`: reading `calibration.json` back (every fault one line);
* :mod:`~newsdedup.calibration.label`: labeling a sheet at the terminal;
* :mod:`~newsdedup.calibration.report`: the calibration's one report;
* :mod:`~newsdedup.calibration.doors`: a second candidate door (embedding neighbours) beside
  the character population, its own labelled sample, and what each door alone misses;
* :mod:`~newsdedup.calibration.simulate`: planted corpora and the coverage of the intervals.
"""
