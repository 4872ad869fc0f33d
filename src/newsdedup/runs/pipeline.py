"""``newsdedup run``: every step of one corpus, in order (``make reproduce``).

:func:`run_all` measures, calibrates and runs the cross-host analysis, then
dedupes with the calibrated threshold, and writes the report of the run
last. Each step is its own run module: :mod:`newsdedup.runs.measure`,
:mod:`~newsdedup.runs.calibrate`, :mod:`~newsdedup.runs.crosshost`,
:mod:`~newsdedup.runs.dedupe`, :mod:`~newsdedup.runs.report`.
"""

from __future__ import annotations

import gc
import resource
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.cluster.modelled import read_model_spec
from newsdedup.paths import RESULTS_DIR
from newsdedup.runs.calibrate import CalibrateConfig, named_sheets, run_calibrate, sheet_check

# Notebook 04 calls ``pipeline.recalibrate`` (``from newsdedup.runs import pipeline``);
# the function lives in newsdedup.runs.calibrate.
from newsdedup.runs.calibrate import recalibrate as recalibrate
from newsdedup.runs.commit import commits
from newsdedup.runs.crosshost import CrossHostConfig, run_crosshost
from newsdedup.runs.dedupe import DEDUPE_SWEEP, run_dedupe, run_model_dedupe
from newsdedup.runs.files import Progress, quiet, write_json
from newsdedup.runs.measure import run_measure_step
from newsdedup.runs.report import write_report
from newsdedup.studies.measure import MeasureConfig


class StepClock:
    """Wall time, peak memory and item counts of each step of a run.

    ``with clock("measure"): ...`` times a step and tells ``progress`` its
    seconds and the process's peak RSS so far; :meth:`account` records how
    many items a step's outputs hold, and :meth:`check` raises if any step
    lost or invented an item.
    """

    def __init__(self, progress: Progress = quiet, path: Path | None = None,
                 n_items: int = 0) -> None:
        """A clock telling ``progress`` each step's time, and ``path`` the record after each step.

        The record is staged with the run's other files (a failed run
        discards it); the progress lines carry each finished step's time.
        """
        self._progress = progress
        self._path, self._n_items = path, n_items
        self.steps: dict[str, dict] = {}
        self._counts: dict[str, list[int]] = {}

    @contextmanager
    def __call__(self, step: str) -> Iterator[None]:
        """Time ``step``."""
        start = time.perf_counter()
        yield
        gc.collect()  # a step's arrays go before the next one starts
        self.steps.setdefault(step, {}).update(seconds=round(time.perf_counter() - start, 3),
                                               peak_rss_mb=round(peak_rss_mb(), 1))
        self._progress(f"run: {step} took {self.steps[step]['seconds']:,.1f} s "
                       f"(peak RSS so far {self.steps[step]['peak_rss_mb']:,.0f} MB)")
        if self._path is not None:
            write_json(self.record(self._n_items), self._path)

    def note(self, step: str, **fields) -> None:
        """Record extra fields of a step (e.g. the measure's path)."""
        self.steps.setdefault(step, {}).update(fields)

    def account(self, step: str, counts: list[int]) -> None:
        """Record the item counts a step's outputs report."""
        self._counts[step] = [int(c) for c in counts]

    def check(self, n_items: int) -> None:
        """Every counted output holds every item.

        Raises:
            RuntimeError: A step's output holds another number of items.
        """
        for step, counts in self._counts.items():
            if any(c != n_items for c in counts):
                raise RuntimeError(f"{step}: outputs hold {counts} items, the corpus {n_items}")

    def record(self, n_items: int) -> dict:
        """What ``timings.json`` holds (wall times: never reproducible, git-ignored)."""
        return {"items": n_items, "steps": self.steps, "items_in_outputs": self._counts}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MB (Linux ``ru_maxrss`` is in KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@commits("run", manifest=True, before=sheet_check, named=named_sheets)
def run_all(corpus, name: str, out: Path, measure: MeasureConfig | None = None,
            calibrate_options: CalibrateConfig | None = None,
            crosshost_options: CrossHostConfig | None = None,
            progress: Progress = quiet, echo: bool = True,
            shown_root: Path | None = None, rerun: Sequence[str] | None = None) -> None:
    """Measure, calibrate and cross-host, dedupe with the calibrated threshold, then report.

    The report (``<name>/report/``, :func:`newsdedup.runs.report.write_report`)
    is written last, from the files the steps wrote. The dedupe step is skipped
    (and says why) when calibration found no threshold band: a threshold is
    never invented; when the calibration fitted a pair model and recommends a
    cut (``--model``), the model dedupes, as ``dedupe --calibration`` does.
    Each step's wall time and the peak RSS go to the console and to
    ``<out>/<name>/timings.json`` (git-ignored), with the number of items each
    step's outputs hold; a step whose outputs lose or invent an item stops the run
    (:class:`StepClock`).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root; everything goes under ``<out>/<name>/``.
        measure: Settings of the measure step.
        calibrate_options: Settings of the calibrate step.
        crosshost_options: Settings of the cross-host step.
        progress: Progress callback.
        echo: Print each step's tables.
        shown_root: The results root the next step names (``calibration.json``'s
            labeling sheet); the default results root when None, so a run into a
            temporary folder writes the ``calibration.json`` that ``newsdedup run``
            writes (:func:`~newsdedup.runs.calibrate.shown_path`).
        rerun: The command as run: the calibration's next step repeats it with
            ``--labels`` (None: it names ``newsdedup calibrate FILE``).
    """
    with _long_lived_frozen():
        _run_steps(corpus, name, out, measure, calibrate_options, crosshost_options,
                   progress, echo, shown_root, rerun)


@contextmanager
def _long_lived_frozen() -> Iterator[None]:
    """Leave what exists before the steps (modules, the corpus) out of the collections between them.

    :class:`StepClock` collects after each step so that its arrays go before the
    next one starts; each collection otherwise walks every object the imports
    made (pandas, matplotlib, scipy: about 0.05-0.08 s each time, a few percent
    of a 1,000-item run). Those live to the end anyway, and are handed back to
    the collector when the run ends.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_steps(corpus, name: str, out: Path, measure: MeasureConfig | None,
               calibrate_options: CalibrateConfig | None,
               crosshost_options: CrossHostConfig | None, progress: Progress, echo: bool,
               shown_root: Path | None, rerun: Sequence[str] | None) -> None:
    """The steps of :func:`run_all`, in order (its arguments)."""
    clock = StepClock(progress, out / name / "timings.json", len(corpus.items))
    with clock("measure"):
        report = run_measure_step(corpus, name, out, measure, progress, echo)
        clock.account("measure", report.summary()["items"].tolist())
        clock.note("measure", path=report.scale.get("path", "dense"))
        del report  # its shingle matrices and pair lists are not needed past this step
    with clock("calibrate"):
        cal = run_calibrate(corpus, name, out, calibrate_options, progress, echo,
                            rerun=rerun,
                            shown_root=RESULTS_DIR if shown_root is None else shown_root)
    with clock("crosshost"):
        rep = run_crosshost(corpus, name, out, crosshost_options, progress, echo)
        clock.account("crosshost", [int(rep.hosts["count"].sum()), rep.n_items])
    spec = read_model_spec(out / name / "calibration.json")
    if spec is not None and spec.cut is not None:  # as `dedupe --calibration` does
        # Named relative to the results root, as the threshold's source is below.
        spec = replace(spec, source=f"{name}/calibration.json")
        model = calibrate_options.model if calibrate_options is not None else None
        cache = (None if model is None or model.cache_root is None
                 else Path(model.cache_root) / name)
        with clock("dedupe"):
            result = run_model_dedupe(corpus, name, out, spec, cache, progress, echo)
            clock.account("dedupe", [len(result.items)])
        del result
    elif cal.recommended is None:
        progress("dedupe: skipped, the calibration recommends no threshold (see calibration.json)")
    else:
        config = DedupeConfig.from_calibration(out / name / "calibration.json")
        # Recorded relative to the results root, so the written files do not depend on
        # where the checkout (or a test's temporary folder) lives.
        config = replace(config, threshold_source=f"{name}/calibration.json")
        with clock("dedupe"):
            result = run_dedupe(corpus, name, out, config, progress, echo, sweep=DEDUPE_SWEEP)
            clock.account("dedupe", [len(result.items)])
        del result
    clock.check(len(corpus.items))
    with clock("report"):
        write_report(corpus, name, out, progress=progress)
