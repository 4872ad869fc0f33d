"""The threshold join and the dedupe on Dask, with exactly the single-machine results.

Both paths split work so that no answer depends on where or in which order
the pieces ran; tests compare them with :func:`newsdedup.score.join.threshold_join`
and :func:`newsdedup.cluster.dedupe.dedupe` on the same corpus.

**Threshold join** (:func:`dask_threshold_join`). The join's index (items
sorted by size, rarity-ranked shingles, prefixes; :func:`~newsdedup.score.join.build_index`)
is built once and broadcast to the workers; each task joins one block of
rows against the later rows (:func:`~newsdedup.score.join.join_block`), the part
that grows like the number of candidate pairs. The client merges and sorts
the pairs by ``(i, j)``. The index is about three times the shingle matrix,
so it must fit on the client and on every worker; the candidate generation
and verification, which dominate, are spread.

**Dedupe** (:func:`dask_dedupe`). The near pass only compares items with the
same subject key (the gate) and the exact pass only merges equal normalized
headlines, so a partition that holds whole subject buckets *and* whole exact
groups can be deduplicated on its own. Rows are linked by their normalized
headline and their subject key; the connected components of that graph are
packed into partitions (largest first, onto the lightest partition). The IDF
of the near pass must be the batch's: each partition counts the document
frequencies of its exact-pass survivors, the counts are summed (a global
document-frequency aggregate, :meth:`~newsdedup.score.jaccard.DocumentFrequency.merge`)
and every partition weighs by that total (``reference``). Group numbers are
renumbered by first row across partitions, as :func:`~newsdedup.cluster.dedupe.dedupe`
numbers them.

Use a scheduler address for a real cluster (``Client("tcp://host:8786")``) or
a :class:`distributed.LocalCluster` on one machine.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from newsdedup.cluster.dedupe import (
    DedupeConfig,
    Headlines,
    RowsRead,
    corpus_series,
    dedupe,
    exact_stage,
    headlines,
)
from newsdedup.cluster.keep import keep_criteria
from newsdedup.score.jaccard import DocumentFrequency
from newsdedup.score.join import (
    DEFAULT_JOIN_BLOCK,
    JoinResult,
    build_index,
    join_block,
    merge_blocks,
)
from newsdedup.text.series import Series
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix

__all__ = ["dask_dedupe", "dask_threshold_join", "dedupe_partitions"]


def dask_threshold_join(
    shingled: ShingleMatrix, threshold: float, client, block: int = DEFAULT_JOIN_BLOCK
) -> JoinResult:
    """:func:`newsdedup.score.join.threshold_join` with the blocks run as Dask tasks.

    Args:
        shingled: Items as a shingle matrix.
        threshold: ``t`` in ``(0, 1]``.
        client: A :class:`distributed.Client`.
        block: Size-sorted rows per task.

    Returns:
        The same :class:`~newsdedup.score.join.JoinResult` as the single-machine join.
    """
    index = build_index(shingled, threshold)
    # hash=False: a key of its own per call. With hashed keys, scattering data equal to what
    # an earlier call just released can race that release and hang (dask/distributed
    # issues 8576 and 3703); the test's repeated small inputs met it under load.
    shared = client.scatter(index, broadcast=True, hash=False)
    ranges = index.blocks(block)
    futures = client.map(join_block, [shared] * len(ranges), [lo for lo, _ in ranges],
                         [hi for _, hi in ranges], pure=False)
    return merge_blocks(client.gather(futures), index.threshold)


def dedupe_partitions(
    items: pd.DataFrame, config: DedupeConfig, n_partitions: int,
    heads_of: Headlines | None = None
) -> np.ndarray:
    """Partition of every row such that subject buckets and exact groups stay whole.

    Args:
        items: The rows (``title`` needed).
        config: Dedupe settings (``scheme``, ``strip_outlet``, ``gate``, ``exact_pass``).
        n_partitions: Partitions wanted, ``>= 1``. Without the gate every row may
            meet every other, so there is a single partition.
        heads_of: :func:`~newsdedup.cluster.dedupe.headlines` of ``items`` when the
            caller has them (they cost a pass over the batch).

    Returns:
        ``int64`` partition per row, in ``[0, n_partitions)``.

    Examples:
        >>> df = pd.DataFrame({"title": ["삼성 전자 실적", "삼성전자 실적", "LG 신제품", "KT"]})
        >>> dedupe_partitions(df, DedupeConfig(), 2).tolist()  # rows 0 and 1: same headline
        [0, 0, 1, 1]
    """
    if n_partitions < 1:
        raise ValueError(f"n_partitions must be >= 1, got {n_partitions}")
    n = len(items)
    if not config.gate or n == 0:
        return np.zeros(n, dtype=np.int64)
    heads_of = heads_of if heads_of is not None else headlines(items, config)
    # Linked by the first token and by the refined key: a partition then holds every row of
    # a crowded lead token (and refines it as the whole batch does) and every row of the
    # bucket a refined row joins (gate.split_common_leads).
    # Exact groups are linked by their key (finer than the normalized headline).
    heads = heads_of.keys
    head_code, _ = pd.factorize(pd.Series(heads, dtype=object))
    # A blank key, or any headline without the exact pass, joins nothing by itself.
    alone = (pd.Series(heads) == "").to_numpy() | (not config.exact_pass)
    head_code = np.where(alone, head_code.max(initial=-1) + 1 + np.arange(n), head_code)
    key_code, _ = pd.factorize(pd.Series(list(heads_of.subjects) + list(heads_of.leads),
                                         dtype=object))
    n_heads = int(head_code.max()) + 1
    graph = sp.coo_matrix((np.ones(2 * n), (np.r_[head_code, head_code], n_heads + key_code)),
                          shape=(n_heads + int(key_code.max()) + 1,) * 2)
    _, comp = connected_components(graph, directed=False)
    comp_of_row = comp[head_code]
    # Pack components, largest first (ties: first row), onto the lightest partition.
    labels, sizes = np.unique(comp_of_row, return_counts=True)
    first = np.full(labels.size, n, dtype=np.int64)
    np.minimum.at(first, np.searchsorted(labels, comp_of_row), np.arange(n))
    load = np.zeros(n_partitions, dtype=np.int64)
    part_of = np.empty(labels.size, dtype=np.int64)
    for c in np.lexsort((first, -sizes)):  # a loop over components, not rows or pairs
        p = int(np.argmin(load))
        part_of[c] = p
        load[p] += sizes[c]
    return part_of[np.searchsorted(labels, comp_of_row)]


def _read(part: pd.DataFrame, config: DedupeConfig, heads: Headlines) -> RowsRead:
    """A partition's rows as its dedupe reads them, with the batch's subject keys."""
    return RowsRead(heads, keep_criteria(part, config.syndicators, config.opaque_hosts))


def _survivor_frequencies(part: pd.DataFrame, config: DedupeConfig, series: Series | None,
                          heads: Headlines) -> DocumentFrequency:
    """Document frequencies over the exact-pass survivors of one partition (titles)."""
    stage = exact_stage(part, config, series, _read(part, config, heads))
    texts = [stage.heads.heads[r] for r in stage.survivors.tolist()]
    return DocumentFrequency.from_shingles(shingle_matrix(texts, config.n))


def _dedupe_part(part: pd.DataFrame, config: DedupeConfig,
                 reference: DocumentFrequency | None, series: Series | None,
                 heads: Headlines) -> pd.DataFrame:
    return dedupe(part, config, reference=reference, series=series,
                  read=_read(part, config, heads)).items


def dask_dedupe(
    items: pd.DataFrame, config: DedupeConfig, client, n_partitions: int | None = None
) -> pd.DataFrame:
    """:func:`newsdedup.cluster.dedupe.dedupe` with the partitions deduplicated as Dask tasks.

    Args:
        items: One row per item (``title``, and what
            :func:`~newsdedup.cluster.dedupe.keep_rank` reads).
        config: Dedupe settings; ``text`` must be ``"title"`` (the survivors'
            texts, and hence the global IDF, are then known without ranking rows).
        client: A :class:`distributed.Client`.
        n_partitions: Partitions; default twice the workers.

    Returns:
        The same table as ``dedupe(items, config).items``: every input row, in
        input order, with its group (numbered by first row) and audit columns.

    Raises:
        ValueError: ``config.text`` other than ``"title"``.
    """
    if config.text != "title":
        raise ValueError("the Dask dedupe supports text='title' only: with summaries the "
                         "survivors' texts depend on the keep rank, so the global IDF would "
                         "need a second pass")
    n_partitions = n_partitions or 2 * max(1, len(client.scheduler_info()["workers"]))
    # The subject keys of the whole batch, read once: the partitions follow them, and each
    # partition's dedupe reads its rows' (whether a lead token is crowded depends on the
    # batch's size, gate.BucketLimits.crowded).
    heads = headlines(items, config)
    part = dedupe_partitions(items, config, n_partitions, heads)
    rows = [np.flatnonzero(part == p) for p in range(n_partitions)]
    rows = [r for r in rows if r.size]
    if not rows:
        return dedupe(items, config).items
    # A template's members have different subjects, so they fall in different partitions:
    # the series are learned once, on the whole corpus, and each partition reads its rows.
    series = corpus_series(items, config) if config.series else None
    part_series = [None if series is None else series.subset(r) for r in rows]
    part_heads = client.scatter([heads.subset(r) for r in rows], hash=False)
    # Scattered first: data passed inside the task graph is copied through the scheduler.
    parts = client.scatter([items.iloc[r] for r in rows], hash=False)
    reference = None
    if config.scorer == "idf":
        counts = client.map(_survivor_frequencies, parts, [config] * len(rows), part_series,
                            part_heads, pure=False)
        reference = client.submit(_merge_all, counts, pure=False)
    tables = client.gather(client.map(_dedupe_part, parts, [config] * len(rows),
                                      [reference] * len(rows), part_series, part_heads,
                                      pure=False))
    # Renumber groups by first row over all partitions, as dedupe numbers them.
    position = np.concatenate(rows)
    local = np.concatenate([t["group"].to_numpy() for t in tables])
    offset = np.repeat(np.cumsum([0] + [int(t["group"].max()) + 1 for t in tables])[:-1],
                       [len(t) for t in tables])
    key = local + offset
    first = np.full(int(key.max()) + 1, len(items), dtype=np.int64)
    np.minimum.at(first, key, position)
    renum = np.empty(first.size, dtype=np.int64)
    renum[np.argsort(first, kind="stable")] = np.arange(first.size)
    merged = pd.concat(tables).assign(group=renum[key])
    return merged.iloc[np.argsort(position, kind="stable")]


def _merge_all(tables: list[DocumentFrequency]) -> DocumentFrequency:
    total = tables[0]
    for t in tables[1:]:
        total = total.merge(t)
    return total
