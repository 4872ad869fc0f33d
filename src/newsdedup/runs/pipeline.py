"""``newsdedup run``: every step of one corpus, in order (``make reproduce``).

:func:`run_all` measures, calibrates and runs the cross-host analysis, then
dedupes with the calibrated threshold. Each step is its own run module:
:mod:`newsdedup.runs.measure`, :mod:`~newsdedup.runs.calibrate`,
:mod:`~newsdedup.runs.crosshost`, :mod:`~newsdedup.runs.dedupe`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.runs.calibrate import CalibrateOptions, run_calibrate

# Notebook 04 calls ``pipeline.recalibrate`` (``from newsdedup.runs import pipeline``);
# the function lives in newsdedup.runs.calibrate.
from newsdedup.runs.calibrate import recalibrate as recalibrate
from newsdedup.runs.commit import commits
from newsdedup.runs.crosshost import CrossHostOptions, run_crosshost
from newsdedup.runs.dedupe import DEDUPE_SWEEP, run_dedupe
from newsdedup.runs.files import Progress, quiet
from newsdedup.runs.measure import run_measure_step
from newsdedup.studies.measure import MeasureConfig


@commits("run", manifest=True)
def run_all(corpus, name: str, out: Path, measure: MeasureConfig | None = None,
            calibrate_options: CalibrateOptions | None = None,
            crosshost_options: CrossHostOptions | None = None,
            progress: Progress = quiet, echo: bool = True) -> None:
    """Measure, calibrate and cross-host, then dedupe with the calibrated threshold.

    The dedupe step is skipped (and says why) when calibration found no
    threshold band: a threshold is never invented.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root; everything goes under ``<out>/<name>/``.
        measure: Settings of the measure step.
        calibrate_options: Settings of the calibrate step.
        crosshost_options: Settings of the cross-host step.
        progress: Progress callback.
        echo: Print each step's tables.
    """
    run_measure_step(corpus, name, out, measure, progress, echo)
    cal = run_calibrate(corpus, name, out, calibrate_options, progress, echo)
    run_crosshost(corpus, name, out, crosshost_options, progress, echo)
    if cal.recommended is None:
        progress("dedupe: skipped, the calibration recommends no threshold (see calibration.json)")
        return
    config = DedupeConfig.from_calibration(out / name / "calibration.json")
    # Recorded relative to the results root, so the written files do not depend on
    # where the checkout (or a test's temporary folder) lives.
    config = replace(config, threshold_source=f"{name}/calibration.json")
    run_dedupe(corpus, name, out, config, progress, echo, sweep=DEDUPE_SWEEP)
