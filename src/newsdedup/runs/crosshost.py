"""``newsdedup crosshost``: cross pairs of a host set, with a date window (published block 3).

:func:`run_crosshost` scores every pair (:func:`exact_scores`), keeps the cross
pairs of the host set (:func:`newsdedup.studies.crosshost.cross_host`), prints
them and writes ``<out>/<name>/crosshost/``: ``hosts.csv``, ``sources.csv``,
``source_by_host.csv``, ``cross_pairs.csv``, ``crosshost.md`` and ``crosshost.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from newsdedup.runs.commit import commits
from newsdedup.runs.console import crosshost_console
from newsdedup.runs.files import (
    Progress,
    corpus_meta,
    markdown_table,
    quiet,
    write_csv,
    write_markdown,
    write_params,
)
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs
from newsdedup.studies.crosshost import CrossHostReport, cross_host
from newsdedup.studies.measure import normalized_texts
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import shingle_matrix


def exact_scores(items: pd.DataFrame, n: int, scheme: str = DEFAULT_SCHEME) -> PairScores:
    """Exact Jaccard of all pairs of a corpus at n-gram size ``n``."""
    return upper_pairs(jaccard_matrix(shingle_matrix(normalized_texts(items, scheme), n)))


@dataclass(frozen=True)
class CrossHostOptions:
    """Options of the cross-host run.

    Attributes:
        hosts: Host set whose cross pairs are studied.
        window_days: Publication-date window, days.
        n: n-gram size of the scores and of the upper bound.
        scheme: Normalization scheme.
    """

    hosts: tuple[str, ...] = ("deepmind.google", "blog.google")
    window_days: int = 3
    n: int = 4
    scheme: str = DEFAULT_SCHEME


@commits("crosshost")
def run_crosshost(corpus, name: str, out: Path, options: CrossHostOptions | None = None,
                  progress: Progress = quiet, echo: bool = True) -> CrossHostReport:
    """Cross-host analysis of a corpus; writes ``<out>/<name>/crosshost/``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Host set, window and n-gram size; the published ones by default.
        progress: Progress callback.
        echo: Print the analysis.

    Returns:
        The :class:`~newsdedup.studies.crosshost.CrossHostReport`.
    """
    options = options or CrossHostOptions()
    progress(f"crosshost: exact Jaccard (n={options.n}) for hosts {', '.join(options.hosts)}")
    scores = exact_scores(corpus.items, options.n, options.scheme)
    try:
        rep = cross_host(corpus.items, scores, options.hosts, options.window_days)
    except ValueError as exc:  # dates: the loader rejects bad ones, a caller's table may not
        raise ValueError(f"{corpus.path}: crosshost: {exc} (the file has {corpus.n_records} "
                         f"records, {len(corpus.rejected)} rejected when loading)") from None
    if echo:
        print(crosshost_console(rep), flush=True)
    files = write_crosshost(rep, corpus, name, out / name / "crosshost", asdict(options))
    progress(f"crosshost: wrote {len(files)} files to {out / name / 'crosshost'}")
    return rep


def write_crosshost(rep, corpus, name: str, out_dir: Path, params: Mapping) -> list[Path]:
    """Write the cross-host tables, Markdown and JSON to ``out_dir``."""
    top = rep.pairs.head(20)[["rank", "score", "days_apart", "published_at_i", "host_i", "id_i",
                              "title_i", "published_at_j", "host_j", "id_j", "title_j"]]
    window = rep.pairs[rep.pairs["in_window"]].head(20)[
        ["rank", "score", "days_apart", "id_i", "host_i", "id_j", "host_j"]]
    sections = [
        ("Corpus", corpus.summary_line()),
        ("Hosts (from the URL)", markdown_table(rep.hosts)),
        ("Sources (the brand field)", markdown_table(rep.sources)),
        ("Source by host", markdown_table(rep.source_by_host)),
        ("Cross pairs", markdown_table(pd.DataFrame([rep.summary()]).drop(columns=["focus_hosts"]),
                                       ".3f")),
        ("Top cross pairs", markdown_table(top, ".3f", {"days_apart": ".0f"})),
        (f"Cross pairs within ±{rep.window_days} days", markdown_table(window, ".3f",
                                                                       {"days_apart": ".0f"})),
    ]
    return [
        write_csv(rep.hosts, out_dir / "hosts.csv"),
        write_csv(rep.sources, out_dir / "sources.csv"),
        write_csv(rep.source_by_host, out_dir / "source_by_host.csv"),
        write_csv(rep.pairs.drop(columns=["summary_i", "summary_j"]), out_dir / "cross_pairs.csv"),
        write_markdown(sections, out_dir / "crosshost.md", f"Cross-host analysis: {name}"),
        write_params({"corpus": corpus_meta(corpus, name), "params": dict(params),
                      "summary": rep.summary()}, out_dir / "crosshost.json"),
    ]
