"""Detector sensitivity by word dropout: the seed-004 "2단계" simulation.

How well does shingle Jaccard see a duplicate that was *rewritten*? The
published protocol (seed 004, ``calibrate.py``) fakes two write-ups of one
announcement by keeping each word of an item independently with probability
``f``, and scores the pair with character n-gram Jaccard:

* **both-sided**: two independent reductions ``a`` and ``b`` of the same item,
  ``J(sh(a), sh(b))`` -- two sites each paraphrasing the same source;
* **one-sided**: the whole text against one reduction, ``J(sh(w), sh(b))``.

Protocol details that the numbers depend on, all reproduced here:

* an item's words are ``item_text(title, summary).split()`` -- the *raw* text
  split on whitespace; items with fewer than ``min_words`` words are skipped;
* one ``random.Random(seed)`` stream drives everything: for each ``f`` in
  order, for each item, for each trial, one ``random()`` draw per word for
  ``a`` (in word order) and then one per word for ``b``; the one-sided loop
  continues the *same* stream afterwards (it is not reseeded) with one draw
  per word per trial;
* a reduction is normalized as ``scheme(" ".join(kept_words))``; two empty
  shingle sets have Jaccard 0.0 (the convention of :mod:`newsdedup.text.shingle`);
* statistics per ``f``: mean, population standard deviation, the 5th
  percentile as ``sorted(v)[len(v) // 20]``, and the minimum.

Three implementations, selected by :attr:`SensitivityConfig.method`:

``"reference"``
    :func:`simulate_reference`, a line-by-line transcription of the published
    script (Python ``random``, ``set`` shingles). Slow; the oracle.
``"exact"``
    :func:`simulate_exact`: the *same draws* (numpy's MT19937 seeded with the
    state of ``random.Random(seed)``) and the same numbers bit for bit, but
    vectorized. Reproduces the published table.
``"fast"``
    :func:`simulate_fast`: the vectorized engine fed by
    ``np.random.Generator(np.random.PCG64(seed))``. Statistically equivalent,
    not comparable draw for draw with the published numbers.

The vectorized engine works block by block (one block of items, one side, one
``f``). Its usual path packs each n-gram and the (pair, text) it belongs to
into one uint64 and builds those keys per kept *word* from per-word tables
(:class:`Packing`), then counts set sizes and intersections after a single
sort (:func:`packed_jaccard`). Schemes without a per-word normalization rule
and alphabets too large to pack fall back to a per-character path
(:func:`group_jaccard`). Blocks run on a few threads, but the random draws
are taken on the calling thread in protocol order and each block's values
depend only on its draws, so the results never depend on thread timing.

Examples:
    >>> texts = ["오픈AI가 새 추론 모델을 공개하고 API 가격을 절반으로 낮췄다"] * 3
    >>> p = SensitivityConfig(fractions=(1.0, 0.5), trials=4)
    >>> r = simulate(texts, p)
    >>> r.n_items_used, r.n_items_skipped
    (3, 0)
    >>> r.both[1.0].tolist() == [1.0] * 12
    True
    >>> bool((simulate_reference(texts, p).both[0.5] == r.both[0.5]).all())
    True
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from newsdedup.studies.sensitivity_batch import Batch
from newsdedup.studies.sensitivity_words import Packing, WordPieces, python_mt_generator
from newsdedup.text import MAX_NGRAM
from newsdedup.text.normalize import DEFAULT_SCHEME, get_scheme, item_text
from newsdedup.text.shingle import check_ngram, shingles

__all__ = [
    "METHODS",
    "PUBLISHED_FRACTIONS",
    "SensitivityConfig",
    "SensitivityResult",
    "simulate",
    "simulate_exact",
    "simulate_fast",
    "simulate_reference",
    "texts_from_items",
]

PUBLISHED_FRACTIONS: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
"""The word-keep fractions of the published table, in the published order."""

METHODS: tuple[str, ...] = ("exact", "reference", "fast")
"""Valid values of :attr:`SensitivityConfig.method`."""

# Upper bound on characters expanded at once by the vectorized engine; items
# are processed in consecutive blocks under this budget so memory stays a few
# tens of MB whatever the corpus size. Blocks follow the protocol order, so
# the random stream is consumed exactly as in the sequential loop.
_BLOCK_CHARS = 4_000_000

def _usable_cpus() -> int:
    """CPUs this process may run on (affinity-aware where the OS tells)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# Threads that compute blocks concurrently. numpy releases the GIL in sort,
# ufunc loops, gathers and bincount, so blocks of different fractions really
# run in parallel. The random draws are still taken on the calling thread in
# protocol order, and every block is a pure function of its keep flags, so the
# values never depend on thread timing. Capped at 4 because each running block
# holds tens of MB of temporaries.
_WORKERS = max(1, min(4, _usable_cpus()))


@dataclass(frozen=True)
class SensitivityConfig:
    """Settings of one sensitivity simulation (defaults = the published run).

    Attributes:
        fractions: Word-keep probabilities ``f``, run in this order (the order
            matters for ``"exact"``: it decides which draws each ``f`` gets).
        n: Character n-gram size.
        trials: Simulated pairs per item and fraction.
        seed: Seed of ``random.Random`` (``"reference"``, ``"exact"``) or of
            ``PCG64`` (``"fast"``).
        min_words: Items with fewer whitespace-separated words are skipped.
        scheme: Normalization scheme name, see :mod:`newsdedup.text.normalize`.
        method: ``"exact"``, ``"reference"`` or ``"fast"``; used by
            :func:`simulate`.

    Examples:
        >>> SensitivityConfig().fractions
        (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)
        >>> SensitivityConfig(method="slow")
        Traceback (most recent call last):
        ...
        ValueError: unknown method 'slow'; choose one of ('exact', 'reference', 'fast')
    """

    fractions: tuple[float, ...] = PUBLISHED_FRACTIONS
    n: int = 4
    trials: int = 20
    seed: int = 7
    min_words: int = 8
    scheme: str = DEFAULT_SCHEME
    method: str = "exact"

    def __post_init__(self) -> None:
        """Check the settings; raise ValueError naming the bad one."""
        # Normalize to a tuple of floats so results keyed by f compare and
        # hash the same whether the caller passed a list, ints or numpy floats.
        fracs = tuple(float(f) for f in self.fractions)
        object.__setattr__(self, "fractions", fracs)
        if not fracs:
            raise ValueError("fractions must not be empty")
        if len(set(fracs)) != len(fracs):
            raise ValueError(f"fractions must be distinct, got {fracs}")
        if any(not 0.0 <= f <= 1.0 for f in fracs):
            raise ValueError(f"fractions must lie in [0, 1], got {fracs}")
        if not 1 <= self.n <= MAX_NGRAM:
            check_ngram(self.n)  # raises, naming the range
        if self.trials < 1:
            raise ValueError(f"trials must be >= 1, got {self.trials}")
        if self.min_words < 0:
            raise ValueError(f"min_words must be >= 0, got {self.min_words}")
        get_scheme(self.scheme)  # raises ValueError listing the valid names
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; choose one of {METHODS}")


@dataclass(frozen=True, eq=False)
class SensitivityResult:
    """Raw Jaccard values of a simulation and the tables derived from them.

    Attributes:
        params: The settings; ``params.method`` names the implementation that
            actually produced the values.
        n_items_used: Items with at least ``min_words`` words.
        n_items_skipped: Items with fewer; ``used + skipped`` is the input size.
        both: ``f -> float64 array`` of both-sided Jaccard values in protocol
            order (item-major, trial-minor), length ``n_items_used * trials``.
        one: Same for the one-sided simulation.
    """

    params: SensitivityConfig
    n_items_used: int
    n_items_skipped: int
    both: dict[float, np.ndarray] = field(repr=False)
    one: dict[float, np.ndarray] = field(repr=False)

    def both_table(self) -> pd.DataFrame:
        """Published both-sided table: one row per ``f``.

        Returns:
            Columns ``f, pairs, mean, std, p5, min``; ``std`` is the population
            standard deviation and ``p5`` is ``sorted(v)[len(v) // 20]``, both
            as in the published script. Statistics are NaN when no item was used.
        """
        return pd.DataFrame(
            [{"f": f, **_stats(v, with_p5=True)} for f, v in self.both.items()],
            columns=["f", "pairs", "mean", "std", "p5", "min"],
        )

    def one_table(self) -> pd.DataFrame:
        """Published one-sided table: one row per ``f``.

        Returns:
            Columns ``f, pairs, mean, std, min`` (the published one-sided table
            has no percentile column).
        """
        return pd.DataFrame(
            [{"f": f, **_stats(v, with_p5=False)} for f, v in self.one.items()],
            columns=["f", "pairs", "mean", "std", "min"],
        )

    def caught_fraction(self, threshold: float, side: str = "both") -> pd.Series:
        """Share of simulated duplicates a Jaccard threshold would catch.

        Args:
            threshold: Decision threshold; a value counts as caught when
                ``value >= threshold`` (the dedupe rule's direction).
            side: ``"both"`` or ``"one"``.

        Returns:
            Float series indexed by ``f`` (index name ``"f"``); NaN for a
            fraction without values.

        Examples:
            >>> r = simulate(["가나다라 마바사아 자차카타 파하 가나 다라 마바 사아"],
            ...              SensitivityConfig(fractions=(1.0,), trials=2))
            >>> r.caught_fraction(0.99).tolist()
            [1.0]
        """
        if side not in ("both", "one"):
            raise ValueError(f"side must be 'both' or 'one', got {side!r}")
        values = self.both if side == "both" else self.one
        shares = {
            f: float(np.count_nonzero(v >= threshold) / v.size) if v.size else math.nan
            for f, v in values.items()
        }
        series = pd.Series(shares, dtype="float64", name=f"caught@{threshold:g}")
        series.index.name = "f"
        return series


def _stats(v: np.ndarray, with_p5: bool) -> dict[str, float]:
    """Mean, population std, [p5,] min of one fraction's values."""
    row: dict[str, float] = {"pairs": int(v.size)}
    if v.size == 0:
        row.update(mean=math.nan, std=math.nan, min=math.nan)
        if with_p5:
            row["p5"] = math.nan
        return row
    # fsum keeps the mean independent of summation order (np.mean's pairwise
    # sum and Python's sequential sum can differ in the last bits).
    mean = math.fsum(v.tolist()) / v.size
    row["mean"] = mean
    row["std"] = float(np.sqrt(np.mean((v - mean) ** 2)))
    if with_p5:
        # Not np.percentile: the published script indexes the sorted list.
        row["p5"] = float(np.sort(v)[v.size // 20])
    row["min"] = float(v.min())
    return row


def texts_from_items(items: pd.DataFrame) -> list[str]:
    """Item texts (``title``, one space, ``summary``) of a corpus table.

    Args:
        items: Table with ``title`` and ``summary`` columns, e.g.
            ``load_corpus(path).items``. Missing summaries count as empty.

    Returns:
        One raw, unnormalized text per row, in row order.

    Examples:
        >>> texts_from_items(pd.DataFrame({"title": ["제목"], "summary": ["요약 문장"]}))
        ['제목 요약 문장']
    """
    titles = items["title"].fillna("").astype(str)
    summaries = items["summary"].fillna("").astype(str)
    return [item_text(t, s) for t, s in zip(titles, summaries, strict=True)]


def split_items(texts: Iterable[str], min_words: int) -> tuple[list[list[str]], int]:
    """Word lists of the items that are long enough, and the skipped count.

    Args:
        texts: Raw item texts.
        min_words: Items with fewer whitespace-separated words are skipped.

    Returns:
        ``(used, skipped)``: the word lists (``text.split()``, raw as in the published
        script) of the kept items in order, and how many were skipped.

    Raises:
        TypeError: A text is not a ``str``.

    Examples:
        >>> split_items(["a b c", "d"], 2)
        ([['a', 'b', 'c']], 1)
    """
    used: list[list[str]] = []
    skipped = 0
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be str, got {type(text).__name__}: {text!r}")
        words = text.split()  # raw text, like the published script
        if len(words) < min_words:
            skipped += 1
        else:
            used.append(words)
    return used, skipped


def _jaccard(a: set[str], b: set[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def _frozen(values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    arr.setflags(write=False)  # results are frozen; don't let callers edit them
    return arr


# --------------------------------------------------------------------------
# Reference: the published script, transcribed.
# --------------------------------------------------------------------------


def simulate_reference(texts: Iterable[str], params: SensitivityConfig) -> SensitivityResult:
    """Run the protocol exactly as the published ``calibrate.py`` does.

    Pure Python: ``random.Random(seed)``, ``set`` shingles, one generated text
    at a time. This is the oracle the vectorized paths are tested against and
    the baseline of benchmarks; it ignores ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "reference"``.

    Examples:
        >>> r = simulate_reference(["a b c d e f g h"], SensitivityConfig(trials=2))
        >>> r.both[0.9].shape, r.one[0.3].shape
        ((2,), (2,))
    """
    norm = get_scheme(params.scheme)
    n = params.n
    used, skipped = split_items(texts, params.min_words)
    rnd = random.Random(params.seed)

    both: dict[float, np.ndarray] = {}
    for f in params.fractions:
        vals: list[float] = []
        for w in used:
            for _ in range(params.trials):
                a = [x for x in w if rnd.random() < f]
                b = [x for x in w if rnd.random() < f]
                vals.append(
                    _jaccard(shingles(norm(" ".join(a)), n), shingles(norm(" ".join(b)), n))
                )
        both[f] = _frozen(vals)

    # Same stream, not reseeded: the published one-sided numbers depend on it.
    one: dict[float, np.ndarray] = {}
    for f in params.fractions:
        vals = []
        for w in used:
            full = shingles(norm(" ".join(w)), n)
            for _ in range(params.trials):
                b = [x for x in w if rnd.random() < f]
                vals.append(_jaccard(full, shingles(norm(" ".join(b)), n)))
        one[f] = _frozen(vals)

    return SensitivityResult(
        params=replace(params, method="reference"),
        n_items_used=len(used),
        n_items_skipped=skipped,
        both=both,
        one=one,
    )


def _item_blocks(chars_per_item: np.ndarray) -> list[np.ndarray]:
    """Consecutive item ranges whose expanded size stays under the budget."""
    blocks, start, acc = [], 0, 0
    for i, c in enumerate(chars_per_item.tolist()):
        if acc and acc + c > _BLOCK_CHARS:
            blocks.append(np.arange(start, i))
            start, acc = i, 0
        acc += c
    blocks.append(np.arange(start, len(chars_per_item)))
    return [b for b in blocks if b.size]


def _simulate_vectorized(
    texts: Iterable[str],
    params: SensitivityConfig,
    draw: Callable[[int], np.ndarray],
    method: str,
) -> SensitivityResult:
    """The protocol, vectorized; ``draw(k)`` returns the next ``k`` uniforms."""
    used, skipped = split_items(texts, params.min_words)
    corpus = WordPieces(used, params.scheme)
    if corpus.sep is not None:
        ends = np.concatenate(([0], np.cumsum(corpus.piece_len)))
        item_chars = ends[corpus.word_off + corpus.n_words] - ends[corpus.word_off]
    else:
        item_chars = np.array([len(corpus.norm(" ".join(w))) for w in used], dtype=np.int64)
    blocks = _item_blocks(item_chars * (2 * params.trials))

    packing = Packing.build(corpus, params.n)

    # Both-sided first, then one-sided on the continuing stream; within a
    # phase fractions, then blocks in item order: exactly the draw order of
    # the published loops. The draws are taken here, in that order, and only
    # the pure per-block computations go to the pool.
    jobs: dict[str, dict[float, list[Future[np.ndarray]]]] = {}
    submitted: list[Future[np.ndarray]] = []
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        for side in ("both", "one"):
            batches = [
                Batch(corpus, items, params.trials, side, params.n, packing) for items in blocks
            ]
            jobs[side] = {}
            for f in params.fractions:
                jobs[side][f] = []
                for batch in batches:
                    # Keep flags of waiting blocks take memory (a byte per
                    # draw): stay at most a couple of blocks per thread ahead.
                    if len(submitted) >= 2 * _WORKERS:
                        submitted[-2 * _WORKERS].result()
                    job = pool.submit(batch.jaccard, batch.keep(draw, f))
                    jobs[side][f].append(job)
                    submitted.append(job)
        results = {
            side: {
                f: _frozen(np.concatenate([job.result() for job in parts]) if parts else [])
                for f, parts in by_f.items()
            }
            for side, by_f in jobs.items()
        }

    return SensitivityResult(
        params=replace(params, method=method),
        n_items_used=len(used),
        n_items_skipped=skipped,
        both=results["both"],
        one=results["one"],
    )


def simulate_exact(texts: Iterable[str], params: SensitivityConfig) -> SensitivityResult:
    """Vectorized protocol on the published random stream.

    Uses the draws of ``random.Random(params.seed)`` in the published order,
    so every value equals :func:`simulate_reference`'s bit for bit (and the
    defaults reproduce the published table); ignores ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "exact"``.

    Examples:
        >>> t = ["하나 둘 셋 넷 다섯 여섯 일곱 여덟 아홉"]
        >>> p = SensitivityConfig(trials=3)
        >>> np.array_equal(simulate_exact(t, p).one[0.5], simulate_reference(t, p).one[0.5])
        True
    """
    gen = python_mt_generator(params.seed)
    return _simulate_vectorized(texts, params, gen.random, "exact")


def simulate_fast(texts: Iterable[str], params: SensitivityConfig) -> SensitivityResult:
    """Vectorized protocol on numpy's own generator (PCG64).

    Same statistics, same layout and the same reproducibility for a given
    seed, but the draws differ from Python's ``random``: compare its tables
    with the published ones statistically, not digit for digit. Ignores
    ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Simulation settings.

    Returns:
        A :class:`SensitivityResult` with ``params.method == "fast"``.

    Examples:
        >>> r = simulate_fast(["하나 둘 셋 넷 다섯 여섯 일곱 여덟"], SensitivityConfig(trials=5))
        >>> list(r.both_table().columns)
        ['f', 'pairs', 'mean', 'std', 'p5', 'min']
    """
    gen = np.random.Generator(np.random.PCG64(params.seed))
    return _simulate_vectorized(texts, params, gen.random, "fast")


_DISPATCH: dict[str, Callable[[Iterable[str], SensitivityConfig], SensitivityResult]] = {
    "exact": simulate_exact,
    "reference": simulate_reference,
    "fast": simulate_fast,
}


def simulate(texts: Iterable[str], params: SensitivityConfig | None = None) -> SensitivityResult:
    """Run the simulation with the implementation named by ``params.method``.

    Args:
        texts: Raw item texts, ``item_text(title, summary)`` per item.
        params: Settings; ``None`` means the published run (``method="exact"``).

    Returns:
        The :class:`SensitivityResult`.

    Examples:
        >>> simulate(["짧은 글"]).n_items_skipped
        1
    """
    params = SensitivityConfig() if params is None else params
    return _DISPATCH[params.method](texts, params)
