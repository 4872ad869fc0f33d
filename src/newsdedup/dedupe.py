"""Seed 000's dedupe pipeline: exact pass, then gated near-duplicate pass.

1. **Exact pass.** Items whose normalized headline (outlet suffix stripped) is
   identical form one group; no similarity is computed. Wire copies
   republished unchanged end here. This pass can only miss duplicates, never
   merge wrongly, and it shrinks the input of the second pass.
2. **Near pass** over one survivor per exact group. All-pairs scores
   (IDF-weighted Jaccard over the survivors, or plain Jaccard) come from one
   precomputed matrix; the subject gate (:mod:`newsdedup.gate`) masks pairs
   whose lead tokens differ; :func:`newsdedup.cluster.greedy_clusters` groups
   the survivors against representatives (no chain merges), with
   :func:`keep_rank` deciding which item represents a group.

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

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from newsdedup.cluster import Clustering, greedy_clusters
from newsdedup.corpus import host_of
from newsdedup.gate import gate_matrix, lead_token, strip_outlet
from newsdedup.normalize import get_scheme, item_text
from newsdedup.shingle import shingle_matrix
from newsdedup.similarity import jaccard_matrix, upper_pairs, weighted_jaccard_matrix

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
    "seed 000: 100 live '온디바이스 AI' headlines swept 0.45/0.40/0.35/0.30 -> "
    "84/83/81/77 items; all merged groups at 0.30 true duplicates; low only because "
    "the subject gate carries the precision"
)

SCORERS: tuple[str, ...] = ("idf", "jaccard")
TEXTS: tuple[str, ...] = ("title", "title+summary")
STAGES: tuple[str, ...] = ("exact", "near", "unique")

SYNDICATORS: tuple[str, ...] = ("v.daum.net", "news.naver.com", "news.nate.com")
OPAQUE_HOSTS: tuple[str, ...] = ("news.google.com",)


class CalibrationFileError(ValueError):
    """A calibration file that cannot supply a threshold."""


@dataclass(frozen=True)
class DedupeConfig:
    """Parameters of :func:`dedupe`.

    Attributes:
        threshold: Near pass joins at ``score >= threshold``.
        n: Character n-gram size.
        scorer: ``"idf"`` (IDF-weighted Jaccard, IDF over the near-pass batch)
            or ``"jaccard"``.
        gate: Apply the subject gate.
        text: What the near pass compares: ``"title"`` or ``"title+summary"``
            (title, one space, summary). The exact pass always uses the title.
        scheme: Normalization scheme (:data:`newsdedup.normalize.SCHEMES`);
            see the module docstring for why spaces are removed by default.
        exact_pass: Run the exact pass; if False every item enters the near pass.
        strip_outlet: Drop a trailing ``" - outlet"`` / ``" | outlet"`` from
            titles before comparing, so outlets' suffixes do not count as text.
        threshold_source: Where ``threshold`` came from: ``"default"`` or the
            path of the calibration file (set by :meth:`from_calibration`).
            Provenance only: :func:`dedupe` never reads the file itself, so a
            config is a plain value.
        rationale: Why this threshold, kept next to the number.

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
    strip_outlet: bool = True
    threshold_source: str = "default"
    rationale: str = field(default=DEFAULT_RATIONALE, compare=False)

    def __post_init__(self) -> None:
        if not math.isfinite(self.threshold):
            raise ValueError(f"threshold must be a finite number, got {self.threshold!r}")
        if self.n < 1:
            raise ValueError(f"n-gram size must be >= 1, got {self.n}")
        if self.scorer not in SCORERS:
            raise ValueError(f"unknown scorer {self.scorer!r}; choose one of {list(SCORERS)}")
        if self.text not in TEXTS:
            raise ValueError(f"unknown text {self.text!r}; choose one of {list(TEXTS)}")
        get_scheme(self.scheme)  # raises with the valid names

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
        threshold, rationale = load_threshold(path)
        params = json.loads(Path(path).read_text(encoding="utf-8")).get("parameters") or {}
        adopted = {
            "n": params.get("n"),
            "scorer": params.get("scorer"),
            "text": params.get("text"),
            "scheme": params.get("normalization"),
        }
        adopted = {k: v for k, v in adopted.items() if v is not None}
        return cls(threshold=threshold, rationale=rationale, threshold_source=str(path),
                   **(adopted | overrides))


def load_threshold(path: str | Path) -> tuple[float, str]:
    """Read ``recommended_threshold`` and ``rationale`` from a calibration JSON file.

    Both keys must be at the top level of a JSON object. Other keys (the
    evidence :mod:`newsdedup.calibration` writes) are ignored.

    Args:
        path: The file.

    Returns:
        ``(threshold, rationale)``.

    Raises:
        FileNotFoundError: The file does not exist.
        CalibrationFileError: Not JSON, not an object, a key missing, or no
            usable threshold (e.g. ``null`` when calibration found no band);
            the message names the file.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CalibrationFileError(f"{p}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CalibrationFileError(f"{p}: expected a JSON object at the top level")
    missing = [k for k in ("recommended_threshold", "rationale") if k not in data]
    if missing:
        raise CalibrationFileError(f"{p}: missing top-level key(s) {', '.join(missing)}")
    value, rationale = data["recommended_threshold"], data["rationale"]
    if not isinstance(rationale, str):
        raise CalibrationFileError(f"{p}: rationale must be a string")
    if value is None:
        raise CalibrationFileError(f"{p}: no threshold was recommended: {rationale}")
    # bool is an int subclass; true/false is a mistake, not a threshold.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CalibrationFileError(f"{p}: recommended_threshold must be a number, got {value!r}")
    return float(value), rationale


def _matches(host: str, domains: Sequence[str]) -> bool:
    # m.news.naver.com is news.naver.com: match the domain or any subdomain.
    return bool(host) and any(host == d or host.endswith("." + d) for d in domains)


def _column(items: pd.DataFrame, name: str) -> list[str]:
    if name not in items.columns:
        return [""] * len(items)
    return ["" if pd.isna(v) else str(v) for v in items[name]]


def _timestamps(items: pd.DataFrame) -> np.ndarray:
    """``published_at`` as UTC seconds; ``-inf`` where missing or unparsable.

    Recency only breaks ties between otherwise equal candidates, so an
    unreadable date ranks as oldest instead of failing the dedupe.
    """
    raw = pd.Series(_column(items, "published_at"), dtype=object)
    out = np.full(len(raw), -np.inf)
    # All-digit values of 11+ digits are epoch milliseconds (UCI aggregator).
    ms = raw.str.fullmatch(r"\d{11,}").to_numpy(dtype=bool)
    if ms.any():
        out[ms] = raw[ms].astype(np.int64).to_numpy() / 1000.0
    rest = ~ms & (raw != "").to_numpy(dtype=bool)
    if rest.any():
        parsed = pd.to_datetime(raw[rest], utc=True, errors="coerce", format="mixed")
        secs = (parsed - pd.Timestamp(0, tz="UTC")).dt.total_seconds().to_numpy()
        out[rest] = np.where(np.isnan(secs), -np.inf, secs)
    return out


def keep_rank(
    items: pd.DataFrame,
    syndicators: Sequence[str] = SYNDICATORS,
    opaque_hosts: Sequence[str] = OPAQUE_HOSTS,
) -> np.ndarray:
    """How good each item is as a group's representative; higher is better.

    The rules of the exact-match dedupe, in priority order: the original
    outlet over a syndicator (``v.daum.net``, ``news.naver.com``, ...); a
    direct link over an opaque one (Google News redirect URLs hide the
    outlet); the newer over the older (``published_at``).

    The host is read from the ``host`` column and from the ``url``; an item is
    a syndicated copy if either is a syndicator (or a subdomain of one). The
    link is opaque when the URL's host is an opaque host, or when no host is
    known at all (nothing to link to). Missing columns count as empty.

    Args:
        items: Frame with any of ``host``, ``url``, ``published_at``.
        syndicators: Hosts that republish other outlets' articles.
        opaque_hosts: Hosts whose links hide the original outlet.

    Returns:
        ``int64`` dense rank per row. Equal criteria give equal ranks, so the
        clustering keeps the earlier item (stable).

    Examples:
        >>> df = pd.DataFrame({"url": ["https://v.daum.net/v/1", "https://news.google.com/x",
        ...                            "https://www.inews365.com/a"],
        ...                    "published_at": ["2025-05-02", "2025-05-01", "2025-05-01"]})
        >>> keep_rank(df).tolist()
        [0, 1, 2]
    """
    hosts = _column(items, "host")
    url_hosts = [host_of(u) for u in _column(items, "url")]
    syndicated = np.array([_matches(h, syndicators) or _matches(u, syndicators)
                           for h, u in zip(hosts, url_hosts, strict=True)], dtype=bool)
    link = [u or h for h, u in zip(hosts, url_hosts, strict=True)]
    opaque = np.array([not lk or _matches(lk, opaque_hosts) for lk in link], dtype=bool)
    if len(items) == 0:
        return np.zeros(0, dtype=np.int64)
    keys = np.column_stack([(~syndicated).astype(np.float64), (~opaque).astype(np.float64),
                            _timestamps(items)])
    # np.unique over rows sorts lexicographically, first column most significant:
    # the inverse is exactly the dense rank of the criteria tuple.
    _, dense = np.unique(keys, axis=0, return_inverse=True)
    return dense.reshape(-1).astype(np.int64)


@dataclass(frozen=True)
class _Prepared:
    """Everything of a dedupe that does not depend on the threshold."""

    exact_id: np.ndarray  # exact group per row, numbered by first member
    survivors: np.ndarray  # row of each exact group's representative
    leads: list[str]  # lead token per row
    rank: np.ndarray  # keep_rank per row
    scores: np.ndarray  # near-pass scores between survivors
    allowed: np.ndarray | None  # gate between survivors


def _titles(items: pd.DataFrame, config: DedupeConfig) -> list[str]:
    titles = _column(items, "title")
    return [strip_outlet(t) for t in titles] if config.strip_outlet else titles


def _prepare(items: pd.DataFrame, config: DedupeConfig) -> _Prepared:
    if "title" not in items.columns:
        raise ValueError("items need a 'title' column")
    if config.text == "title+summary" and "summary" not in items.columns:
        raise ValueError("text='title+summary' needs a 'summary' column")
    norm = get_scheme(config.scheme)
    titles = _titles(items, config)
    heads = [norm(t) for t in titles]
    rank = keep_rank(items)
    n_rows = len(items)

    # Exact groups numbered by their first row, so the near pass visits them in
    # input order. An empty normalized headline says nothing about identity:
    # such rows stay apart.
    exact_id = np.empty(n_rows, dtype=np.int64)
    first_of: dict[str, int] = {}
    n_exact = 0
    for row, head in enumerate(heads):
        if config.exact_pass and head:
            if head in first_of:
                exact_id[row] = first_of[head]
                continue
            first_of[head] = n_exact
        exact_id[row] = n_exact
        n_exact += 1

    # The best-ranked row represents its exact group; ties keep the first row.
    order = np.lexsort((np.arange(n_rows), -rank, exact_id))
    starts = np.searchsorted(exact_id[order], np.arange(n_exact), side="left")
    survivors = order[starts].astype(np.int64)

    if config.text == "title":
        texts = [heads[r] for r in survivors]
    else:
        summaries = _column(items, "summary")
        texts = [norm(item_text(titles[r], summaries[r])) for r in survivors]
    shingled = shingle_matrix(texts, config.n)
    # IDF over the survivors only: wire copies removed by the exact pass would
    # otherwise inflate document frequencies of the stories they repeat.
    scores = weighted_jaccard_matrix(shingled) if config.scorer == "idf" \
        else jaccard_matrix(shingled)
    leads = [lead_token(t) for t in _column(items, "title")]
    allowed = gate_matrix([leads[r] for r in survivors]) if config.gate else None
    return _Prepared(exact_id=exact_id, survivors=survivors, leads=leads, rank=rank,
                     scores=scores, allowed=allowed)


def _near(prep: _Prepared, threshold: float) -> Clustering:
    return greedy_clusters(prep.scores, threshold, allowed=prep.allowed,
                           rank=prep.rank[prep.survivors])


@dataclass(frozen=True)
class DedupeResult:
    """Outcome of :func:`dedupe`.

    Attributes:
        items: The input rows (same index and order) plus:
            ``group`` (``int64``, numbered by first row), ``is_representative``
            (the row kept for its group), ``stage`` (how the row matches its
            representative: ``"exact"`` same normalized headline, the
            representative included when it has such a twin; ``"near"``
            matched by similarity; ``"unique"`` alone in its group),
            ``score_to_rep`` (near-pass score of the row's exact-group
            representative against the group representative; 1.0 when that is
            the same row, which covers exact twins and the representative) and
            ``lead`` (the gate key). Because a better-ranked newcomer replaces
            the representative, ``score_to_rep`` of an earlier member can be
            below the threshold; ``clustering.join_scores`` has the score it
            matched when it joined.
        config: The configuration used.
        clustering: The final grouping over all rows (positions, not index
            labels); ``joined_to``/``join_scores`` record each row's join:
            the exact-group representative with 1.0, or the near-pass
            representative and score, NaN for founders.
    """

    items: pd.DataFrame
    config: DedupeConfig
    clustering: Clustering

    def kept(self) -> pd.DataFrame:
        """The representative rows, in input order."""
        return self.items[self.items["is_representative"].to_numpy()]

    def groups(self) -> pd.DataFrame:
        """One row per group: group, size, representative (id), title, members (ids).

        Ids come from the ``id`` column, or the index when there is none.
        """
        ids = (self.items["id"] if "id" in self.items.columns
               else self.items.index.to_series()).tolist()
        titles = _column(self.items, "title")
        reps = self.clustering.representatives
        return pd.DataFrame({
            "group": np.arange(self.clustering.n_groups, dtype=np.int64),
            "size": self.clustering.sizes(),
            "representative": [ids[r] for r in reps],
            "title": [titles[r] for r in reps],
            "members": [[ids[m] for m in g] for g in self.clustering.groups()],
        })


def _assemble(items: pd.DataFrame, config: DedupeConfig, prep: _Prepared,
              near: Clustering) -> DedupeResult:
    exact_id, survivors = prep.exact_id, prep.survivors
    n_rows = len(items)
    labels = near.labels[exact_id] if n_rows else np.zeros(0, dtype=np.int64)
    reps_pos = near.representatives  # survivor positions of final representatives
    reps = survivors[reps_pos]
    is_rep = np.zeros(n_rows, dtype=bool)
    is_rep[reps] = True

    sizes = np.bincount(labels, minlength=near.n_groups)
    exact_sizes = np.bincount(exact_id, minlength=survivors.size)
    rep_exact = exact_id[reps][labels]  # exact group of each row's representative
    stage = np.where(sizes[labels] == 1, "unique",
                     np.where((exact_id == rep_exact) & (exact_sizes[exact_id] > 1),
                              "exact", "near"))
    # exact_id is also the survivor position of the row's exact representative.
    score = prep.scores[exact_id, reps_pos[labels]] if n_rows else np.zeros(0)
    score = np.where(exact_id == rep_exact, 1.0, score)

    join_scores = np.where(survivors[exact_id] == np.arange(n_rows), np.nan, 1.0)
    joined_to = np.where(survivors[exact_id] == np.arange(n_rows), -1, survivors[exact_id])
    join_scores[survivors] = near.join_scores
    joined_to[survivors] = np.where(near.joined_to >= 0,
                                    survivors[np.maximum(near.joined_to, 0)], -1)

    out = items.assign(group=labels.astype(np.int64), is_representative=is_rep,
                       stage=stage.astype(object), score_to_rep=score.astype(np.float64),
                       lead=prep.leads)
    clustering = Clustering(labels=labels.astype(np.int64), representatives=reps,
                            join_scores=join_scores, joined_to=joined_to.astype(np.int64))
    return DedupeResult(items=out, config=config, clustering=clustering)


def dedupe(items: pd.DataFrame, config: DedupeConfig | None = None) -> DedupeResult:
    """Group duplicate news items: exact pass, then gated greedy near pass.

    Args:
        items: One row per item; needs ``title``, uses ``summary`` (with
            ``text="title+summary"``), ``host``/``url``/``published_at`` (for
            :func:`keep_rank`) and ``id`` (for :meth:`DedupeResult.groups`).
        config: Parameters; :class:`DedupeConfig` defaults when None.

    Returns:
        The :class:`DedupeResult`; every input row appears exactly once.

    Examples:
        >>> df = pd.DataFrame({"id": ["a", "b", "c"], "title": [
        ...     "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수 - 충청일보",
        ...     "진천군 온디바이스 AI기반 스마트돌봄 본격화",
        ...     "어드밴트, 온디바이스 AI 서비스 실증·확산 사업 참여"]})
        >>> dedupe(df).items[["group", "stage", "lead"]].values.tolist()
        [[0, 'near', '진천군'], [0, 'near', '진천군'], [1, 'unique', '어드밴트']]
    """
    config = config or DedupeConfig()
    prep = _prepare(items, config)
    return _assemble(items, config, prep, _near(prep, config.threshold))


def sweep_items_left(
    items: pd.DataFrame, thresholds: Sequence[float], config: DedupeConfig | None = None
) -> pd.DataFrame:
    """Items left after dedupe at each threshold (seed 000's calibration table).

    Normalization, the exact pass, the score matrix and the gate are computed
    once; only the greedy clustering is rerun per threshold.

    Args:
        items: As for :func:`dedupe`.
        thresholds: Thresholds to try (``config.threshold`` is ignored).
        config: Everything else; defaults when None.

    Returns:
        Columns ``threshold``; ``pairs_at_or_above`` (near-pass pairs, i.e.
        between exact-pass survivors, with ``score >= threshold``);
        ``allowed_pairs_at_or_above`` (those the gate lets through, equal to
        the former without the gate); ``items_left`` (groups after dedupe).

    Examples:
        >>> df = pd.DataFrame({"title": ["진천군, 스마트 돌봄 구축 착수",
        ...                              "진천군 스마트돌봄 구축 본격화", "화성시 화재감지"]})
        >>> sweep_items_left(df, [0.9, 0.3], DedupeConfig(scorer="jaccard"))
           threshold  pairs_at_or_above  allowed_pairs_at_or_above  items_left
        0        0.9                  0                          0           3
        1        0.3                  1                          1           2
    """
    config = config or DedupeConfig()
    prep = _prepare(items, config)
    t = np.asarray(thresholds, dtype=np.float64)
    pairs = upper_pairs(prep.scores)
    if prep.allowed is None:
        allowed_pairs = pairs
    else:
        keep = prep.allowed[pairs.i, pairs.j]
        allowed_pairs = type(pairs)(pairs.i[keep], pairs.j[keep], pairs.score[keep])
    return pd.DataFrame({
        "threshold": t,
        "pairs_at_or_above": pairs.count_at_or_above(t),
        "allowed_pairs_at_or_above": allowed_pairs.count_at_or_above(t),
        "items_left": np.array([_near(prep, float(x)).n_groups for x in t], dtype=np.int64),
    })
