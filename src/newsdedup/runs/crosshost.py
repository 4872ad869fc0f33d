"""``newsdedup measure --crosshost``: cross pairs of a host set, with a date window.

:func:`run_crosshost` scores the cross pairs of the host set host pair by host
pair, or above a floor from the exact join when they are too many to list
(:func:`cross_host_report`, never ``N x N``), reports them
(:func:`newsdedup.studies.crosshost.cross_host`), prints them and writes
``<out>/<name>/crosshost/``: ``hosts.csv``, ``sources.csv``, ``source_by_host.csv``,
``cross_pairs.csv`` (the best :data:`~newsdedup.studies.crosshost.MAX_ROWS`),
``score_days.csv`` (every scored cross pair per score and days-apart bin),
``crosshost.md`` and ``crosshost.json``.

Without ``--hosts`` the host set is the corpus's own
(:func:`~newsdedup.studies.crosshost.choose_hosts`): its URL hosts, else its
source values; the published pair (deepmind.google, blog.google) only for the
pinned archive. A corpus with no host information gets the tables of its
items, a note saying so, and no pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup import paths
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
from newsdedup.runs.progress import tracker
from newsdedup.score.jaccard import PairScores, jaccard_matrix, upper_pairs
from newsdedup.score.join import gathered_pairs, join_blocks, stream_block, stream_kernel
from newsdedup.studies.crosshost import (
    DEFAULT_FLOOR,
    MAX_LISTED,
    MAX_ROWS,
    CrossHostReport,
    CrossListing,
    CrossTally,
    HostChoice,
    all_pairs_max,
    choose_hosts,
    cross_host,
    cross_pair_count,
    cross_pair_scores,
    host_groups,
    listing_floor,
    tally_report,
    window_pair_count,
)
from newsdedup.studies.measure import normalized_texts
from newsdedup.text.normalize import DEFAULT_SCHEME
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix


def exact_scores(items: pd.DataFrame, n: int, scheme: str = DEFAULT_SCHEME) -> PairScores:
    """Exact Jaccard of all pairs of a corpus at n-gram size ``n``."""
    return upper_pairs(jaccard_matrix(shingle_matrix(normalized_texts(items, scheme), n)))


@dataclass(frozen=True)
class CrossHostConfig:
    """Options of the cross-host run.

    Attributes:
        hosts: Host set whose cross pairs are studied; None: the corpus's own
            (:func:`~newsdedup.studies.crosshost.choose_hosts`; the published pair for
            the pinned archive).
        window_days: Publication-date window, days.
        n: n-gram size of the scores and of the upper bound.
        scheme: Normalization scheme.
        max_listed: Most cross pairs listed with every score; above it only
            those scoring at least ``floor`` are listed (from the exact join
            over the host set's items), with exact counts of all of them.
        floor: That lowest listed score, in ``(0, 1]``; raised when the pairs at or
            above it, estimated from a sample, would pass the join's budget
            (:func:`~newsdedup.studies.crosshost.listing_floor`).
        max_rows: Most cross pairs written to ``cross_pairs.csv`` with their texts.

        ``max_listed`` and ``floor`` go to ``crosshost.json`` only when the floor was
        applied, ``max_rows`` only when it cut the listing.
    """

    hosts: tuple[str, ...] | None = None
    window_days: int = 3
    n: int = 4
    scheme: str = DEFAULT_SCHEME
    max_listed: int = MAX_LISTED
    floor: float = DEFAULT_FLOOR
    max_rows: int = MAX_ROWS


@commits("crosshost")
def run_crosshost(corpus, name: str, out: Path, options: CrossHostConfig | None = None,
                  progress: Progress = quiet, echo: bool = True) -> CrossHostReport:
    """Cross-host analysis of a corpus; writes ``<out>/<name>/crosshost/``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Host set, window and n-gram size; by default the corpus's own hosts.
        progress: Progress callback.
        echo: Print the analysis.

    Returns:
        The :class:`~newsdedup.studies.crosshost.CrossHostReport`.
    """
    options = options or CrossHostConfig()
    choice = choose_hosts(corpus.items, options.hosts,
                          pinned=getattr(corpus, "sha256", None) == paths.PALDYN.sha256)
    items = corpus.items if choice.column == "host" else corpus.items.assign(
        host=corpus.items[choice.column])
    options = replace(options, hosts=choice.hosts)
    if choice.how is not None:
        progress(f"crosshost: hosts from {choice.how}")
    usable = len(host_groups(items, choice.hosts)) >= 2
    if usable:
        progress(f"crosshost: exact Jaccard (n={options.n}) for hosts {', '.join(choice.hosts)}")
    try:
        rep = (cross_host_report(items, options, progress) if usable
               else cross_host(items, _no_pairs(), choice.hosts, options.window_days, 0.0))
    except ValueError as exc:  # dates: the loader rejects bad ones, a caller's table may not
        raise ValueError(f"{corpus.path}: crosshost: {exc} (the file has {corpus.n_records} "
                         f"records, {len(corpus.rejected)} rejected when loading)") from None
    note = None if usable else no_pairs_note(choice, items)
    if echo:
        print(note if note is not None else crosshost_console(rep), flush=True)
    params = asdict(options)
    if rep.listing is None:  # every cross pair listed: the published record, unchanged
        params.pop("max_listed")
        params.pop("floor")
    if len(rep.pairs) == rep.n_cross:
        params.pop("max_rows")
    if choice.how is not None:
        params["hosts_from"] = choice.how
    if choice.column != "host":
        params["host_column"] = choice.column
    files = write_crosshost(rep, corpus, name, out / name / "crosshost", params, note)
    progress(f"crosshost: wrote {len(files)} files to {out / name / 'crosshost'}")
    return rep


def _no_pairs() -> PairScores:
    none = np.zeros(0, dtype=np.int64)
    return PairScores(none, none.copy(), np.zeros(0))


def no_pairs_note(choice: HostChoice, items: pd.DataFrame) -> str:
    """Why a corpus has no cross pairs to study: no host information, or one host only."""
    if not choice.hosts:
        return "crosshost: " + (choice.how or "no host information")
    found = host_groups(items, choice.hosts)
    return (f"crosshost: no cross pairs: {len(found)} of the hosts {', '.join(choice.hosts)} "
            f"{'has' if len(found) == 1 else 'have'} items (pairs need two hosts)")


def cross_host_report(items: pd.DataFrame, options: CrossHostConfig,
                      progress: Progress = quiet) -> CrossHostReport:
    """The cross-host analysis without ``N x N``: host-pair blocks, or the join above a floor.

    The upper bound is the all-pairs maximum from the exact join
    (:func:`newsdedup.studies.crosshost.all_pairs_max`). Up to
    ``options.max_listed`` cross pairs are all scored, one host pair at a time
    (:func:`~newsdedup.studies.crosshost.cross_pair_scores`): the same pairs and
    scores as scoring every pair. Beyond it the pairs at or above
    ``options.floor`` (raised while they would pass the join's budget:
    :func:`~newsdedup.studies.crosshost.listing_floor`) come from the exact join
    over the host set's items, and all cross pairs and those within the date
    window are counted exactly.
    """
    track = tracker(progress)
    hosts = choose_hosts(items, options.hosts).hosts
    shingled = shingle_matrix(normalized_texts(items, options.scheme), options.n)
    groups = host_groups(items, hosts)
    bound = all_pairs_max(shingled, track)
    total = cross_pair_count(groups)
    if total <= options.max_listed:
        scores = cross_pair_scores(shingled, groups, track)
        return cross_host(items, scores, hosts, options.window_days, bound,
                          max_rows=options.max_rows)
    # A floor that would list more pairs than the join's budget (titles of one template) is
    # raised: the join's cost is the pairs it lists, quadratic in such a feed.
    chosen = listing_floor(shingled, groups, options.floor)
    floor = chosen.floor
    progress(f"crosshost: {total:,} cross pairs > {options.max_listed:,}: listing those with "
             f"J >= {floor:g} (exact join over {sum(map(len, groups)):,} items)"
             + (f"; J >= {options.floor:g} would list about {chosen.estimated_pairs:,}, "
                f"over the budget of {chosen.budget:,}" if chosen.raised else ""))
    focus = np.sort(np.concatenate(groups))
    sub = ShingleMatrix(shingled.matrix[focus], shingled.vocab, shingled.n)
    listing = CrossListing(floor, total, window_pair_count(items, groups, options.window_days),
                           chosen=chosen)
    # The listed pairs go into the tally a join block at a time, never all held.
    tally = CrossTally(items, hosts, options.window_days, bound, options.max_rows)
    kernel = stream_kernel(sub)
    parts = join_blocks(sub, floor, stream_block(sub.n_items), lambda it: track(
        list(it), None, f"crosshost: join J >= {floor:g}, row blocks"), kernel)
    for pairs in gathered_pairs(parts):
        tally.add(PairScores(focus[pairs.i], focus[pairs.j], pairs.score))
    return tally_report(items, tally, listing)


def write_crosshost(rep, corpus, name: str, out_dir: Path, params: Mapping,
                    note: str | None = None) -> list[Path]:
    """Write the cross-host tables, Markdown and JSON to ``out_dir``.

    With a ``note`` (no host information, or one host only) the pair tables are
    not written and the Markdown and JSON say why.
    """
    hosts_title = ("Hosts (from the URL)" if params.get("host_column", "host") == "host"
                   else f"Hosts (the {params['host_column']} column: the corpus has no URLs)")
    sections = [
        ("Corpus", corpus.summary_line()),
        (hosts_title, markdown_table(rep.hosts)),
        ("Sources (the brand field)", markdown_table(rep.sources)),
        ("Source by host", markdown_table(rep.source_by_host)),
    ]
    files = [write_csv(rep.hosts, out_dir / "hosts.csv"),
             write_csv(rep.sources, out_dir / "sources.csv"),
             write_csv(rep.source_by_host, out_dir / "source_by_host.csv")]
    summary = rep.summary()
    if note is not None:
        summary = {k: summary[k] for k in ("items", "unique_ids", "id_duplicates",
                                           "focus_hosts", "cross_pairs")} | {"note": note}
        sections.append(("Cross pairs", note))
    else:
        top = rep.pairs.head(20)[["rank", "score", "days_apart", "published_at_i", "host_i",
                                  "id_i", "title_i", "published_at_j", "host_j", "id_j",
                                  "title_j"]]
        window = rep.pairs[rep.pairs["in_window"]].head(20)[
            ["rank", "score", "days_apart", "id_i", "host_i", "id_j", "host_j"]]
        sections += [
            ("Cross pairs", markdown_table(pd.DataFrame([summary]).drop(
                columns=["focus_hosts"]), ".3f")),
            ("Top cross pairs", markdown_table(top, ".3f", {"days_apart": ".0f"})),
            (f"Cross pairs within ±{rep.window_days} days", markdown_table(
                window, ".3f", {"days_apart": ".0f"})),
        ]
        files += [write_csv(rep.pairs.drop(columns=["summary_i", "summary_j"]),
                            out_dir / "cross_pairs.csv"),
                  write_csv(rep.bins, out_dir / "score_days.csv")]
    return files + [
        write_markdown(sections, out_dir / "crosshost.md", f"Cross-host analysis: {name}"),
        write_params({"corpus": corpus_meta(corpus, name), "params": dict(params),
                      "summary": summary}, out_dir / "crosshost.json"),
    ]
