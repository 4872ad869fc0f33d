"""The Korean font of the figures and the report: NanumGothic, from a Python package.

Korean headlines, sources and templates must render in the figures and in the
report's HTML page on any machine, offline. The font comes from the
``koreanize-matplotlib`` wheel on PyPI (a dependency of this package), which
ships NanumGothic (SIL Open Font License) as a plain file; nothing is
downloaded at run time and no system font is needed.

* :func:`korean_text` is the matplotlib context the figures are drawn and
  saved in: DejaVu Sans first (so Latin text looks as before) with NanumGothic
  as the fallback for every glyph DejaVu lacks (Hangul, Hanja).
* :func:`font_face_css` is the ``@font-face`` rule embedded in the HTML
  report: the font subset to the characters the page uses, base64-encoded, so
  the page stays small and renders Hangul without any font installed.

The package is located without importing it: importing ``koreanize_matplotlib``
would change matplotlib's global settings.
"""

from __future__ import annotations

import base64
import importlib.util
import io
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

FONT_PACKAGE = "koreanize_matplotlib"
"""The PyPI package (``koreanize-matplotlib``) whose wheel ships the font file."""

FONT_FILE = "fonts/NanumGothic.ttf"
"""The font file inside that package."""

FONT_FAMILY = "NanumGothic"
"""Family name of the font (as matplotlib and the HTML page call it)."""

PAGE_FAMILY = "NewsdedupHangul"
"""Family name of the subset embedded in the HTML page (distinct from any installed font)."""

# The scripts the embedded font covers: Hangul Jamo, CJK symbols and punctuation, compatibility
# Jamo, enclosed CJK, CJK unified ideographs (Hanja in Korean headlines), Hangul syllables,
# Jamo extended-B, compatibility ideographs, half- and full-width forms.
UNICODE_RANGES = ((0x1100, 0x11FF), (0x3000, 0x303F), (0x3130, 0x318F), (0x3200, 0x32FF),
                  (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF), (0xF900, 0xFAFF),
                  (0xFF00, 0xFFEF))


class FontMissing(RuntimeError):
    """The Korean font's package is not installed."""


def font_path() -> Path:
    """The NanumGothic file of the installed ``koreanize-matplotlib`` package.

    Returns:
        The ``.ttf`` path.

    Raises:
        FontMissing: The package (or its font file) is not installed; the message
            says how to install it.
    """
    spec = importlib.util.find_spec(FONT_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / FONT_FILE
        if path.is_file():
            return path
    raise FontMissing(f"the Korean font {FONT_FAMILY} was not found: install the "
                      f"koreanize-matplotlib package (`pip install koreanize-matplotlib`, a "
                      f"dependency of newsdedup)")


def in_ranges(char: str) -> bool:
    """Whether a character is in the scripts the embedded font covers.

    Examples:
        >>> [in_ranges(c) for c in "가A漢"]
        [True, False, True]
    """
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in UNICODE_RANGES)


@cache
def _register() -> str:
    from matplotlib import font_manager

    font_manager.fontManager.addfont(str(font_path()))
    return FONT_FAMILY


@contextmanager
def korean_text() -> Iterator[None]:
    """Draw (and save) figures with NanumGothic as the fallback of DejaVu Sans.

    Text objects take their font when they are created and the glyphs when the
    figure is drawn, so both must happen inside the context.

    Yields:
        Nothing; matplotlib's settings are restored on exit.

    Raises:
        FontMissing: The font's package is not installed.
    """
    import matplotlib

    family = _register()
    with matplotlib.rc_context({"font.family": ["DejaVu Sans", family]}):
        yield


def font_face_css(text: str) -> str:
    """An ``@font-face`` rule embedding NanumGothic subset to the characters of ``text``.

    Only characters of :data:`UNICODE_RANGES` that the font has are kept, so a
    page of Korean headlines embeds a few hundred kilobytes, not the 4.7 MB
    font. The rule's ``unicode-range`` limits the font to those scripts: Latin
    text keeps the page's own font. The subset's bytes depend only on the font
    file and the characters (no time stamp), so reruns write identical pages.

    Args:
        text: Everything the page shows.

    Returns:
        The CSS rule (family :data:`PAGE_FAMILY`), or ``""`` when the text has no
        character of those scripts.

    Raises:
        FontMissing: The font's package is not installed.
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont

    # Distinct characters first: a page repeats a few thousand characters a million times.
    wanted = sorted(ord(c) for c in set(text) if in_ranges(c))
    if not wanted:
        return ""
    # The subset's glyphs are the font's own, unchanged. Recalculating bounding boxes on
    # save decompiles and recompiles every glyph's outline (two thirds of the subsetting
    # time for a page of Korean headlines) only to narrow the header's font-wide box,
    # which a browser does not lay text out by: the full font's box is kept.
    font = TTFont(font_path(), recalcTimestamp=False, recalcBBoxes=False)
    have = set(font.getBestCmap())
    codes = [c for c in wanted if c in have]
    if not codes:
        return ""
    options = subset.Options()
    options.name_IDs = ["*"]  # keep the family name and the OFL notice
    options.notdef_outline = True
    # The hinting program's source tables (Visual TrueType): no use to a browser.
    options.drop_tables += ["TSI0", "TSI1", "TSI2", "TSI3", "TSI5"]
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(unicodes=codes)
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.save(buffer)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    ranges = ", ".join(f"U+{lo:04X}-{hi:04X}" for lo, hi in UNICODE_RANGES)
    return (f"@font-face {{ font-family: '{PAGE_FAMILY}'; font-style: normal; "
            f"font-weight: 400; src: url(data:font/ttf;base64,{data}) format('truetype'); "
            f"unicode-range: {ranges}; }}")
