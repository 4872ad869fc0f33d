"""Cross-host analysis: the same announcement posted on two sites (seed 004, block 3).

The ``source`` field of an archive is often a normalized brand ("Google
DeepMind" covers both deepmind.google and blog.google), so it cannot tell
sites apart; the host is taken from the URL instead (see
:func:`newsdedup.corpus.hosts.host_of`). For a chosen set of hosts the analysis
scores every pair of items on *different* hosts of that set, compares the
scores with the corpus's unrelated-pair upper bound, and narrows the
candidates with a publication-date window -- the first alternative the
published measurement proposes, since a real cross-post is usually a day or
two apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from newsdedup.corpus.hosts import parse_dates
from newsdedup.score.jaccard import PairScores, jaccard_block, pair_jaccard
from newsdedup.score.join import join_blocks, stream_block, stream_kernel
from newsdedup.studies.cost import join_budget, join_threshold
from newsdedup.studies.pairstream import Track, pair_blocks, untracked
from newsdedup.text.shingle import ShingleMatrix

DEFAULT_HOSTS = ("deepmind.google", "blog.google")
DEFAULT_WINDOW_DAYS = 3
MAX_LISTED = 200_000
"""Cross pairs listed with every score; above it only those at or above the floor."""
DEFAULT_FLOOR = 0.2
"""Lowest score listed when the cross pairs are too many (the measure's lowest threshold)."""
_BLOCK_CELLS = 1 << 22  # pairs per sparse product block (memory knob only)
MAX_HOSTS = 20
"""Most hosts a derived host set holds (those with most items): the cross pairs of 20 hosts
are already most pairs of a feed, and their listing stays readable."""
MAX_ROWS = 20_000
"""Most cross pairs written with their texts (best first); counts and bins cover them all.

A reader goes down the list from the top; below a few thousand rows the pairs
of a varied feed score near 0. Writing 100,000 rows with both texts took 1 s,
most of a 3,000-item run's cross-host step (0.2 s where the pairs are too many
to list and only those above the floor are written)."""
SCORE_BIN = 0.01
"""Width of the score bins of :func:`score_day_bins` (the measure histogram's)."""
DAY_EDGES = (0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 14.0, 30.0, 60.0, 90.0, 180.0, 365.0, 730.0, np.inf)
"""Edges of the days-apart bins of :func:`score_day_bins`, ``[lo, hi)``."""


@dataclass(frozen=True)
class HostChoice:
    """The host set a cross-host study looks at, and where it came from.

    Attributes:
        hosts: The hosts (empty: the corpus has no host information).
        column: The item column they are values of: ``"host"`` (from the URLs) or
            ``"source"`` (the corpus has no URLs).
        how: How they were chosen, in words, when derived from the corpus; None when
            given (``--hosts``, or the pinned archive's published pair).
    """

    hosts: tuple[str, ...]
    column: str = "host"
    how: str | None = None


def _nonempty_counts(values: pd.Series, name: str) -> pd.DataFrame:
    text = values.fillna("").astype(str)
    return ordered_counts(text[text.str.strip() != ""].tolist(), name)


def choose_hosts(items: pd.DataFrame, given: Sequence[str] | None = None, pinned: bool = False,
                 max_hosts: int = MAX_HOSTS) -> HostChoice:
    """The host set of a corpus: given, the published pair, or the corpus's own.

    ``given`` wins; the pinned archive keeps its published pair
    (:data:`DEFAULT_HOSTS`); any other corpus uses its own URL hosts, the
    ``max_hosts`` with most items; without URLs, its ``source`` values; with
    neither, no host at all (the study then says there is no host information).

    Args:
        items: The canonical corpus frame (``host``, ``source``).
        given: Hosts named by the user, or None.
        pinned: Whether ``items`` is the pinned archive.
        max_hosts: Most hosts of a derived set.

    Returns:
        The :class:`HostChoice`.

    Examples:
        >>> items = pd.DataFrame({"host": ["a.kr", "b.kr", "a.kr", ""], "source": ""})
        >>> choose_hosts(items).hosts
        ('a.kr', 'b.kr')
        >>> choose_hosts(items.assign(host="", source=["x", "y", "", ""])).column
        'source'
        >>> choose_hosts(items.assign(host="")).hosts
        ()
    """
    if given is not None:
        return HostChoice(tuple(given))
    if pinned:
        return HostChoice(DEFAULT_HOSTS)
    for column, what in (("host", "URL hosts"), ("source", "source values (it has no URLs)")):
        if column not in items:
            continue
        counts = _nonempty_counts(items[column], column)
        if len(counts):
            top = tuple(counts[column].head(max_hosts).tolist())
            share = ("all" if len(top) == len(counts)
                     else f"the {len(top)} with most items of")
            return HostChoice(top, column, f"the corpus's {what}: {share} {len(counts):,}")
    return HostChoice((), "host", "no host information: the corpus has no URLs and no source "
                      "column")


def ordered_counts(values: Sequence[str], name: str) -> pd.DataFrame:
    """Counts of each value, most common first, ties in order of first appearance.

    Args:
        values: The values, e.g. one host per item.
        name: Column name for the values.

    Returns:
        DataFrame with columns ``name`` and ``count``.

    Examples:
        >>> ordered_counts(["b", "a", "a", "c", "b"], "host").values.tolist()
        [['b', 2], ['a', 2], ['c', 1]]
    """
    labels, first, counts = np.unique(np.asarray(values, dtype=object), return_index=True,
                                      return_counts=True)
    order = np.lexsort((first, -counts))
    return pd.DataFrame({name: labels[order], "count": counts[order].astype(np.int64)})


@dataclass(frozen=True)
class CrossHostReport:
    """Result of :func:`cross_host`.

    Attributes:
        n_items: Items in the corpus.
        n_unique_ids: Distinct ids.
        hosts: Counts per URL host.
        sources: Counts per ``source`` value.
        source_by_host: Items per (source, host), showing what a brand merges.
        focus_hosts: The host set studied.
        pairs: Every cross pair, best score first, with columns rank, score,
            days_apart, in_window, above_bound, i, j and per side id, host,
            published_at, title, summary.
        upper_bound: Unrelated-pair upper bound used (max exact Jaccard over all pairs).
        window_days: The date window, days.
        listing: None when ``pairs`` holds every cross pair; else what was
            listed (:class:`CrossListing`: the cross pairs at or above a floor,
            with the exact counts of all of them).
        totals: Counts and maxima over every scored cross pair (:class:`CrossTotals`),
            also when ``pairs`` keeps only the best rows.
        bins: Scored cross pairs per score and days-apart bin (:func:`score_day_bins`).
    """

    n_items: int
    n_unique_ids: int
    hosts: pd.DataFrame
    sources: pd.DataFrame
    source_by_host: pd.DataFrame
    focus_hosts: tuple[str, ...]
    pairs: pd.DataFrame
    upper_bound: float
    window_days: int
    listing: CrossListing | None = None
    totals: CrossTotals | None = None
    bins: pd.DataFrame | None = None

    @property
    def n_id_duplicates(self) -> int:
        """Items whose id repeats an earlier item's."""
        return self.n_items - self.n_unique_ids

    @property
    def counts(self) -> CrossTotals:
        """:attr:`totals`, or the counts of :attr:`pairs` when it holds every scored pair."""
        return self.totals if self.totals is not None else CrossTotals.of(
            self.pairs["score"].to_numpy(), self.pairs["in_window"].to_numpy(bool),
            self.pairs["above_bound"].to_numpy(bool))

    @property
    def n_cross(self) -> int:
        """Cross-host pairs scored."""
        return self.counts.pairs

    @property
    def max_score(self) -> float:
        """Highest cross-host score (0.0 without pairs)."""
        return self.counts.max_score

    @property
    def n_above_bound(self) -> int:
        """Cross-host pairs scoring above the unrelated-pair upper bound."""
        return self.counts.above_bound

    @property
    def n_in_window(self) -> int:
        """Cross-host pairs published within the date window."""
        return self.counts.in_window

    def summary(self) -> dict:
        """The counts of the report as a plain dict (for JSON reports).

        When only the pairs at or above a floor are listed, ``cross_pairs`` and
        ``in_window`` count all cross pairs (exactly), ``listed_pairs`` and
        ``list_floor`` say what was listed, and the maxima are those of the
        listed pairs (exact when some pair reaches the floor). When only the
        best scored pairs are written with their texts, ``rows_written`` says
        how many.
        """
        out = self._summary()
        if self.listing is not None:
            out |= self.listing.summary(self)
        if len(self.pairs) < self.n_cross:
            out["rows_written"] = len(self.pairs)
        return out

    def _summary(self) -> dict:
        return {
            "items": self.n_items,
            "unique_ids": self.n_unique_ids,
            "id_duplicates": self.n_id_duplicates,
            "focus_hosts": list(self.focus_hosts),
            "cross_pairs": self.n_cross,
            "max_score": self.max_score,
            "upper_bound": self.upper_bound,
            "above_upper_bound": self.n_above_bound,
            "window_days": self.window_days,
            "in_window": self.n_in_window,
            "max_score_in_window": self.counts.max_in_window,
        }


@dataclass(frozen=True)
class CrossTotals:
    """Counts and maxima over every scored cross pair.

    Attributes:
        pairs: Cross pairs scored.
        in_window: Of them, published within the date window.
        above_bound: Of them, scoring above the unrelated-pair bound.
        max_score: Highest score (0.0 without pairs).
        max_in_window: Highest score within the window (0.0 without such pairs).
    """

    pairs: int
    in_window: int
    above_bound: int
    max_score: float
    max_in_window: float

    @classmethod
    def of(cls, score: np.ndarray, in_window: np.ndarray, above: np.ndarray) -> CrossTotals:
        """The totals of parallel per-pair arrays."""
        window = score[in_window]
        return cls(int(len(score)), int(in_window.sum()), int(above.sum()),
                   float(score.max()) if len(score) else 0.0,
                   float(window.max()) if len(window) else 0.0)


@dataclass(frozen=True)
class CrossListing:
    """How many cross pairs there are when only those at or above ``floor`` are listed.

    Attributes:
        floor: Lowest score listed.
        cross_pairs: All cross pairs of the host set (exact count).
        in_window: All cross pairs within the date window (exact count).
        chosen: How the floor was chosen (:func:`listing_floor`); the summary names it
            only when the floor was raised or over the budget. None: as asked.
    """

    floor: float
    cross_pairs: int
    in_window: int
    chosen: ListingFloor | None = None

    def summary(self, rep: CrossHostReport) -> dict:
        """The summary fields that count all cross pairs, and what was listed.

        When the floor was raised above the one asked for, it also says from what,
        the estimate that raised it and the budget it was held to.
        """
        counts = rep.counts
        method = (f"cross pairs and in_window: exact counts; pairs listed, maxima and "
                  f"above_upper_bound: exact among pairs scoring >= {self.floor:g} "
                  f"(null: no pair reaches it)")
        raised = {}
        c = self.chosen
        if c is not None and (c.raised or c.over_budget):
            raised = {"list_floor_requested": c.requested,
                      "estimated_pairs_at_requested_floor": c.estimated_pairs,
                      "estimate_sampled_pairs": c.sampled, "list_budget": c.budget}
            method += (f"; the requested floor {c.requested:g} would list about "
                       f"{c.estimated_pairs:,} pairs (estimated from {c.sampled:,} sampled "
                       f"cross pairs), over the join's budget of {c.budget:,}, so the "
                       f"lowest floor that fits was listed"
                       + (" (none fits: the highest tried)" if c.over_budget else ""))
        return {"cross_pairs": self.cross_pairs, "in_window": self.in_window,
                "listed_pairs": rep.n_cross, "list_floor": self.floor, **raised,
                "listed_in_window": counts.in_window,
                "max_score": rep.max_score if rep.n_cross else None,
                "max_score_in_window": counts.max_in_window if counts.in_window else None,
                "method": method}


def host_groups(items: pd.DataFrame, hosts: Sequence[str]) -> list[np.ndarray]:
    """Item positions on each host of ``hosts`` that has items, in ``hosts`` order."""
    host = items["host"].to_numpy(dtype=object)
    groups = [np.flatnonzero(host == h) for h in dict.fromkeys(hosts)]
    return [g for g in groups if len(g)]


def cross_pair_count(groups: Sequence[np.ndarray]) -> int:
    """Pairs of items on two different hosts: ``sum over host pairs of |A| |B|``.

    Examples:
        >>> cross_pair_count([np.arange(3), np.arange(2), np.arange(4)])
        26
    """
    sizes = np.array([len(g) for g in groups], dtype=object)
    return int((sum(sizes) ** 2 - sum(sizes * sizes)) // 2) if len(sizes) else 0


def cross_pair_sample(groups: Sequence[np.ndarray], size: int, seed: int = 0
                      ) -> tuple[np.ndarray, np.ndarray]:
    """A seeded uniform sample of the cross pairs of ``groups`` (with replacement).

    Each draw is one of the :func:`cross_pair_count` pairs with equal chance: a
    position among them, then the host pair and the two items it falls on.

    Returns:
        ``(i, j)`` item positions with ``i < j``, in draw order.

    Examples:
        >>> i, j = cross_pair_sample([np.array([0, 1]), np.array([2])], 4)
        >>> sorted(set(zip(i.tolist(), j.tolist())))
        [(0, 2), (1, 2)]
    """
    blocks = [(a, b) for a in range(len(groups)) for b in range(a + 1, len(groups))]
    counts = np.array([len(groups[a]) * len(groups[b]) for a, b in blocks], dtype=np.int64)
    ends = np.cumsum(counts)
    if not len(ends) or ends[-1] == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy()
    pos = np.random.default_rng(seed).integers(0, ends[-1], size=size, dtype=np.int64)
    block = np.searchsorted(ends, pos, side="right")
    offset = pos - (ends - counts)[block]
    i, j = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    for k in np.unique(block).tolist():  # at most MAX_HOSTS^2 / 2 host pairs
        at = np.flatnonzero(block == k)
        a, b = groups[blocks[k][0]], groups[blocks[k][1]]
        i[at], j[at] = a[offset[at] // len(b)], b[offset[at] % len(b)]
    return np.minimum(i, j), np.maximum(i, j)


@dataclass(frozen=True)
class ListingFloor:
    """The lowest score a cross-host listing joins at, and why (:func:`listing_floor`).

    Attributes:
        floor: The floor listed at.
        requested: The floor asked for (``CrossHostConfig.floor``).
        estimated_pairs: Cross pairs estimated at or above ``requested`` (from the sample);
            without a sample, the count of all cross pairs (an upper bound).
        sampled: Cross pairs sampled for the estimate; 0 when all cross pairs fit the
            budget (then no floor can list too many).
        budget: Pairs the join may list (:func:`~newsdedup.studies.cost.join_budget`).
        over_budget: Even the highest floor of :data:`LISTING_LADDER` was estimated
            above the budget (it is listed at that floor all the same).
    """

    floor: float
    requested: float
    estimated_pairs: int
    sampled: int
    budget: int
    over_budget: bool = False

    @property
    def raised(self) -> bool:
        """The listing's floor is above the one asked for."""
        return self.floor > self.requested


LISTING_SAMPLE = 100_000
"""Cross pairs sampled to estimate how many pairs a floor would list (a share of 1e-3
of them is known to about 10 %)."""
LISTING_LADDER = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""Floors tried, lowest first, above a requested floor whose pairs are too many to list."""


def listing_floor(shingled: ShingleMatrix, groups: Sequence[np.ndarray], floor: float,
                  sample: int = LISTING_SAMPLE, seed: int = 0) -> ListingFloor:
    """The floor a cross-host listing joins at: ``floor``, or higher when that lists too many.

    Titles from one template put most of their cross pairs above a low floor
    (0.2: about 51M of the 100M cross pairs of 20,000 templated titles on two
    hosts), and the join that lists them costs as many pairs: quadratic in the
    feed. The number a floor
    would list is estimated from a seeded uniform sample of the cross pairs; the
    floor is the lowest of ``floor`` and :data:`LISTING_LADDER` whose estimate
    fits :func:`~newsdedup.studies.cost.join_budget` (per item of the host set),
    the same rule as the sampled measurement's join
    (:func:`~newsdedup.studies.cost.join_threshold`).

    Args:
        shingled: The items' shingle matrix (rows are item positions).
        groups: Item positions per host (:func:`host_groups`).
        floor: The floor asked for.
        sample: Cross pairs sampled.
        seed: Of the sample.
    """
    total, n_items = cross_pair_count(groups), sum(len(g) for g in groups)
    budget = join_budget(n_items)
    if total <= budget:  # no floor can list more: nothing to estimate
        return ListingFloor(floor=floor, requested=floor, estimated_pairs=total, sampled=0,
                            budget=budget)
    i, j = cross_pair_sample(groups, sample, seed)
    scores = pair_jaccard(shingled, i, j)
    ladder = [floor, *(t for t in LISTING_LADDER if t > floor)]
    chosen = join_threshold(scores, ladder, n_items, population=total)
    estimated = round(float((scores >= floor).mean()) * total) if len(scores) else 0
    return ListingFloor(floor=ladder[-1] if chosen is None else chosen, requested=floor,
                        estimated_pairs=estimated, sampled=len(scores), budget=budget,
                        over_budget=chosen is None)


def cross_pair_scores(shingled: ShingleMatrix, groups: Sequence[np.ndarray],
                      track: Track = untracked) -> PairScores:
    """Exact Jaccard of every pair of items on two different hosts, block by block.

    Each pair of hosts is one rectangular product ``X_A X_B^T`` in row blocks,
    so the work is the cross pairs, never ``N x N``; scores come from
    :func:`newsdedup.score.jaccard.jaccard_block`, the dense path's division.

    Returns:
        PairScores with ``i < j`` (original positions), unordered.
    """
    x, sizes = shingled.matrix.tocsr(), shingled.sizes
    parts_i, parts_j, parts_s = [], [], []
    tasks = [(a, b) for k, a in enumerate(groups) for b in groups[k + 1:]]
    for a, b in track(iter(tasks), len(tasks), "crosshost: host pairs"):
        xt = x[b].T.tocsc()
        rows = max(1, _BLOCK_CELLS // max(len(b), 1))
        for lo in range(0, len(a), rows):
            ra = a[lo:lo + rows]
            inter = (x[ra] @ xt).toarray().astype(np.int64)
            score = jaccard_block(inter, sizes[ra], sizes[b])
            ii, jj = np.repeat(ra, len(b)), np.tile(b, len(ra))
            parts_i.append(np.minimum(ii, jj))
            parts_j.append(np.maximum(ii, jj))
            parts_s.append(score.ravel())
    if not parts_s:
        z = np.zeros(0, dtype=np.int64)
        return PairScores(z, z.copy(), np.zeros(0))
    return PairScores(np.concatenate(parts_i), np.concatenate(parts_j), np.concatenate(parts_s))


MAX_LADDER = (1.0, 0.75, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625)
"""Thresholds :func:`all_pairs_max` joins at, highest first, until some pair reaches one.

A join at a high threshold is cheap (short prefixes, few candidates), and most
corpora have a pair near 1, so the first rungs usually end the search; a feed of
one template would list nearly all of its pairs at 0.5."""


def all_pairs_max(shingled: ShingleMatrix, track: Track = untracked) -> float:
    """Highest exact Jaccard over all pairs (0.0 without pairs), never ``N x N``.

    The exact join at each threshold of :data:`MAX_LADDER` in turn, streamed
    block by block for its maximum alone, stops at the first threshold some
    pair reaches: every pair at or above it is visited, so the maximum is the
    all-pairs one (the join's scores are the dense path's, bit for bit). Below
    the last rung every pair is visited in blocks for the maximum alone.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> all_pairs_max(shingle_matrix(["abcde", "abcdf", "xyz"], 3))
        0.5
    """
    kernel = stream_kernel(shingled)
    for t in MAX_LADDER:
        label = f"crosshost: upper bound, join J >= {t:g}"

        def blocks(it: Iterator, label: str = label) -> Iterator:
            return track(list(it), None, label)

        best = -np.inf
        for part in join_blocks(shingled, t, stream_block(shingled.n_items), blocks, kernel):
            if len(part.pairs):
                best = max(best, part.pairs.max())
        if best >= t:
            return best
    x, sizes, n = shingled.matrix.tocsr(), shingled.sizes, shingled.n_items
    xt = x.T.tocsc()
    best = 0.0
    for lo, hi in track(pair_blocks(n, _BLOCK_CELLS), None, "crosshost: upper bound, blocks"):
        if lo + 1 >= n:
            break
        inter = (x[lo:hi] @ xt[:, lo + 1:]).toarray().astype(np.int64)
        block = jaccard_block(inter, sizes[lo:hi], sizes[lo + 1:])
        upper = np.triu(np.ones(block.shape, dtype=bool), k=0)
        if upper.any():
            best = max(best, float(block[upper].max()))
    return best


def window_pair_count(items: pd.DataFrame, groups: Sequence[np.ndarray],
                      window_days: int) -> int:
    """Cross pairs (different hosts of ``groups``) published within ``window_days``, counted.

    All pairs of the host set within the window, less the pairs of one host
    within it: one sort per host, no pair listed. Undated items are never in
    the window (as in :func:`cross_host`).
    """
    dates = parse_dates(items).to_numpy()

    def within(idx: np.ndarray) -> int:
        d = dates[idx]
        d = np.sort(d[~np.isnat(d)]).astype("datetime64[ns]").astype(np.int64)
        reach = np.searchsorted(d, d + int(window_days * 86_400 * 10**9), side="right")
        return int((reach - np.arange(1, len(d) + 1)).sum())

    every = np.concatenate(groups) if groups else np.zeros(0, dtype=np.int64)
    return within(every) - sum(within(g) for g in groups)


def _bin_codes(score: np.ndarray, days: np.ndarray, in_window: np.ndarray) -> np.ndarray:
    """Each pair's code in the score x days-apart x in-window grid of :func:`score_day_bins`."""
    edges = np.asarray(DAY_EDGES)
    width = int(round(1 / SCORE_BIN))
    s_bin = np.clip(np.floor(np.asarray(score) * width + 1e-9), 0, width - 1).astype(np.int64)
    dated = ~np.isnan(days)
    d_bin = np.full(len(days), len(edges) - 1, dtype=np.int64)  # the last code: undated
    d_bin[dated] = np.searchsorted(edges, days[dated], side="right") - 1
    return (s_bin * len(edges) + d_bin) * 2 + np.asarray(in_window, dtype=np.int64)


_N_CODES = int(round(1 / SCORE_BIN)) * len(DAY_EDGES) * 2
_MIN_PENDING = 1 << 20  # pairs a CrossTally lets wait before sorting (about 24 MB)


def _bins_frame(codes: np.ndarray, counts: np.ndarray) -> pd.DataFrame:
    """The bins table of sorted, distinct ``codes`` (:func:`_bin_codes`) and their pair counts."""
    edges = np.asarray(DAY_EDGES)
    width = int(round(1 / SCORE_BIN))
    s_code, rest = np.divmod(codes, 2 * len(edges))
    d_code, win = np.divmod(rest, 2)
    undated = d_code == len(edges) - 1
    lo = np.where(undated, np.nan, edges[np.minimum(d_code, len(edges) - 2)])
    hi = np.where(undated, np.nan, edges[np.minimum(d_code + 1, len(edges) - 1)])
    return pd.DataFrame({"score_lo": np.round(s_code / width, 10),
                         "score_hi": np.round((s_code + 1) / width, 10),
                         "days_lo": lo, "days_hi": hi, "in_window": win.astype(bool),
                         "pairs": counts.astype(np.int64)})


def score_day_bins(score: np.ndarray, days: np.ndarray, in_window: np.ndarray) -> pd.DataFrame:
    """Cross pairs per score bin (width :data:`SCORE_BIN`) and days-apart bin (:data:`DAY_EDGES`).

    The table the cross-host figure is drawn from, whatever the number of
    pairs. Undated pairs (no days apart) have empty day edges.

    Args:
        score: Score of each pair.
        days: Days apart of each pair (NaN when a date is missing).
        in_window: Whether each pair is within the date window.

    Returns:
        Columns score_lo, score_hi, days_lo, days_hi, in_window, pairs; only non-empty bins,
        by score, then days, then in_window.

    Examples:
        >>> score_day_bins(np.array([0.105, 0.5, 0.504]), np.array([0.5, 40.0, np.nan]),
        ...                np.array([True, False, False])).values.tolist()
        [[0.1, 0.11, 0.0, 1.0, True, 1], [0.5, 0.51, 30.0, 60.0, False, 1],
         [0.5, 0.51, nan, nan, False, 1]]
    """
    codes, counts = np.unique(_bin_codes(score, days, in_window), return_counts=True)
    return _bins_frame(codes, counts)


class CrossTally:
    """Everything the cross-host report says of its pairs, added a block of pairs at a time.

    Counts, maxima and the score x days-apart bins cover every pair added; only
    the best ``max_rows`` pairs are kept (in :meth:`PairScores.top`'s order) to
    be written with their texts. So the cross pairs at or above a floor can be
    streamed from the join block by block: a feed of one template puts nearly
    all of its ``N^2/2`` pairs above any floor, and holding them (with their
    dates and flags) took 1.3 GB at 10,000 titles.

    Args:
        items: Canonical corpus frame (host, published_at).
        hosts: The host set; a pair counts when both hosts are in it and differ.
        window_days: Keep-window on the publication dates.
        upper_bound: Unrelated-pair upper bound (a pair above it is flagged).
        max_rows: Best pairs kept for the listing; None keeps all.

    Examples:
        >>> items = pd.DataFrame({"host": ["a", "b", "a"],
        ...                       "published_at": ["2026-01-01", "2026-01-02", "2026-01-09"]})
        >>> tally = CrossTally(items, ("a", "b"), 3, 0.5)
        >>> tally.add(PairScores(np.array([0, 0, 1]), np.array([1, 2, 2]),
        ...                      np.array([0.9, 0.8, 0.4])))
        >>> tally.totals()
        CrossTotals(pairs=2, in_window=1, above_bound=1, max_score=0.9, max_in_window=0.9)
    """

    def __init__(self, items: pd.DataFrame, hosts: Sequence[str], window_days: int,
                 upper_bound: float, max_rows: int | None = None) -> None:
        """An empty tally (no pairs added)."""
        self.hosts = tuple(hosts)
        host = items["host"].to_numpy(dtype=object)
        # Each item's host as a number, -1 off the host set: a pair is a cross pair when both
        # numbers are >= 0 and differ (integer compares, not string ones, per pair).
        codes, _ = pd.factorize(host)
        self.host = np.where(np.isin(host, np.asarray(list(hosts), dtype=object)), codes, -1)
        self.dates = parse_dates(items).to_numpy()
        self.window_days, self.bound, self.max_rows = window_days, float(upper_bound), max_rows
        self.codes = np.zeros(_N_CODES, dtype=np.int64)
        self.pairs = self.in_window = self.above = 0
        self.max_score = self.max_in_window = 0.0
        z = np.zeros(0, dtype=np.int64)
        self._best = PairScores(z, z.copy(), np.zeros(0))
        self._pending: list[PairScores] = []
        self._pending_n = 0
        self._entry = -np.inf  # the k-th best score once k pairs are kept: lower ones never enter

    def flags(self, i: np.ndarray, j: np.ndarray, score: np.ndarray):
        """Days apart, within the window, above the bound: of each pair."""
        days = np.abs((self.dates[i] - self.dates[j]) / np.timedelta64(1, "D"))
        return days, days <= self.window_days, score > self.bound

    def add(self, pairs: PairScores) -> None:
        """Add the cross pairs among ``pairs`` (the others are left out)."""
        hi, hj = self.host[pairs.i], self.host[pairs.j]
        cross = (hi >= 0) & (hj >= 0) & (hi != hj)
        i, j, score = pairs.i[cross], pairs.j[cross], pairs.score[cross]
        if not len(score):
            return
        days, in_window, above = self.flags(i, j, score)
        self.codes += np.bincount(_bin_codes(score, days, in_window), minlength=_N_CODES)
        self.pairs += len(score)
        self.in_window += int(in_window.sum())
        self.above += int(above.sum())
        self.max_score = max(self.max_score, float(score.max()))
        if in_window.any():
            self.max_in_window = max(self.max_in_window, float(score[in_window].max()))
        self._offer(i, j, score)

    def _offer(self, i: np.ndarray, j: np.ndarray, score: np.ndarray) -> None:
        """Let the pairs compete for the best ``max_rows``; sorted when enough are waiting."""
        k = self.max_rows
        if k == 0:
            return
        enter = score >= self._entry  # ties may still enter: they are ordered by (i, j)
        self._pending.append(PairScores(i[enter], j[enter], score[enter]))
        self._pending_n += int(enter.sum())
        # Sorting the kept pairs with every block cost 11 s of 20 on 30,000 titles of one
        # template; sorting when four times as many wait makes it a fraction of the adds.
        if k is not None and self._pending_n >= max(4 * k, _MIN_PENDING):
            self._reduce()

    def _reduce(self) -> None:
        parts = [self._best, *self._pending]
        merged = PairScores(np.concatenate([p.i for p in parts]).astype(np.int64),
                            np.concatenate([p.j for p in parts]).astype(np.int64),
                            np.concatenate([p.score for p in parts]))
        k = self.max_rows
        keep = merged.top(len(merged) if k is None else k)
        self._best = PairScores(merged.i[keep], merged.j[keep], merged.score[keep])
        self._pending, self._pending_n = [], 0
        if k is not None and len(self._best) >= k > 0:
            self._entry = float(self._best.score[k - 1])

    @property
    def top(self) -> PairScores:
        """The best ``max_rows`` pairs added (None: all), best first (:meth:`PairScores.top`)."""
        if self._pending:
            self._reduce()
        return self._best

    def totals(self) -> CrossTotals:
        """Counts and maxima over every pair added."""
        return CrossTotals(self.pairs, self.in_window, self.above, self.max_score,
                           self.max_in_window)

    def bins(self) -> pd.DataFrame:
        """Pairs per score and days-apart bin (:func:`score_day_bins` of every pair added)."""
        codes = np.flatnonzero(self.codes)
        return _bins_frame(codes, self.codes[codes])


def cross_host(
    items: pd.DataFrame,
    scores: PairScores,
    hosts: Sequence[str] = DEFAULT_HOSTS,
    window_days: int = DEFAULT_WINDOW_DAYS,
    upper_bound: float | None = None,
    listing: CrossListing | None = None,
    max_rows: int | None = None,
) -> CrossHostReport:
    """Score the pairs of items on different hosts of ``hosts``.

    Args:
        items: Canonical corpus frame (id, title, summary, host, source, published_at).
        scores: Exact scores of all pairs ``i < j`` of ``items`` (the pairs the
            analysis picks from; n = 4 in the published run).
        hosts: The host set; a pair counts when both hosts are in it and differ.
        window_days: Keep-window on the publication dates, ``|d_i - d_j| <= window_days``.
        upper_bound: Unrelated-pair upper bound; defaults to the max of ``scores``.
        listing: Set when ``scores`` holds only the cross pairs at or above a
            floor: their exact counts (:class:`CrossListing`).
        max_rows: Keep only the best this many pairs in the report's ``pairs`` (with
            their texts); the counts and bins still cover every pair. None: all.

    Returns:
        A :class:`CrossHostReport`.
    """
    bound = scores.max() if upper_bound is None else float(upper_bound)
    tally = CrossTally(items, hosts, window_days, bound, max_rows)
    tally.add(scores)
    return tally_report(items, tally, listing)


def tally_report(items: pd.DataFrame, tally: CrossTally,
                 listing: CrossListing | None = None) -> CrossHostReport:
    """The :class:`CrossHostReport` of the pairs a :class:`CrossTally` was given.

    Args:
        items: The corpus frame the tally's pairs index.
        tally: The cross pairs, added.
        listing: Set when the tally holds only the cross pairs at or above a floor.
    """
    i, j, score = tally.top.i, tally.top.j, tally.top.score
    days, in_window, above = tally.flags(i, j, score)
    pairs = pd.DataFrame(
        {
            "rank": np.arange(1, len(score) + 1),
            "score": score,
            "days_apart": days,
            "in_window": in_window,
            "above_bound": above,
            "i": i,
            "j": j,
        }
    )
    for side, idx in (("i", i), ("j", j)):
        for col in ("id", "host", "published_at", "title", "summary"):
            pairs[f"{col}_{side}"] = items[col].to_numpy()[idx]

    source_by_host = (
        items.groupby(["source", "host"], sort=True).size().rename("count").reset_index()
    )
    return CrossHostReport(
        n_items=len(items),
        n_unique_ids=int(items["id"].nunique()),
        hosts=ordered_counts(items["host"].tolist(), "host"),
        sources=ordered_counts(items["source"].tolist(), "source"),
        source_by_host=source_by_host,
        focus_hosts=tally.hosts,
        pairs=pairs,
        upper_bound=tally.bound,
        window_days=tally.window_days,
        listing=listing,
        totals=tally.totals(),
        bins=tally.bins(),
    )
