"""Straightforward pure-Python versions of the measure and cross-host computations.

These are the yardsticks of ``bench_pipeline.py``: sets, loops over pairs
and Python integers, the way one would first write the computation. They
must produce the same numbers as the package (the benchmark checks).
"""

from __future__ import annotations

import itertools
import random
import zlib

from newsdedup.score.minhash import MERSENNE61
from newsdedup.text.normalize import hangul_alnum


def _sets(texts: list[str], n: int) -> list[set[str]]:
    return [{t[i : i + n] for i in range(len(t) - n + 1)} for t in texts]


def _jac(a: set, b: set) -> float:
    u = len(a | b)
    return len(a & b) / u if u else 0.0


def measure(rows: list[tuple[str, str, str]], ngrams=(3, 4, 5),
            thresholds=(0.7, 0.5, 0.4, 0.3, 0.2), num_perm: int = 128, seed: int = 42,
            top_k: int = 12, top_n: int = 4) -> dict:
    """rows: (id, title, summary). Returns per-n summary, threshold rows and the top pairs."""
    rnd = random.Random(seed)
    perms = [(rnd.randrange(1, MERSENNE61), rnd.randrange(0, MERSENNE61)) for _ in range(num_perm)]
    texts = [hangul_alnum(t + " " + s) for _, t, s in rows]
    pairs = list(itertools.combinations(range(len(rows)), 2))
    out = {}
    for n in ngrams:
        sets = _sets(texts, n)
        sigs = []
        for s in sets:
            hs = [zlib.crc32(g.encode()) for g in s]
            sigs.append([min(((a * h + b) % MERSENNE61 for h in hs), default=MERSENNE61)
                         for a, b in perms])
        exact = [_jac(sets[i], sets[j]) for i, j in pairs]
        est = [0.0 if not sets[i] or not sets[j]
               else sum(x == y for x, y in zip(sigs[i], sigs[j], strict=True)) / num_perm
               for i, j in pairs]
        err = [abs(a - b) for a, b in zip(est, exact, strict=True)]
        table = []
        for t in thresholds:
            real = {p for p, v in zip(pairs, exact, strict=True) if v >= t}
            cand = {p for p, v in zip(pairs, est, strict=True) if v >= t}
            table.append((t, len(real), len(cand), len(real & cand)))
        out[n] = {"mean_shingles": sum(map(len, sets)) / len(sets),
                  "err_mean": sum(err) / len(err), "err_max": max(err), "table": table,
                  "exact": exact}
    top = sorted(zip(out[top_n]["exact"], pairs, strict=True), reverse=True)[:top_k]
    return {"per_n": out, "top": [(v, i, j) for v, (i, j) in top]}


def crosshost(rows: list[tuple[str, str, str, str]], hosts=("deepmind.google", "blog.google"),
              n: int = 4) -> dict:
    """rows: (id, title, summary, host). Cross pairs of the host set and their scores."""
    sets = _sets([hangul_alnum(t + " " + s) for _, t, s, _ in rows], n)
    pairs = list(itertools.combinations(range(len(rows)), 2))
    bound = max(_jac(sets[i], sets[j]) for i, j in pairs)
    focus = set(hosts)
    cross = [(i, j) for i, j in pairs
             if rows[i][3] != rows[j][3] and {rows[i][3], rows[j][3]} <= focus]
    scored = sorted(((_jac(sets[i], sets[j]), i, j) for i, j in cross), reverse=True)
    return {"bound": bound, "n_cross": len(cross), "top": scored[:3],
            "above": sum(v > bound for v, _, _ in scored)}


def datasketch_dedupe(titles: list[str], threshold: float = 0.5, num_perm: int = 128,
                      n: int = 3) -> int:
    """The usual first dedupe: datasketch MinHash + MinHashLSH, union-find of what LSH proposes.

    Character ``n``-grams of each normalized title, one ``MinHash`` each
    (``num_perm`` permutations, built in bulk), every item inserted into a
    ``MinHashLSH`` at ``threshold`` and queried back; every proposed pair is
    merged (union-find with path halving). Returns the number of groups.
    """
    from datasketch import MinHash, MinHashLSH

    texts = [hangul_alnum(t) for t in titles]
    grams = [[t[i:i + n].encode("utf-8") for i in range(len(t) - n + 1)] or [b""]
             for t in texts]
    sketches = MinHash.bulk(grams, num_perm=num_perm)
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    for k, m in enumerate(sketches):
        lsh.insert(k, m)
    parent = list(range(len(texts)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for k, m in enumerate(sketches):
        for other in lsh.query(m):
            a, b = find(k), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return len({find(k) for k in range(len(texts))})
