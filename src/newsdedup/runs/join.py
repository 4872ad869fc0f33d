"""``newsdedup join``: exact all-pairs Jaccard join at a threshold, without ``N x N``.

:func:`run_join` turns a corpus into a shingle matrix, picks the LSH banding
when asked, starts a Dask client when asked, and calls :func:`write_join`,
which runs :func:`newsdedup.score.join.threshold_join` (or its Dask twin) and
writes ``<out>/<name>/join/``: ``pairs.parquet``, ``histogram.csv``, ``join.json``
and, on request, ``topk.csv`` and ``lsh_recall.csv``. Both paths write the
same bytes.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from newsdedup.progress import rate_line
from newsdedup.runs.commit import commits
from newsdedup.runs.files import Progress, quiet, write_csv, write_json
from newsdedup.score.bins import bin_of, check_edges
from newsdedup.score.jaccard import PairScores
from newsdedup.score.join import (
    HISTOGRAM_STEP,
    TopK,
    join_blocks,
    pair_histogram,
    stream_block,
    stream_kernel,
    top_k,
)
from newsdedup.score.lsh import Banding, choose_bands
from newsdedup.score.minhash import MinHashConfig
from newsdedup.text.normalize import DEFAULT_SCHEME, item_texts
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix


@dataclass(frozen=True)
class JoinConfig:
    """Options of the join run.

    Attributes:
        threshold: Jaccard threshold in ``(0, 1]``.
        n: Character n-gram size.
        text: What is compared: ``"title"`` or ``"title+summary"``.
        scheme: Normalization scheme.
        top_k: Best neighbours per item to write (0: none).
        scheduler: A Dask scheduler address, ``"local"`` for a local cluster, or
            None for one machine.
        lsh_threshold: Also measure MinHash LSH recall per bin, with banding chosen
            for this Jaccard value; None skips it.
        lsh_recall: Recall wanted at ``lsh_threshold`` (None: datasketch's optimiser).
        num_perm: MinHash permutations.
        minhash_family: ``"crc32-mersenne61"`` (published) or ``"datasketch"``.
    """

    threshold: float = 0.5
    n: int = 3
    text: str = "title"
    scheme: str = DEFAULT_SCHEME
    top_k: int = 0
    scheduler: str | None = None
    lsh_threshold: float | None = None
    lsh_recall: float | None = None
    num_perm: int = 128
    minhash_family: str = "crc32-mersenne61"

    def lsh(self) -> tuple[MinHashConfig, Banding] | None:
        """The MinHash parameters and banding of the LSH recall study, or None."""
        if self.lsh_threshold is None:
            return None
        mh = (MinHashConfig.published(self.num_perm) if self.minhash_family == "crc32-mersenne61"
              else MinHashConfig.datasketch(self.num_perm))
        return mh, choose_bands(self.lsh_threshold, self.num_perm, self.lsh_recall)


@commits("join")
def run_join(corpus, name: str, out: Path, options: JoinConfig | None = None,
             progress: Progress = quiet) -> dict:
    """Join a corpus at a threshold; writes ``<out>/<name>/join/``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Threshold, texts, top-K, LSH and scheduler settings.
        progress: Progress callback.

    Returns:
        What ``join.json`` holds (:func:`write_join`).
    """
    options = options or JoinConfig()
    items = corpus.items
    progress(f"shingling {len(items)} items (n={options.n}, {options.scheme})")
    shingled = shingle_matrix(item_texts(items, options.text, options.scheme), options.n)
    params: dict = {"corpus": name, "n": options.n, "scheme": options.scheme,
                    "text": options.text, "rejected_records": len(corpus.rejected)}
    client = None
    if options.scheduler:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(dashboard_address=":0") if options.scheduler == "local"
                        else options.scheduler)
        params["scheduler"] = options.scheduler
    try:
        return write_join(items["id"].astype(str).tolist(), shingled, options.threshold,
                          out / name / "join", params, k=options.top_k, lsh=options.lsh(),
                          client=client, progress=progress)
    finally:
        if client is not None:
            client.close()


def write_join(
    ids: list[str],
    shingled: ShingleMatrix,
    threshold: float,
    out_dir: Path,
    params: dict,
    k: int = 0,
    lsh: tuple[MinHashConfig, Banding] | None = None,
    client=None,
    progress: Progress = quiet,
) -> dict:
    """Run the join; write ``pairs.parquet``, ``histogram.csv``, ``join.json`` (``topk.csv``, LSH).

    The pairs are never all held: each join block's pairs are spilled to
    disk in ranges of ``i`` (:class:`PairSpill`), then each range is sorted
    by ``(i, j)`` and written as one Parquet row group while the histogram,
    the top-``k`` neighbours and the LSH recall are accumulated from it.
    Memory is ``O(N k + one block's pairs + one range's pairs)``, a range at most
    :data:`SPILL_MAX_PAIRS` pairs however many pairs pass.

    Args:
        ids: Item ids, one per row of ``shingled``.
        shingled: Items as a shingle matrix.
        threshold: Join threshold in ``(0, 1]``.
        out_dir: Folder for the files (created).
        params: Settings to record beside the counts (corpus, n, scheme, text ...).
        k: Top-``k`` neighbours per item to write (0: none).
        lsh: ``(MinHashConfig, Banding)`` to measure LSH recall per bin against the join.
        client: A :class:`distributed.Client` to run the join on Dask, or None.
        progress: Called with one-line status messages.

    Returns:
        What ``join.json`` holds (the pair count under ``"pairs"``); the same on both paths.

    Raises:
        ValueError: ``ids`` and ``shingled`` differ in length.
    """
    out = Path(out_dir)
    n = shingled.n_items
    if len(ids) != n:
        raise ValueError(f"{len(ids)} ids for {n} items")
    out.mkdir(parents=True, exist_ok=True)
    expected = expected_pairs(shingled, threshold)
    check_room(expected, threshold, out)
    progress(f"joining {n} items at J >= {threshold} ({'Dask' if client else 'one machine'}); "
             f"{expected.describe()}")
    edges = sorted(set(np.round(np.arange(threshold, 1.0, HISTOGRAM_STEP), 10).tolist() + [1.0]))
    ida = np.asarray(ids, dtype=object)
    candidates = verified = 0
    with tempfile.TemporaryDirectory(prefix=".join-spill-", dir=out) as tmp:
        spill = PairSpill(Path(tmp), n, SPILL_ROWS)
        if client is None:
            # Compiled from fewer shingles than threshold_join's "auto": numpy's block products
            # hold rows x window entries (1.3 GB on 20k templated English titles).
            kernel = stream_kernel(shingled)
            rows = _RowsDone(n, progress)
            for part in join_blocks(shingled, threshold, stream_block(n), progress=rows.follow,
                                    kernel=kernel):
                spill.add(part.pairs)
                candidates += part.candidates
                verified += part.verified
                rows.pairs += len(part.pairs)
                rows.tell()
        else:
            from newsdedup.cluster.distributed import dask_threshold_join

            result = dask_threshold_join(shingled, threshold, client)
            spill.add(result.pairs)
            candidates, verified = result.candidates, result.verified
            del result
        spill.close()
        stats = _write_ranges(spill, ida, edges, out / "pairs.parquet", k, lsh, shingled,
                              progress)
    counts = stats["histogram"]
    write_csv(pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "pairs": counts}),
              out / "histogram.csv")
    listed = int(counts.sum())
    summary = {**params, "threshold": float(threshold), "n_items": n, "pairs": listed,
               "pairs_below_threshold": n * (n - 1) // 2 - listed, "candidates": int(candidates),
               "verified": int(verified), "pairs_file": "pairs.parquet",
               "pairs_row_groups": stats["row_groups"]}
    if k:
        _write_top_k(stats["top"], ida, k, out / "topk.csv")
        summary["top_k"] = k
    if lsh is not None:
        summary.update(_write_lsh_recall(stats["lsh"], edges, lsh, out / "lsh_recall.csv"))
    write_json(summary, out / "join.json")
    progress(f"{listed:,} pairs at J >= {threshold} ({candidates:,} candidates, "
             f"{verified:,} verified); wrote {out} (pairs.parquet, {stats['row_groups']} row "
             "groups)")
    return summary


SAMPLE_PAIRS = 20_000
"""Uniform pairs scored before a join to estimate how many pairs it will list."""

SPILL_BYTES_PER_PAIR = 24
"""Bytes a listed pair takes in the join's spill files (``i``, ``j``, score: :data:`_PAIR`)."""


@dataclass(frozen=True)
class PairCount:
    """How many pairs a join is expected to list, from a uniform pair sample.

    Attributes:
        point: Estimated pairs at or above the threshold.
        low: Low end of its 95 % interval (Clopper-Pearson on the sample's share).
        high: High end.
        sampled: Pairs sampled (0: every pair counted, the corpus is that small).
    """

    point: float
    low: float
    high: float
    sampled: int

    def describe(self) -> str:
        """One line for the console."""
        if not self.sampled:
            return f"{self.point:,.0f} pairs at or above it"
        return (f"about {self.point:,.0f} pairs expected at or above it ({self.low:,.0f} to "
                f"{self.high:,.0f}, from {self.sampled:,} sampled pairs), about "
                f"{self.point * SPILL_BYTES_PER_PAIR / 1e9:,.1f} GB of spill files while it "
                "runs")


def expected_pairs(shingled: ShingleMatrix, threshold: float, sample: int = SAMPLE_PAIRS,
                   seed: int = 0) -> PairCount:
    """Pairs at or above ``threshold``, estimated from a seeded uniform sample of pairs.

    A feed of one template lists nearly all ``N(N-1)/2`` pairs, which no disk may
    hold at 100k items (5e9 pairs, 120 GB of spill): the estimate is told before
    any pair is written, and :func:`check_room` refuses what cannot fit.

    Examples:
        >>> from newsdedup.text.shingle import shingle_matrix
        >>> c = expected_pairs(shingle_matrix(["abcde", "abcdf", "xyz"], 3), 0.3)
        >>> c.point, c.sampled
        (1.0, 0)
    """
    from newsdedup.score.jaccard import pair_jaccard
    from newsdedup.studies.measure_streamed import pair_at
    from newsdedup.studies.quantiles import clopper_pearson

    n = shingled.n_items
    total = n * (n - 1) // 2
    if total <= sample:  # small: count them all
        i, j = np.triu_indices(n, 1)
        above = float(np.sum(pair_jaccard(shingled, i, j) >= threshold)) if total else 0.0
        return PairCount(above, above, above, 0)
    rng = np.random.default_rng(seed)
    i, j = pair_at(n, rng.integers(0, total, size=sample, dtype=np.int64))
    hits = int(np.sum(pair_jaccard(shingled, i, j) >= threshold))
    lo, hi = clopper_pearson(hits, sample, 0.95)
    return PairCount(total * hits / sample, total * lo, total * hi, sample)


class JoinTooLarge(ValueError):
    """A join whose pairs would not fit on the disk it writes to."""


def check_room(expected: PairCount, threshold: float, out: Path) -> None:
    """Refuse a join whose spill cannot fit on the disk under ``out``, even at the low estimate.

    Raises:
        JoinTooLarge: Naming the pairs, the bytes and the free space, and what to change.
    """
    need = expected.low * SPILL_BYTES_PER_PAIR
    free = shutil.disk_usage(out).free
    if need > free:
        raise JoinTooLarge(
            f"join at J >= {threshold:g} would list about {expected.point:,.0f} pairs (at "
            f"least {expected.low:,.0f}, from {expected.sampled:,} sampled pairs): at least "
            f"{need / 1e9:,.1f} GB of spill files, and {out} has {free / 1e9:,.1f} GB free. "
            "Titles from one template match each other: raise --threshold, or join a part "
            "of the corpus")


class _RowsDone:
    """Progress of a join: items whose pairs are done, rate, ETA and the pairs listed so far."""

    EVERY = 5.0
    """Seconds between two lines."""

    def __init__(self, n_items: int, progress: Progress) -> None:
        self.n, self.done, self.pairs = n_items, 0, 0
        self._say = progress
        self._start = self._last = time.monotonic()

    def follow(self, ranges: Iterator[tuple[int, int]]) -> Iterator[tuple[int, int]]:
        """The blocks' ``(lo, hi)`` rows as the join takes them (two run ahead)."""
        for lo, hi in ranges:
            yield lo, hi
            self.done = max(self.done, int(hi))

    def tell(self) -> None:
        """Say how far the join is, at most every :attr:`EVERY` seconds."""
        now = time.monotonic()
        if now - self._last < self.EVERY:
            return
        self._last = now
        self._say(rate_line("join", min(self.done, self.n), self.n, now - self._start, " items")
                  + f"; {self.pairs:,} pairs listed so far")


SPILL_ROWS = 2048
"""Items per range of ``i`` the join's pairs are spilled by (one Parquet row group each, several
when a range holds more than :data:`SPILL_MAX_PAIRS` pairs)."""

SPILL_MAX_PAIRS = 1_000_000
"""Most pairs a range is sorted and written in one piece (one Parquet row group).

Writing a piece costs about 300 bytes a pair (its sort, its ids as strings, the
Arrow table): 1M pairs are some 300 MB, 4M were 1.2 GB on top of the join.

A range holds ``SPILL_ROWS`` items' pairs: a few thousand on a feed of distinct titles,
but 40 million where every title matches every other (20,000 titles of one template at
J >= 0.5). A range over this is spilled again into narrower ranges of ``i``, read in
pieces of this many pairs, until each fits: memory stays this many pairs, whatever the
corpus."""

_PAIR = np.dtype([("i", "<i8"), ("j", "<i8"), ("score", "<f8")])


class PairSpill:
    """Pairs appended to one raw file per range of ``i`` (:data:`SPILL_ROWS` items each).

    Appending costs one block's pairs in memory; :meth:`parts` reads them back
    range by range, each sorted by ``(i, j)`` and at most ``max_pairs`` long
    (a crowded range is first split into narrower ones). Files are written in
    the order blocks arrive and read back sorted, so the result does not depend
    on the blocks (or the machine).

    Examples:
        >>> import tempfile
        >>> from newsdedup.score.jaccard import PairScores
        >>> with tempfile.TemporaryDirectory() as d:
        ...     spill = PairSpill(Path(d), n_items=4, rows=2, max_pairs=2)
        ...     spill.add(PairScores(np.array([2, 0, 1, 0]), np.array([3, 3, 2, 1]),
        ...                          np.array([0.5, 0.6, 0.7, 0.8])))
        ...     spill.close()
        ...     [(p.i.tolist(), p.j.tolist()) for p in spill.parts()]
        [([0, 0], [1, 3]), ([1], [2]), ([2], [3])]
    """

    def __init__(self, folder: Path, n_items: int, rows: int = SPILL_ROWS,
                 max_pairs: int | None = None, first: int = 0) -> None:
        """Spill into ``folder`` for items ``first .. first + n_items - 1``, ``rows`` per range.

        Args:
            folder: Where the range files go (created by the caller).
            n_items: How many items (values of ``i``) the spill covers.
            rows: Items of ``i`` per range.
            max_pairs: Most pairs :meth:`parts` yields at once (default
                :data:`SPILL_MAX_PAIRS`).
            first: The smallest ``i`` (a narrower spill of one crowded range).
        """
        self.folder, self.rows, self.first = folder, rows, first
        self.max_pairs = SPILL_MAX_PAIRS if max_pairs is None else max_pairs
        self.ranges = max(1, -(-n_items // rows))
        self._files: dict[int, BinaryIO] = {}

    def add(self, pairs: PairScores) -> None:
        """Append pairs ``(i, j, score)`` (``i < j``) to their ranges' files."""
        if not len(pairs):
            return
        part = (np.asarray(pairs.i, dtype=np.int64) - self.first) // self.rows
        order = np.argsort(part, kind="stable")
        rec = np.empty(len(order), dtype=_PAIR)
        rec["i"], rec["j"], rec["score"] = pairs.i[order], pairs.j[order], pairs.score[order]
        bounds = np.flatnonzero(np.r_[True, np.diff(part[order]) != 0, True])
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            r = int(part[order[a]])
            if r not in self._files:  # at most `ranges` files; opened on first use
                self._files[r] = open(self._path(r), "ab")  # noqa: SIM115
            self._files[r].write(rec[a:b].tobytes())

    def close(self) -> None:
        """Close the files (before reading)."""
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def _path(self, r: int) -> Path:
        return self.folder / f"{r:06d}.bin"

    def parts(self) -> Iterator[PairScores]:
        """Every range's pairs in ``i`` order, each sorted by ``(i, j)``, at most ``max_pairs``.

        An absent range yields an empty part (the caller decides what an empty range
        writes). A range over ``max_pairs`` is spilled again, ``max_pairs`` records at
        a time, into ranges narrow enough to hold about that many, and read from
        those (a single ``i`` is never split: one item's pairs are at most ``N``).
        """
        for r in range(self.ranges):
            path = self._path(r)
            size = path.stat().st_size // _PAIR.itemsize if path.exists() else 0
            if size <= self.max_pairs or self.rows == 1:
                rec = np.fromfile(path, dtype=_PAIR) if size else np.zeros(0, dtype=_PAIR)
                order = np.lexsort((rec["j"], rec["i"]))
                yield PairScores(rec["i"][order], rec["j"][order], rec["score"][order])
                continue
            narrower = path.with_suffix("")
            narrower.mkdir()
            rows = max(1, self.rows * self.max_pairs // size)
            sub = PairSpill(narrower, self.rows, rows, self.max_pairs,
                            first=self.first + r * self.rows)
            records = np.memmap(path, dtype=_PAIR, mode="r")
            for a in range(0, size, self.max_pairs):
                piece = np.array(records[a:a + self.max_pairs])
                sub.add(PairScores(piece["i"], piece["j"], piece["score"]))
            del records
            sub.close()
            path.unlink()  # its pairs are in the narrower files now
            yield from (p for p in sub.parts() if len(p))


def _write_ranges(spill: PairSpill, ida: np.ndarray, edges: list[float], path: Path, k: int,
                  lsh: tuple[MinHashConfig, Banding] | None, shingled: ShingleMatrix,
                  progress: Progress) -> dict:
    """Write the spilled pairs range by range; accumulate histogram, top-k and LSH recall."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = len(ida)
    schema = pa.schema([("i", pa.int64()), ("j", pa.int64()), ("id_i", pa.string()),
                        ("id_j", pa.string()), ("score", pa.float64())])
    counts = np.zeros(len(edges) - 1, dtype=np.int64)
    top = TopKAccumulator(n, k) if k else None
    recall = RecallAccumulator(shingled, edges, lsh, progress) if lsh is not None else None
    groups = 0
    # Tmp name inside the (staged) output folder, renamed when complete.
    partial = path.with_name(path.name + ".part")
    with pq.ParquetWriter(partial, schema) as writer:
        for p in spill.parts():
            if not len(p):
                continue  # an empty range writes nothing (an empty join: one empty group)
            writer.write_table(pa.table({"i": p.i, "j": p.j, "id_i": ida[p.i].astype(str),
                                         "id_j": ida[p.j].astype(str), "score": p.score},
                                        schema=schema))
            groups += 1
            counts += pair_histogram(p, edges, 0)[0]
            if top is not None:
                top.add(p)
            if recall is not None:
                recall.add(p)
        if not groups:
            writer.write_table(schema.empty_table())
            groups = 1
    partial.replace(path)
    return {"histogram": counts, "row_groups": groups, "top": top, "lsh": recall}


class TopKAccumulator:
    """The ``k`` best neighbours per item, merged from pairs given in parts.

    Equal to :func:`newsdedup.score.join.top_k` of all parts at once (the
    order, score descending then neighbour ascending, is total), in
    ``O(N k)`` memory.
    """

    def __init__(self, n_items: int, k: int) -> None:
        """Empty neighbour lists for ``n_items`` items."""
        self.n, self.k = n_items, k
        self.best = top_k(PairScores(np.zeros(0, np.int64), np.zeros(0, np.int64),
                                     np.zeros(0)), n_items, k)

    def add(self, pairs: PairScores) -> None:
        """Merge ``pairs`` into the neighbour lists."""
        have = self.best.neighbour >= 0
        src = np.repeat(np.arange(self.n), self.k)[have.ravel()]
        old_dst, old_sc = self.best.neighbour[have], self.best.score[have]
        # top_k counts a pair for both items: list the kept ones once per direction as
        # pairs (src, dst); src < dst or not, top_k reads both columns symmetrically.
        src_all = np.concatenate((pairs.i, pairs.j, src)).astype(np.int64)
        dst_all = np.concatenate((pairs.j, pairs.i, old_dst)).astype(np.int64)
        sc_all = np.concatenate((pairs.score, pairs.score, old_sc))
        order = np.lexsort((dst_all, -sc_all, src_all))
        src_all, dst_all, sc_all = src_all[order], dst_all[order], sc_all[order]
        start = np.searchsorted(src_all, np.arange(self.n))
        rank = np.arange(len(src_all)) - start[src_all]
        take = rank < self.k
        neighbour = np.full((self.n, self.k), -1, dtype=np.int64)
        score = np.full((self.n, self.k), np.nan)
        neighbour[src_all[take], rank[take]] = dst_all[take]
        score[src_all[take], rank[take]] = sc_all[take]
        self.best = TopK(neighbour=neighbour, score=score)


def _write_top_k(top: TopKAccumulator, ida: np.ndarray, k: int, path: Path) -> None:
    """Write the ``k`` best neighbours of every item that has any."""
    n = len(ida)
    nb, sc = top.best.neighbour.ravel(), top.best.score.ravel()
    rows = np.repeat(np.arange(n), k)
    has = nb >= 0
    write_csv(pd.DataFrame({"i": rows[has], "rank": np.tile(np.arange(1, k + 1), n)[has],
                            "j": nb[has], "id_i": ida[rows[has]], "id_j": ida[nb[has]],
                            "score": sc[has]}), path)


class RecallAccumulator:
    """LSH candidates of the join's items, and their recall per bin accumulated over parts."""

    def __init__(self, shingled: ShingleMatrix, edges: list[float],
                 lsh: tuple[MinHashConfig, Banding], progress: Progress) -> None:
        """Compute the candidates once (signatures, banding)."""
        from newsdedup.score.minhash import lsh_candidate_pairs, signatures

        mh, banding = lsh
        progress(f"LSH: {mh.family} k={mh.num_perm}, {banding.bands} bands x {banding.rows} "
                 "rows")
        sigs = signatures(shingled, mh)
        self.cand = lsh_candidate_pairs(sigs, shingled.sizes == 0, banding.bands, banding.rows)
        self.n, self.banding, self.mh = shingled.n_items, banding, mh
        self.edges = check_edges(edges)
        nb = len(self.edges) - 1
        self.true_n = np.zeros(nb, dtype=np.int64)
        self.found = np.zeros(nb, dtype=np.int64)
        self.expected = np.zeros(nb)

    def add(self, pairs: PairScores) -> None:
        """Count one part's true pairs, the candidates among them and their S-curve, per bin."""
        from newsdedup.score.lsh import candidate_probability

        if not len(pairs):
            return
        nb, cand = len(self.edges) - 1, self.cand
        linear = pairs.i.astype(np.int64) * self.n + pairs.j
        pos = np.searchsorted(cand, linear)
        hit = ((pos < len(cand)) & (cand[np.minimum(pos, len(cand) - 1)] == linear)
               if len(cand) else np.zeros(len(linear), bool))
        b = bin_of(pairs.score, self.edges)
        self.true_n += np.bincount(b, minlength=nb)
        self.found += np.bincount(b, weights=hit, minlength=nb).astype(np.int64)
        self.expected += np.bincount(b, weights=candidate_probability(
            pairs.score, self.banding.bands, self.banding.rows), minlength=nb)


def _write_lsh_recall(acc: RecallAccumulator | None, edges: list[float],
                      lsh: tuple[MinHashConfig, Banding], path: Path) -> dict:
    """Write MinHash LSH recall per score bin; return what ``join.json`` records of it."""
    mh, banding = lsh
    nb = len(edges) - 1
    true_n = acc.true_n if acc is not None else np.zeros(nb, dtype=np.int64)
    found = acc.found if acc is not None else np.zeros(nb, dtype=np.int64)
    expected = acc.expected if acc is not None else np.zeros(nb)
    out = pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "true_pairs": true_n,
                        "found": found})
    with np.errstate(invalid="ignore", divide="ignore"):
        out["recall"] = found / np.where(true_n > 0, true_n, np.nan)
        out["expected"] = expected / np.where(true_n > 0, true_n, np.nan)
    write_csv(out, path)
    return {"minhash": mh.as_dict(), "banding": banding.as_dict(),
            "lsh_candidates": len(acc.cand) if acc is not None else 0}
