"""Which evidence recommends the threshold, and what the calibration says about it.

The evidence is taken in one order, and the method that chose is the one the
file and the console name:

1. **labels**: a story column (every pair labelled) or a labelled sheet from
   the loop (a probability sample). Measured, so nothing else is read when
   they are there: when no threshold reaches the target on them, the
   calibration *declines* and says what the labels show, instead of falling
   back to an estimate the labels contradict.
2. **decoys**: without labels, matched decoys
   (:mod:`newsdedup.calibration.decoys`) that pass their check.
3. **bound**: the published unrelated-pair bound, which holds only for a
   corpus without duplicates.
4. otherwise the calibration **declines**, with the reason and the command
   that labels the pairs it drew.

The recommended threshold is the lowest of the grid whose precision interval
lies at or above the target (its low end), so the stated precision holds
with the interval's confidence. Every figure says what it is over
(``basis``): labelled pairs, a story column, decoy pairs. The simulated
recall of rewritten copies is a different quantity, never called recall
without its qualifier.
"""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["Choice", "from_labels", "interval", "with_holdout", "without_labels"]

Choice = dict
"""``{"method", "threshold", "target", "precision", "recall", "note", "next",
"more_labels"}``: ``precision`` and ``recall`` as :func:`interval` gives them;
``note`` why, in words; ``next`` the command to run next (filled in by the
orchestrator, which knows the sheet), or None; ``more_labels`` whether labels
can change the choice. With a labelled hold-out (:func:`with_holdout`) also
``loop_precision``, ``loop_recall`` (the loop's own estimates) and
``holdout_confirms``."""


def interval(row: pd.Series | None, prefix: str, basis: str) -> dict:
    """``{"value", "low", "high", "basis"}`` from ``prefix``, ``prefix_low``, ``prefix_high``.

    Examples:
        >>> r = pd.Series({"p": 0.9, "p_low": 0.8, "p_high": float("nan")})
        >>> interval(r, "p", "labels")
        {'value': 0.9, 'low': 0.8, 'high': None, 'basis': 'labels'}
    """
    def plain(x) -> float | None:
        return None if x is None or not math.isfinite(float(x)) else float(x)

    if row is None:
        return {"value": None, "low": None, "high": None, "basis": basis}
    return {"value": plain(row[prefix]), "low": plain(row[f"{prefix}_low"]),
            "high": plain(row[f"{prefix}_high"]), "basis": basis}


def _lowest(curve: pd.DataFrame, column: str, target: float) -> pd.Series | None:
    ok = curve[(curve["merged_pairs"] > 0) & (curve[column] >= target)]
    return ok.sort_values("threshold").iloc[0] if len(ok) else None


def _best(curve: pd.DataFrame, column: str) -> pd.Series | None:
    ok = curve[(curve["merged_pairs"] > 0) & curve[column].notna()]
    if not len(ok):
        return None
    return ok.sort_values([column, "threshold"], ascending=[False, True]).iloc[0]


def _fmt(x: dict) -> str:
    if x["value"] is None:
        return "n/a"
    lo = "?" if x["low"] is None else f"{x['low']:.3f}"
    hi = "?" if x["high"] is None else f"{x['high']:.3f}"
    return f"{x['value']:.3f} [{lo}, {hi}]"


def from_labels(curve: pd.DataFrame, target: float, basis: str) -> Choice:
    """The choice when labels are there: the lowest threshold they show reaching the target.

    Args:
        curve: Per threshold: ``merged_pairs``, ``precision_measured`` (and
            ``_low``, ``_high``), ``recall_measured`` (and ``_low``, ``_high``).
        target: Target precision.
        basis: What the labels are, in words.

    Returns:
        The :class:`Choice` (method ``"labels"``, or ``"declined"``); its
        ``more_labels`` says whether labelling more pairs can change it.
    """
    row = _lowest(curve, "precision_measured_low", target)
    if row is not None:
        t = float(row["threshold"])
        return {"method": "labels", "threshold": t, "target": target,
                "precision": interval(row, "precision_measured", basis),
                "recall": interval(row, "recall_measured", basis),
                "note": f"Measured on {basis}: {t:.2f} is the lowest threshold whose merges' "
                        f"precision interval lies at or above {target:.2f}.",
                "next": None, "more_labels": True}
    best = _best(curve, "precision_measured")
    shown = (f" The best is {float(best['threshold']):.2f}: precision "
             f"{_fmt(interval(best, 'precision_measured', basis))}." if best is not None else "")
    reachable = best is not None and (best["precision_measured_high"] >= target)
    if reachable:
        why = (f"The labels ({basis}) do not yet show any threshold reaching a precision of "
               f"{target:.2f} with confidence.{shown} More labels narrow the interval.")
    else:
        why = (f"On {basis} no threshold's merges reach a precision of {target:.2f}, not even "
               f"at the top of their interval.{shown} This dedupe (character n-grams, subject "
               "gate, date window, series rule) cannot reach the target on this corpus: lower "
               "--precision, or add signals beyond the surface string.")
    return {"method": "declined", "threshold": None, "target": target,
            "precision": interval(best, "precision_measured", basis),
            "recall": interval(best, "recall_measured", basis), "note": why,
            "next": None, "more_labels": bool(reachable)}


def without_labels(decoys: pd.DataFrame | None, check: dict | None, decoy_basis: str,
                   bound_threshold: float | None, target: float) -> Choice:
    """The choice without labels: passed decoys, then the bound, else decline.

    Args:
        decoys: The decoy curve (``precision``, ``_low``, ``_high``, ``merged_pairs``), or None.
        check: The decoys' check (:func:`newsdedup.calibration.decoys.check_decoys`), or None.
        decoy_basis: The decoy rule in words.
        bound_threshold: The published bound's recommendation, or None.
        target: Target precision.

    Returns:
        The :class:`Choice` (labels can always change it: ``more_labels`` is True).

    Examples:
        >>> without_labels(None, None, "", 0.24, 0.9)["method"]
        'bound'
        >>> without_labels(None, None, "", None, 0.9)["method"]
        'declined'
    """
    none = interval(None, "", "none")
    notes = []
    if decoys is not None and check is not None:
        if check["passed"]:
            row = _lowest(decoys, "precision_low", target)
            if row is not None:
                t = float(row["threshold"])
                # The decoys bound the false merges from above (every compared pair is
                # counted as unrelated, duplicates too), so they bound precision from
                # below only: the interval is one-sided, up to 1.
                basis = (f"decoys, a lower bound (every compared pair counted as "
                         f"unrelated): {decoy_basis}")
                precision = interval(row, "precision", basis) | {"high": 1.0}
                return {"method": "decoys", "threshold": t, "target": target,
                        "precision": precision, "recall": none,
                        "note": f"Estimated from decoys ({decoy_basis}; {check['reason']}): "
                                f"{t:.2f} is the lowest threshold whose precision is at least "
                                f"{target:.2f} at the low end of its interval (decoys bound "
                                "precision from below only). Labels measure it.",
                        "next": None, "more_labels": True}
            notes.append(f"The decoys ({decoy_basis}) find no threshold whose estimated "
                         f"precision interval lies at or above {target:.2f}.")
        else:
            notes.append(f"The decoys ({decoy_basis}) cannot be trusted here: "
                         f"{check['reason']}.")
    else:
        notes.append("No decoys apply (no dates and no listed pairs).")
    if bound_threshold is not None:
        return {"method": "bound", "threshold": float(bound_threshold), "target": target,
                "precision": none, "recall": none,
                "note": " ".join(notes) + f" The published unrelated-pair bound decides: "
                        f"{bound_threshold:.2f}, just above the highest-scoring pair of the "
                        "corpus; it holds only if the corpus has no duplicates, which labels "
                        "check.",
                "next": None, "more_labels": True}
    notes.append("The unrelated-pair bound gives no threshold either (the corpus has "
                 "duplicates, so its highest pairs are not unrelated). Label the pairs the "
                 "calibration drew, then rerun it with them.")
    return {"method": "declined", "threshold": None, "target": target, "precision": none,
            "recall": none, "note": " ".join(notes), "next": None, "more_labels": True}


def with_holdout(choice: Choice, curve: pd.DataFrame, basis: str) -> Choice:
    """The choice restated on a labelled hold-out.

    The loop picked its threshold where its own labels looked good enough, so
    its estimate there leans optimistic; the hold-out's labels chose nothing.
    Once a hold-out is labelled, its estimate (``precision_holdout``, the
    loop's labelled pairs counted as they are) becomes the stated precision
    and recall, the loop's own stay under ``loop_precision`` and
    ``loop_recall``, and ``holdout_confirms`` says whether the hold-out's
    interval lies at or above the target. The threshold does not move: a
    threshold chosen on the hold-out would need another hold-out to be
    measured.

    Args:
        choice: The loop's choice.
        curve: Per threshold, with ``precision_holdout`` (and ``_low``,
            ``_high``) and ``recall_holdout`` (likewise).
        basis: What the hold-out labels are, in words.

    Returns:
        The restated :class:`Choice` (unchanged without a threshold).
    """
    t = choice["threshold"]
    if t is None:
        return choice
    row = curve[(curve["threshold"] - t).abs() < 1e-9].iloc[0]
    precision = interval(row, "precision_holdout", basis)
    target = choice["target"]
    confirms = precision["low"] is not None and precision["low"] >= target
    if confirms:
        verdict = (f" The hold-out confirms it: precision {_fmt(precision)}, its interval at "
                   f"or above {target:.2f}.")
    else:
        verdict = (f" The hold-out does not confirm it: precision {_fmt(precision)} reaches "
                   f"below {target:.2f}. Label more pairs (the loop's next batch), or "
                   "choose a higher threshold and draw a new hold-out to measure it.")
    return choice | {"precision": precision, "recall": interval(row, "recall_holdout", basis),
                     "loop_precision": choice["precision"], "loop_recall": choice["recall"],
                     "holdout_confirms": bool(confirms), "note": choice["note"] + verdict}
