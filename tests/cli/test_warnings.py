"""Warnings the commands give on stderr whatever --quiet says (newsdedup.cli.options)."""

import json

import pytest

from newsdedup.cli.options import warn_unconfirmed


def _calibration(tmp_path, confirms, model_low):
    data = {"recommended_threshold": 0.44, "target_precision": 0.9,
            "holdout": {"confirms": confirms,
                        "precision": {"value": 0.91, "low": 0.89, "high": 0.935}},
            "pair_model": {"recommended_cut": 0.85,
                           "precision": {"value": 0.917, "low": model_low, "high": 0.995}}}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("model", [False, True])
def test_a_dedupe_at_a_cut_its_hold_out_does_not_confirm_says_so(tmp_path, capsys, model):
    # dedupe --calibration once applied such a threshold saying only "threshold 0.47";
    # the verdict sat in calibration.json's holdout.confirms.
    path = _calibration(tmp_path, confirms=False, model_low=0.732)
    warn_unconfirmed(path, model=model)
    [line] = capsys.readouterr().err.splitlines()
    what = "the pair model's cut 0.85" if model else "the threshold 0.44"
    measured = "0.917 [0.732, 0.995]" if model else "0.910 [0.890, 0.935]"
    assert line == (f"[newsdedup] warning: {path}: its hold-out does not confirm {what} "
                    f"(precision {measured}; target 0.9); the dedupe uses it as recommended: "
                    "label the loop's next batch, or choose a higher one")


@pytest.mark.parametrize("model", [False, True])
def test_a_confirmed_cut_or_one_without_a_hold_out_is_applied_without_a_word(tmp_path, capsys,
                                                                             model):
    warn_unconfirmed(_calibration(tmp_path, confirms=True, model_low=0.91), model=model)
    path = tmp_path / "bare.json"
    path.write_text(json.dumps({"recommended_threshold": 0.3, "target_precision": 0.9}), "utf-8")
    warn_unconfirmed(path, model=model)
    assert capsys.readouterr().err == ""
