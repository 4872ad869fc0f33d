"""``newsdedup evaluate clusters``: the dedupe module against story ids (UCI).

:func:`run_cluster_study` runs the dedupe per scorer, gate and threshold on a
corpus with story ids (:func:`newsdedup.evaluate.stories.cluster_study`) and
writes ``<out>/<name>/eval/``. With ``pairs_n`` it also writes the all-pairs
precision tables (:func:`write_story_tables`, what the retired
``evaluate-stories`` wrote).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from newsdedup.cluster.dedupe import DedupeConfig
from newsdedup.corpus.sts import load_stsb
from newsdedup.evaluate import pairs as ev
from newsdedup.evaluate.stories import (
    EMBEDDING_THRESHOLDS,
    cluster_study,
    evaluate_stories,
    sample_stories,
    study_scorers,
)
from newsdedup.runs.commit import commits
from newsdedup.runs.files import (
    Progress,
    corpus_meta,
    markdown_table,
    quiet,
    write_markdown,
    write_params,
    write_tables,
)
from newsdedup.score.embed import backend_identity, backend_label


@dataclass(frozen=True)
class ClusterStudyConfig:
    """Parameters of :func:`run_cluster_study` (all written to ``params.json``).

    Attributes:
        story_col: Story id column.
        stories: 0 for every story, otherwise a seeded sample of this many whole stories.
        sample_seed: Seed of the story sample.
        n: n-gram size of the dedupe runs.
        thresholds: Dedupe thresholds.
        examples_at: Threshold (one of ``thresholds``) of the false-merge and missed lists.
        top: Pairs in those lists.
        reference_corpora: Folder with ``stsb-en/``, whose news sentences give the
            reference IDF of the extra ``idf-ref`` runs; None for none.
        embeddings: Embedding backends whose cosine runs (``embedding-<backend>``) join the
            study; empty for none.
        embedding_thresholds: Their cosine thresholds.
        embedding_examples_at: Threshold (one of them) of their example lists.
    """

    story_col: str = "STORY"
    stories: int = 0  # 0: every story; otherwise a seeded sample of whole stories
    sample_seed: int = 0
    n: int = 3
    thresholds: tuple[float, ...] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    examples_at: float = 0.3
    top: int = 10
    reference_corpora: Path | None = None  # folder with stsb-en/: adds the "idf-ref" runs
    embeddings: tuple[str, ...] = ev.EMBEDDING_BACKENDS
    embedding_thresholds: tuple[float, ...] = EMBEDDING_THRESHOLDS
    embedding_examples_at: float = 0.9


@commits("evaluate-clusters")
def run_cluster_study(corpus, name: str, out: Path, options: ClusterStudyConfig | None = None,
                      progress: Progress = quiet, echo: bool = True,
                      pairs_n: int | None = None, embed_cache: Path | None = None
                      ) -> dict[str, pd.DataFrame]:
    """The dedupe module against story ids; writes ``<out>/<name>/eval/``.

    Files: ``runs.csv`` (per scorer, gate and threshold: items left, pairwise and B-cubed
    precision / recall), ``false_merges.csv``, ``missed.csv``, ``noise.csv`` (identical
    normalized headlines under different stories), ``summary.csv``, ``clusters.md`` and
    ``params.json`` (corpus with its rejected records, options, the dedupe configs).

    Args:
        corpus: A :class:`~newsdedup.corpus.load.LoadResult` with a story id column.
        name: Results folder name.
        out: Results root.
        options: Scorers' settings, thresholds, sample; the published ones by default.
        progress: Progress callback.
        echo: Print the runs table.
        pairs_n: When given, also :func:`write_story_tables` at this n-gram size for
            the same items, into ``<out>/<name>/evaluate/``.
        embed_cache: The corpus's embedding cache folder, or None (a temporary one).

    Returns:
        The tables written, by file stem.

    Raises:
        ValueError: The corpus has no ``options.story_col`` column.
    """
    options = options or ClusterStudyConfig()
    items = corpus.items
    if options.story_col not in items.columns:
        raise ValueError(f"{corpus.path}: no story column {options.story_col!r}; columns are "
                         f"{list(items.columns)}")
    if options.stories:
        items = sample_stories(items, options.stories, options.sample_seed, options.story_col)
    scorers = study_scorers()
    progress(f"clusters: {len(items)} items of {items[options.story_col].nunique()} stories, "
             f"scorers {list(scorers)} and embeddings {list(options.embeddings)}, gate off/on, "
             f"{len(options.thresholds)} thresholds")
    reference = _reference(options.reference_corpora, progress)
    tables = cluster_study(items, options.story_col, options.thresholds, scorers, n=options.n,
                           examples_at=options.examples_at, top=options.top, progress=progress,
                           reference=reference, embeddings=options.embeddings,
                           embedding_thresholds=options.embedding_thresholds,
                           embedding_examples_at=options.embedding_examples_at,
                           embed_cache=embed_cache)
    out_dir = out / name / "eval"
    write_tables(tables, out_dir)
    _write_params(corpus, name, out_dir, options, scorers, items, reference)
    runs = tables["runs"]
    show = ["scorer", "gate", "threshold", "items_left", "merged_pairs", "noise_merges",
            "pair_precision", "pair_precision_without_noise", "pair_recall", "bcubed_precision",
            "bcubed_recall"]
    sections = [
        ("Items", markdown_table(tables["summary"])),
        ("Dedupe runs against story ids (recall is bounded: a story is all coverage of "
         "an event, mostly rewrites)", markdown_table(runs[show], ".3f", {"threshold": ".2f"})),
        (f"Worst false merges at {options.examples_at:.2f} (embeddings: cosine "
         f"{options.embedding_examples_at:.2f})", markdown_table(tables["false_merges"], ".3f")),
        (f"Most similar missed same-story pairs at {options.examples_at:.2f} (embeddings: "
         f"cosine {options.embedding_examples_at:.2f})",
         markdown_table(tables["missed"], ".3f")),
        ("Label noise: identical normalized headlines under different story ids",
         markdown_table(tables["noise"], ".3f")),
    ]
    write_markdown(sections, out_dir / "clusters.md", f"Dedupe against story ids: {name}")
    if echo:
        print(f"{sections[1][0]}\n{sections[1][1]}\n")
    progress(f"clusters: wrote {out_dir}")
    if pairs_n is not None:
        write_story_tables(corpus, name, out, items, options.story_col, pairs_n, progress, echo)
    return tables


def _reference(corpora: Path | None, progress: Progress) -> pd.DataFrame | None:
    """English news sentences of STS-B (MSRpar, deft-news): same language, other outlets."""
    if corpora is None:
        return None
    folder = corpora / "stsb-en"
    sentences = ev.reference_sentences([load_stsb(folder / f"sts-{s}.csv")
                                        for s in ("train", "dev")])
    progress(f"clusters: reference IDF from {len(sentences)} STS-B news sentences")
    return pd.DataFrame({"title": sentences})


def _write_params(corpus, name: str, out_dir: Path, options: ClusterStudyConfig,
                  scorers: Sequence[str], items: pd.DataFrame,
                  reference: pd.DataFrame | None) -> None:
    """Write ``params.json`` of the cluster study."""
    configs = [asdict(DedupeConfig(threshold=options.examples_at, scorer=s, n=options.n))
               for s in scorers]
    for cfg in configs:
        cfg.pop("rationale", None)
        cfg.pop("threshold", None)
    minhash = DedupeConfig(scorer="minhash", n=options.n).minhash_params().as_dict()
    opts = asdict(options)
    # Recorded relative to the checkout: written files must not depend on where it lives.
    opts["reference_corpora"] = None if reference is None else "stsb-en (MSRpar, deft-news)"
    write_params({"corpus": corpus_meta(corpus, name), "options": opts,
                  "minhash": minhash if "minhash" in scorers else None,
                  "reference": None if reference is None else {"sentences": len(reference)},
                  "sampled_items": len(items),
                  "dedupe": {"configs": configs, "gate": [False, True],
                             "thresholds": list(options.thresholds)},
                  "embedding": [backend_identity(b) | {"role": "query", "scorer":
                                                       f"embedding-{backend_label(b)}"}
                                for b in options.embeddings]},
                 out_dir / "params.json")


def write_story_tables(corpus, name: str, out: Path, items: pd.DataFrame | None = None,
                       story_col: str = "STORY", n: int = 4, progress: Progress = quiet,
                       echo: bool = True) -> dict[str, pd.DataFrame]:
    """Precision of all-pairs n-gram Jaccard against story ids, without a dedupe.

    The tables of :func:`newsdedup.evaluate.stories.evaluate_stories`, written to
    ``<out>/<name>/evaluate/`` (``stories_{summary,distribution,metrics,bound}.csv``,
    ``stories.md``, ``stories_params.json``). Memory is ``O(N^2)``.

    Args:
        corpus: The :class:`~newsdedup.corpus.load.LoadResult` (recorded in the params).
        name: Results folder name.
        out: Results root.
        items: The items to score; ``corpus.items`` by default.
        story_col: Story id column.
        n: n-gram size.
        progress: Progress callback.
        echo: Print the tables.

    Returns:
        The tables, by name.

    Raises:
        ValueError: No ``story_col`` column.
    """
    items = corpus.items if items is None else items
    if story_col not in items.columns:
        raise ValueError(f"{corpus.path}: no story column {story_col!r}; columns are "
                         f"{list(items.columns)}")
    progress(f"evaluate: all pairs against {story_col!r} (n={n})")
    tables = evaluate_stories(items, story_col=story_col, n=n)
    out_dir = out / name / "evaluate"
    write_tables(tables, out_dir, "stories_")
    sections = [(key, markdown_table(tables[key], ".4f")) for key in tables]
    write_markdown(sections, out_dir / "stories.md", f"Story labels: {name}")
    write_params({"corpus": corpus_meta(corpus, name), "story_col": story_col, "n": n},
                 out_dir / "stories_params.json")
    if echo:
        for heading, body in sections:
            print(f"{heading}\n{body}\n")
    return tables
