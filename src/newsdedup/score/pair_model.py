"""A pair model: the probability that two items report one event, from several signals.

A character score finds copies; a rewrite by another outlet shares few character n-grams
and many meanings, and a template ("<X LTD> YEAR NET", "[오늘의 운세] 7월 27일") shares
many characters and no event. No single score separates both, so the model reads each
candidate pair's signals together (:data:`PAIR_FEATURES`):

* ``jaccard``: the character n-gram Jaccard of title and summary (the calibrated score);
* ``cosine``: the sentence-embedding cosine of title and summary (what words mean);
* ``log_gap_hours``: ``log(1 + hours between the two dates)``; 0 when a date is unknown,
  with ``gap_unknown`` saying so (rewrites arrive within hours, a column returns daily);
* ``same_source``: both items from one outlet (an outlet rarely rewrites itself);
* ``length_ratio``: the shorter title's length over the longer's (a flash and its story);
* ``numbers_differ``: both titles carry numbers and not the same ones (another day, another
  amount, another quarter under one template);
* ``same_lead``: the same subject key (the subject gate's leading token);
* ``same_series``: both written in the template of one recurring series, of their
  source or another (:attr:`newsdedup.text.series.Series.templates`).

The model is a logistic regression, fitted in two steps from a labelled sheet:

1. **Discrimination**, unweighted, with an L2 penalty of 1 on standardized features
   (fixed, not tuned: a few hundred labels cannot choose it). The sheet over-draws the
   pairs near the threshold, where both answers occur, which is what separates them.
2. **Calibration to the population**: the sheet is a stratified sample, so its mix of
   same and different is not the population's. A two-parameter recalibration
   (``a + b * logit``) is fitted with each labelled pair weighted by the inverse of its
   inclusion probability, so that the probabilities hold over *all* candidate pairs. A
   fully weighted fit was tried first: the few pairs from the large low-score strata
   then carry most of the weight, the penalty dominates, and on the Reuters feed no
   probability rose above 0.2.

The model is stored as plain parameters in JSON (:meth:`PairModel.record`; no pickle):
feature names, centre and scale, coefficients, intercept, the recalibration, and what it
was fitted on; :meth:`PairModel.from_record` checks every field and names what is wrong.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.score.embed import Quantized, cosine_pairs

__all__ = ["PAIR_FEATURES", "ItemSignals", "PairModel", "PairModelError", "pair_features",
           "number_codes"]

PAIR_FEATURES: tuple[str, ...] = (
    "jaccard", "cosine", "log_gap_hours", "gap_unknown", "same_source", "length_ratio",
    "numbers_differ", "same_lead", "same_series")
"""The features of a candidate pair, in the order of :func:`pair_features`' columns."""

PENALTY = 1.0
"""L2 penalty of the discriminating fit on standardized features (not tuned, see above)."""

_NUMBER = re.compile(r"\d+")


class PairModelError(ValueError):
    """A pair-model record that cannot be used (the message names the file and the field)."""


def number_codes(titles: Sequence[str]) -> np.ndarray:
    """Equal codes for titles carrying the same set of numbers; -1 for a title with none.

    Examples:
        >>> number_codes(["7월 27일 운세", "7월 28일 운세", "27일 7월", "운세"]).tolist()
        [0, 1, 0, -1]
    """
    sets = [" ".join(sorted(set(_NUMBER.findall(t)))) for t in titles]
    codes, _ = pd.factorize(pd.Series(sets, dtype=object).replace("", None))
    return codes.astype(np.int64)


@dataclass(frozen=True)
class ItemSignals:
    """What the features read per item (rows of the corpus, in its order).

    Attributes:
        vectors: L2-normalized sentence embeddings, one row per item.
        times: Publication time in seconds (unknown: ``-inf``, as the keep rules read
            dates, or NaN).
        sources: Source code per item (-1: unknown; equal codes, one outlet).
        lengths: Title length in characters.
        numbers: :func:`number_codes` of the titles.
        leads: Subject key code per item (the gate's leading token).
        series: ``(items, templates)`` 0/1 matrix of the series' templates
            (:attr:`~newsdedup.text.series.Series.templates`), or None (no series learned).
    """

    vectors: np.ndarray | Quantized
    times: np.ndarray
    sources: np.ndarray
    lengths: np.ndarray
    numbers: np.ndarray
    leads: np.ndarray
    series: sp.csr_matrix | None = None


def pair_features(signals: ItemSignals, i: np.ndarray, j: np.ndarray, jaccard: np.ndarray
                  ) -> np.ndarray:
    """The features of the pairs ``(i[p], j[p])``: one row per pair, columns :data:`PAIR_FEATURES`.

    Vectorized over the pairs; memory is a few arrays of the pairs' length.

    Args:
        signals: The items' signals.
        i: First item of each pair.
        j: Second item of each pair.
        jaccard: The pairs' character Jaccard (the calibrated score).

    Returns:
        ``float64`` array ``(pairs, len(PAIR_FEATURES))``.
    """
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    t_i, t_j = signals.times[i], signals.times[j]
    # Only pairs dated on both sides have a gap: -inf minus -inf would be NaN with a warning.
    known = np.isfinite(t_i) & np.isfinite(t_j)
    gap = np.zeros(len(i))
    gap[known] = np.abs(t_i[known] - t_j[known]) / 3600.0
    src_i, src_j = signals.sources[i], signals.sources[j]
    len_i, len_j = signals.lengths[i].astype(np.float64), signals.lengths[j].astype(np.float64)
    num_i, num_j = signals.numbers[i], signals.numbers[j]
    if signals.series is not None and signals.series.shape[1]:
        shared = signals.series[i].multiply(signals.series[j]).sum(axis=1)
        same_series = np.asarray(shared).ravel() > 0
    else:
        same_series = np.zeros(len(i), dtype=bool)
    columns = {
        "jaccard": np.asarray(jaccard, dtype=np.float64),
        "cosine": cosine_pairs(signals.vectors, i, j),
        "log_gap_hours": np.log1p(gap),  # 0.0 where unknown
        "gap_unknown": ~known,
        "same_source": (src_i == src_j) & (src_i >= 0),
        "length_ratio": np.minimum(len_i, len_j) / np.maximum(np.maximum(len_i, len_j), 1.0),
        "numbers_differ": (num_i >= 0) & (num_j >= 0) & (num_i != num_j),
        "same_lead": signals.leads[i] == signals.leads[j],
        "same_series": same_series,
    }
    return np.column_stack([np.asarray(columns[f], dtype=np.float64) for f in PAIR_FEATURES])


def _logistic(features: np.ndarray, y: np.ndarray, weights: np.ndarray, penalty: float
              ) -> np.ndarray:
    """Intercept and coefficients of an L2-penalized weighted logistic regression (L-BFGS)."""
    # Imported here: scipy.optimize loads scipy.linalg, which a command that never fits a
    # model should not pay for (tests/e2e/test_block_commands.py).
    from scipy.optimize import minimize

    design = np.column_stack([np.ones(len(features)), features])
    mask = np.r_[0.0, np.ones(features.shape[1])]  # the intercept is not penalized

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ beta
        prob = 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow
        value = -np.sum(weights * (y * z - np.logaddexp(0.0, z))) + 0.5 * penalty * np.sum(
            mask * beta * beta)
        grad = -(design.T @ (weights * (y - prob))) + penalty * mask * beta
        return float(value), grad

    fit = minimize(loss, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": 1000, "gtol": 1e-9})
    return np.asarray(fit.x, dtype=np.float64)


@dataclass(frozen=True)
class PairModel:
    """A fitted pair model: ``P(same event) = sigmoid(a + b * (intercept + coef . z))``.

    ``z`` is the features standardized by ``centre`` and ``scale``; ``a`` and ``b`` are the
    recalibration to the population (module docstring).

    Attributes:
        features: Feature names, :data:`PAIR_FEATURES` when fitted here.
        centre: Per feature, the mean over the fitted pairs.
        scale: Per feature, the standard deviation (1 where it is 0).
        intercept: Of the discriminating fit.
        coef: Per feature, of the discriminating fit.
        calibration: ``(a, b)``.
        fitted_on: What the model was fitted on, in words (labelled pairs, same, sheet).
    """

    features: tuple[str, ...]
    centre: tuple[float, ...]
    scale: tuple[float, ...]
    intercept: float
    coef: tuple[float, ...]
    calibration: tuple[float, float]
    fitted_on: str = ""

    @classmethod
    def fit(cls, features: np.ndarray, same: np.ndarray, inclusion: np.ndarray,
            fitted_on: str = "", penalty: float = PENALTY) -> PairModel:
        """Fit the model to labelled pairs (module docstring: the two steps).

        Args:
            features: :func:`pair_features` of the labelled pairs.
            same: Whether each reports one event.
            inclusion: Each pair's inclusion probability in the sample (in ``(0, 1]``).
            fitted_on: What they are, in words (kept in the record).
            penalty: L2 penalty of the discriminating fit.

        Returns:
            The model.

        Raises:
            ValueError: Fewer than two labels of either answer, or a bad inclusion.

        Examples:
            >>> rng = np.random.default_rng(0)
            >>> x = rng.uniform(0, 1, (200, len(PAIR_FEATURES)))
            >>> y = x[:, 0] + 0.2 * rng.normal(size=200) > 0.5
            >>> model = PairModel.fit(x, y, np.full(200, 0.5))
            >>> p = model.probability(x)
            >>> bool(p[y].mean() > 0.7 > 0.3 > p[~y].mean())
            True
        """
        x = np.asarray(features, dtype=np.float64)
        y = np.asarray(same, dtype=bool)
        pi = np.asarray(inclusion, dtype=np.float64)
        if min(int(y.sum()), int((~y).sum())) < 2:
            raise ValueError(f"a pair model needs at least two labels of each answer, got "
                             f"{int(y.sum())} same and {int((~y).sum())} different")
        if not (np.all(np.isfinite(pi)) and np.all((pi > 0) & (pi <= 1))):
            raise ValueError("inclusion probabilities must lie in (0, 1]")
        centre = x.mean(axis=0)
        scale = x.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        beta = _logistic((x - centre) / scale, y.astype(np.float64), np.ones(len(y)), penalty)
        logit = beta[0] + ((x - centre) / scale) @ beta[1:]
        weight = 1.0 / pi
        ab = _logistic(logit[:, None], y.astype(np.float64), weight / weight.mean(), 0.0)
        return cls(tuple(PAIR_FEATURES) if x.shape[1] == len(PAIR_FEATURES) else
                   tuple(f"x{k}" for k in range(x.shape[1])),
                   tuple(centre.tolist()), tuple(scale.tolist()), float(beta[0]),
                   tuple(beta[1:].tolist()), (float(ab[0]), float(ab[1])), fitted_on)

    def logit(self, features: np.ndarray) -> np.ndarray:
        """The calibrated log-odds of each pair."""
        z = (np.asarray(features, dtype=np.float64) - np.asarray(self.centre)) / np.asarray(
            self.scale)
        a, b = self.calibration
        return a + b * (self.intercept + z @ np.asarray(self.coef))

    def probability(self, features: np.ndarray) -> np.ndarray:
        """``P(same event)`` of each pair (rows of :func:`pair_features`)."""
        return 0.5 * (1.0 + np.tanh(0.5 * self.logit(features)))

    def record(self) -> dict:
        """The model as plain JSON values (what :meth:`from_record` reads back).

        Examples:
            >>> m = PairModel(("jaccard",), (0.2,), (0.1,), -1.0, (2.0,), (0.0, 1.0), "test")
            >>> PairModel.from_record(m.record(), "m.json") == m
            True
        """
        return {"kind": "logistic", "features": list(self.features),
                "centre": list(self.centre), "scale": list(self.scale),
                "intercept": self.intercept, "coef": list(self.coef),
                "calibration": {"a": self.calibration[0], "b": self.calibration[1]},
                "fitted_on": self.fitted_on}

    @classmethod
    def from_record(cls, data: Mapping, where: str) -> PairModel:
        """A model from :meth:`record`'s values; a fault raises one line naming ``where``.

        Examples:
            >>> PairModel.from_record({"kind": "logistic"}, "cal.json: pair_model")
            Traceback (most recent call last):
            ...
            newsdedup.score.pair_model.PairModelError: cal.json: pair_model: 'features' is missing
        """
        if not isinstance(data, Mapping):
            raise PairModelError(f"{where}: expected an object, found {type(data).__name__}")
        if data.get("kind") != "logistic":
            raise PairModelError(f"{where}: 'kind' must be 'logistic', got {data.get('kind')!r}")
        for key in ("features", "centre", "scale", "intercept", "coef", "calibration"):
            if key not in data:
                raise PairModelError(f"{where}: {key!r} is missing")
        features = data["features"]
        if (not isinstance(features, list) or not features
                or not all(isinstance(f, str) for f in features)):
            raise PairModelError(f"{where}: 'features' must be a list of feature names")
        unknown = [f for f in features if f not in PAIR_FEATURES]
        if unknown:
            raise PairModelError(f"{where}: unknown feature(s) {unknown}; known: "
                                 f"{list(PAIR_FEATURES)}")

        def numbers(key: str) -> tuple[float, ...]:
            value = data[key]
            if (not isinstance(value, list) or len(value) != len(features)
                    or not all(_finite(v) for v in value)):
                raise PairModelError(f"{where}: {key!r} must be {len(features)} finite numbers")
            return tuple(float(v) for v in value)

        centre, scale, coef = numbers("centre"), numbers("scale"), numbers("coef")
        if any(s <= 0 for s in scale):
            raise PairModelError(f"{where}: 'scale' must be positive")
        cal = data["calibration"]
        if not (isinstance(cal, Mapping) and _finite(cal.get("a")) and _finite(cal.get("b"))):
            raise PairModelError(f"{where}: 'calibration' must be {{\"a\": number, \"b\": "
                                 "number}")
        if not _finite(data["intercept"]):
            raise PairModelError(f"{where}: 'intercept' must be a finite number")
        return cls(tuple(features), centre, scale, float(data["intercept"]), coef,
                   (float(cal["a"]), float(cal["b"])), str(data.get("fitted_on", "")))

    def columns(self, features: np.ndarray) -> np.ndarray:
        """The columns of a :func:`pair_features` array this model reads, in its order."""
        return np.asarray(features)[:, [PAIR_FEATURES.index(f) for f in self.features]]


def _finite(value: object) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value))
