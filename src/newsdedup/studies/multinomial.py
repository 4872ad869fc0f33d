"""Weighted multinomial draws, bit-identical to NumPy's ``Generator.multinomial``, compiled.

The cluster bootstrap of :func:`newsdedup.studies.merges.merge_estimate` draws
``rng.multinomial(G, p, size=R)`` over the ``K`` clusters holding decoys (plus one
pooled category) and only keeps ``draws[:, :-1] @ weights``. NumPy draws each
category with its own binomial (``R x K`` binomials, each with a ``log``, an
``exp`` and a ``sqrt``): at 100k items that is about 15M binomials per threshold
and most of the calibrate step.

:func:`multinomial_dot` returns the same numbers from the same random stream.
It runs NumPy's algorithm (``random_multinomial`` and the inversion branch of
``random_binomial`` of ``numpy/random/src/distributions/distributions.c``) in
numba on the generator's own bit generator, with two savings that change no
result: the ``log`` of each category's ``1 - p`` is computed once instead of
once per draw (it does not depend on the draw), and the inversion's bound
(which needs a ``sqrt``) is computed only when the count could exceed it.
When some category would take NumPy's other binomial branch (``p > 0.5`` or
``n p > 30``) the call falls back to ``rng.multinomial`` itself. Large calls
(:data:`SPLIT_MIN`) run their draws in slices on two threads: almost every
draw takes one uniform per category, so each slice starts on a copy of the
PCG64 generator jumped to its place in the stream (``advance``), and a slice
that meets an irregular draw sends the whole call back to the sequential
kernel. Tests compare every path with ``rng.multinomial`` draw by draw,
including the generator's state after.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np

INVERSION_MAX_NP = 30.0
"""NumPy's binomial uses inversion while ``n p <= 30`` (and ``p <= 0.5``)."""

SPLIT_MIN = 1 << 23
"""Binomials from which the compiled draws run in :data:`SPLIT_PARTS` slices on as many
threads (:func:`_split_draws`); below it a thread's start is a visible share."""

SPLIT_PARTS = 2

COMPILED_MIN = 1 << 20
"""Binomials (draws x categories) from which the compiled path runs; below it NumPy's
own call is quick, and the block commands on small corpora skip numba's import."""


def multinomial_dot(rng: np.random.Generator, n: int, pvals: np.ndarray, size: int,
                    weights: np.ndarray, compiled: bool | None = None) -> np.ndarray:
    """``rng.multinomial(n, pvals, size=size)[:, :-1] @ weights``, as ``int64``.

    Args:
        rng: The generator; it advances exactly as ``rng.multinomial`` would advance it.
        n: Trials per draw.
        pvals: Category probabilities (the last one takes what is left, as in NumPy).
        size: Number of draws.
        weights: ``int64`` weight of each category but the last.
        compiled: Use the numba path where it applies; None: from
            :data:`COMPILED_MIN` binomials on.

    Returns:
        ``int64`` array of ``size`` weighted sums.

    Examples:
        >>> p = np.array([0.2, 0.3, 0.5])
        >>> got = multinomial_dot(np.random.default_rng(3), 10, p, 4, np.array([1, 10]),
        ...                       compiled=True)
        >>> want = np.random.default_rng(3).multinomial(10, p, size=4)[:, :-1] @ [1, 10]
        >>> bool((got == want).all())
        True
    """
    pix = np.ascontiguousarray(pvals, dtype=np.float64)
    w = np.ascontiguousarray(weights, dtype=np.int64)
    if w.shape != (max(len(pix) - 1, 0),):
        raise ValueError(f"weights must have one value per category but the last, got {w.shape}")
    valid = bool(np.isfinite(pix).all() and (pix >= 0).all() and pix[:-1].sum() <= 1.0)
    if compiled is None:
        compiled = size * len(w) >= COMPILED_MIN
    if not compiled or not valid or n < 0 or not len(w):  # NumPy's own checks and errors
        return rng.multinomial(n, pix, size=size)[:, :-1] @ w
    p, logq = conditionals(pix)
    if not _inversion_only(p, n):
        return rng.multinomial(n, pix, size=size)[:, :-1] @ w
    out = np.zeros(size, dtype=np.int64)
    if size * len(w) >= SPLIT_MIN and _split_draws(rng, int(n), p, logq, w, out):
        return out
    _kernels()[1](rng, int(n), p, logq, w, out, False)
    return out


def _split_draws(rng: np.random.Generator, n: int, p: np.ndarray, logq: np.ndarray,
                 w: np.ndarray, out: np.ndarray, parts: int = 0) -> bool:
    """The draws in slices on as many threads, each slice at its own place in the stream.

    Almost every draw takes exactly one uniform per category (``len(p)``), so
    draw ``r`` starts ``r * len(p)`` uniforms into the stream, and PCG64 can
    jump there (``advance``) without drawing. Each slice runs on a copy of the
    generator so advanced and checks that its draws were regular; if one was
    not, nothing is kept and ``rng`` is untouched (False: the caller draws in
    sequence). Otherwise ``rng`` is advanced past every draw, as drawing in
    sequence would have left it. A generator of another kind, or one holding
    a buffered 32-bit half (which ``advance`` would discard), is not split.

    Args:
        rng: The generator of the call.
        n: Trials per draw.
        p: Conditional probability of each category but the last (:func:`conditionals`).
        logq: ``log(1 - p)``.
        w: Weight of each category but the last.
        out: The weighted sum of each draw, filled in place.
        parts: Slices (threads); :data:`SPLIT_PARTS` if 0.

    Returns:
        Whether the draws were made (else ``out`` is to be ignored and ``rng`` is untouched).
    """
    bits = rng.bit_generator
    # No trials or a category of probability 0: some draws take no uniform at all.
    if not isinstance(bits, np.random.PCG64) or n <= 0 or not (p > 0.0).all():
        return False
    state = bits.state
    if state["has_uint32"]:
        return False
    parts = parts or SPLIT_PARTS
    per_draw = len(p)
    edges = np.linspace(0, len(out), parts + 1).astype(np.int64).tolist()
    gens = []
    for lo in edges[:-1]:
        copy = np.random.PCG64()
        copy.state = state
        gens.append(np.random.Generator(copy.advance(lo * per_draw)))
    kernel = _kernels()[1]
    with ThreadPoolExecutor(max_workers=parts) as pool:  # the kernel releases the GIL
        jobs = [pool.submit(kernel, g, n, p, logq, w, out[lo:hi], True)
                for g, lo, hi in zip(gens, edges[:-1], edges[1:], strict=True)]
        regular = all([job.result() for job in jobs])
    if regular:
        bits.advance(len(out) * per_draw)
    return regular


def conditionals(pix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each category's binomial probability given the ones before, and ``log(1 - p)``.

    NumPy divides ``pix[j]`` by what is left of the probability (``1.0`` minus
    the earlier ``pix``, subtracted one by one); that sequence does not depend
    on the draw, so it is computed once.
    """
    return _kernels()[0](np.ascontiguousarray(pix, dtype=np.float64))


def _inversion_only(p: np.ndarray, n: int) -> bool:
    """Every category's binomial takes NumPy's inversion branch for any count ``<= n``."""
    return bool(len(p) == 0 or (p.max() <= 0.5 and (p * float(n)).max() <= INVERSION_MAX_NP))


@cache
def _kernels():
    """:func:`_conditionals` and :func:`_weighted_draws` compiled by numba on first use."""
    from newsdedup.paths import configure_numba_cache

    configure_numba_cache()  # before numba's import: it reads NUMBA_CACHE_DIR once
    from numba import njit

    # IEEE division in _conditionals, as NumPy's C does it: once the earlier categories hold
    # all the probability, what is left is 0 and ``pix[j] / 0`` is nan (or inf), which
    # _inversion_only sends to NumPy's own draw; numba's default would raise instead.
    return (njit(cache=True, error_model="numpy")(_conditionals),
            njit(cache=True, nogil=True)(_weighted_draws))


def _conditionals(pix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = pix.shape[0] - 1
    p = np.empty(max(d, 0))
    logq = np.empty(max(d, 0))
    remaining = 1.0
    for j in range(d):
        p[j] = pix[j] / remaining
        logq[j] = math.log(1.0 - p[j])
        remaining -= pix[j]
    return p, logq


def _weighted_draws(rng, n: int, p: np.ndarray, logq: np.ndarray, w: np.ndarray,
                    out: np.ndarray, regular: bool) -> bool:
    # Fills out[r] for r < len(out). With ``regular`` it stops (returning False) at the
    # first draw that does not take exactly one uniform per category: trials used up
    # before the last category, or an inversion restarted past its bound.
    for r in range(out.shape[0]):
        dn = n
        total = 0
        for j in range(p.shape[0]):
            x = 0
            pj = p[j]
            if dn != 0 and pj != 0.0:
                # random_binomial_inversion(dn, pj): the same operations in the same order.
                q = 1.0 - pj
                qn = math.exp(dn * logq[j])
                small = min(dn, 10)  # the bound is at least this: no sqrt needed below it
                bound = -1
                px = qn
                u = rng.random()
                while u > px:
                    x += 1
                    if x > small and bound < 0:
                        npq = dn * pj
                        bound = int(min(float(dn), npq + 10.0 * math.sqrt(npq * q + 1)))
                    if bound >= 0 and x > bound:
                        if regular:
                            return False
                        x = 0
                        px = qn
                        u = rng.random()
                    else:
                        u -= px
                        px = ((dn - x + 1) * pj * px) / (x * q)
            total += x * w[j]
            dn -= x
            if dn <= 0:
                if regular and j < p.shape[0] - 1:
                    return False
                break
        out[r] = total
    return True
