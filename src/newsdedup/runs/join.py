"""``newsdedup join``: exact all-pairs Jaccard join at a threshold, without ``N x N``.

:func:`run_join` turns a corpus into a shingle matrix, picks the LSH banding
when asked, starts a Dask client when asked, and calls :func:`write_join`,
which runs :func:`newsdedup.score.join.threshold_join` (or its Dask twin) and
writes ``<out>/<name>/join/``: ``pairs.csv``, ``histogram.csv``, ``join.json``
and, on request, ``topk.csv`` and ``lsh_recall.csv``. Both paths write the
same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.runs.commit import commits
from newsdedup.runs.files import Progress, quiet, write_csv, write_json
from newsdedup.score.join import (
    HISTOGRAM_STEP,
    JoinResult,
    pair_histogram,
    threshold_join,
    top_k,
)
from newsdedup.score.lsh import Banding, choose_bands
from newsdedup.score.minhash import MinHashParams
from newsdedup.text.normalize import DEFAULT_SCHEME, item_texts
from newsdedup.text.shingle import ShingleMatrix, shingle_matrix


@dataclass(frozen=True)
class JoinOptions:
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

    def lsh(self) -> tuple[MinHashParams, Banding] | None:
        """The MinHash parameters and banding of the LSH recall study, or None."""
        if self.lsh_threshold is None:
            return None
        mh = (MinHashParams.published(self.num_perm) if self.minhash_family == "crc32-mersenne61"
              else MinHashParams.datasketch(self.num_perm))
        return mh, choose_bands(self.lsh_threshold, self.num_perm, self.lsh_recall)


@commits("join")
def run_join(corpus, name: str, out: Path, options: JoinOptions | None = None,
             progress: Progress = quiet) -> JoinResult:
    """Join a corpus at a threshold; writes ``<out>/<name>/join/``.

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult`.
        name: Results folder name.
        out: Results root.
        options: Threshold, texts, top-K, LSH and scheduler settings.
        progress: Progress callback.

    Returns:
        The :class:`~newsdedup.score.join.JoinResult`.
    """
    options = options or JoinOptions()
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
    lsh: tuple[MinHashParams, Banding] | None = None,
    client=None,
    progress: Progress = quiet,
) -> JoinResult:
    """Run the join; write ``pairs.csv``, ``histogram.csv``, ``join.json`` (``topk.csv``, LSH).

    Args:
        ids: Item ids, one per row of ``shingled``.
        shingled: Items as a shingle matrix.
        threshold: Join threshold in ``(0, 1]``.
        out_dir: Folder for the files (created).
        params: Settings to record beside the counts (corpus, n, scheme, text ...).
        k: Top-``k`` neighbours per item to write (0: none).
        lsh: ``(MinHashParams, Banding)`` to measure LSH recall per bin against the join.
        client: A :class:`distributed.Client` to run the join on Dask, or None.
        progress: Called with one-line status messages.

    Returns:
        The :class:`~newsdedup.score.join.JoinResult` (identical on both paths).

    Raises:
        ValueError: ``ids`` and ``shingled`` differ in length.
    """
    out = Path(out_dir)
    n = shingled.n_items
    if len(ids) != n:
        raise ValueError(f"{len(ids)} ids for {n} items")
    progress(f"joining {n} items at J >= {threshold} ({'Dask' if client else 'one machine'})")
    if client is None:
        result = threshold_join(shingled, threshold)
    else:
        from newsdedup.cluster.distributed import dask_threshold_join

        result = dask_threshold_join(shingled, threshold, client)
    p = result.pairs
    ida = np.asarray(ids, dtype=object)
    write_csv(pd.DataFrame({"i": p.i, "j": p.j, "id_i": ida[p.i], "id_j": ida[p.j],
                            "score": p.score}), out / "pairs.csv")
    edges = sorted(set(np.round(np.arange(threshold, 1.0, HISTOGRAM_STEP), 10).tolist() + [1.0]))
    counts, below = pair_histogram(p, edges, n * (n - 1) // 2)
    write_csv(pd.DataFrame({"lo": edges[:-1], "hi": edges[1:], "pairs": counts}),
              out / "histogram.csv")
    summary = {**params, "threshold": result.threshold, "n_items": n, "pairs": len(p),
               "pairs_below_threshold": below, "candidates": result.candidates,
               "verified": result.verified}
    if k:
        _write_top_k(p, ida, k, out / "topk.csv")
        summary["top_k"] = k
    if lsh is not None:
        summary.update(_write_lsh_recall(shingled, p, edges, lsh, out / "lsh_recall.csv",
                                         progress))
    write_json(summary, out / "join.json")
    progress(f"{len(p)} pairs at J >= {threshold} ({result.candidates} candidates, "
             f"{result.verified} verified); wrote {out}")
    return result


def _write_top_k(pairs, ida: np.ndarray, k: int, path: Path) -> None:
    """Write the ``k`` best neighbours of every item that has any."""
    n = len(ida)
    top = top_k(pairs, n, k)
    rows = np.repeat(np.arange(n), k)
    nb, sc = top.neighbour.ravel(), top.score.ravel()
    has = nb >= 0
    write_csv(pd.DataFrame({"i": rows[has], "rank": np.tile(np.arange(1, k + 1), n)[has],
                            "j": nb[has], "id_i": ida[rows[has]], "id_j": ida[nb[has]],
                            "score": sc[has]}), path)


def _write_lsh_recall(shingled: ShingleMatrix, pairs, edges: list[float],
                      lsh: tuple[MinHashParams, Banding], path: Path,
                      progress: Progress) -> dict:
    """Write MinHash LSH recall per score bin; return what ``join.json`` records of it."""
    from newsdedup.score.lsh import recall_by_bin
    from newsdedup.score.minhash import lsh_candidate_pairs, signatures

    mh, banding = lsh
    progress(f"LSH: {mh.family} k={mh.num_perm}, {banding.bands} bands x {banding.rows} rows")
    sigs = signatures(shingled, mh)
    cand = lsh_candidate_pairs(sigs, shingled.sizes == 0, banding.bands, banding.rows)
    write_csv(recall_by_bin(pairs, cand, shingled.n_items, edges, banding), path)
    return {"minhash": mh.as_dict(), "banding": banding.as_dict(), "lsh_candidates": len(cand)}
