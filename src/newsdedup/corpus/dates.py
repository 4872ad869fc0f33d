"""Publication dates: the one rule for ``published_at``, and its vectorized reading.

Feeds write dates in six ways, and every one is read here (:data:`DATE_RULE`):

* ISO 8601 (``2024-05-01``, ``2024-05-01T09:00:00+09:00``), one vectorized parse;
* RFC 2822, what RSS carries (``Wed, 01 May 2024 09:00:00 +0900``, ``... GMT``);
* epoch seconds, 9 or 10 digits with an optional fraction (``1714521600``, as text or
  as a JSON number): 1973-03-03 to 2286-11-20;
* epoch milliseconds, 11 or more digits (``1394470370698``, the UCI aggregator), with
  an optional fraction (``1394470370698.0``, as pandas writes a column that has gaps);
* dates and times written as digits alone, year first (``2024050109``,
  ``202405010930``, ``20240501093000``: ``YYYYMMDDHH[MM[SS]]``, as Korean portals and
  databases export them), when most values of that many digits in the column open
  with a valid date (see :func:`_compact_dates`); ``20240501`` is ISO's own basic form,
  and ``20240501.0`` (a day column with gaps, as pandas writes it) is read as that day;
* dates as news pages print them, when they cannot be misread: year first with dots,
  slashes or 년 월 일 / 年 月 日 (``2024.05.01. 오후 2:32``, ``2024/5/1 14:32``,
  ``2024년 5월 1일``, ``2024年5月1日``), or with an English month name (``May 1, 2024``,
  ``1 May 2024 2:30 PM``). Without a zone they are read as the naive ISO forms are (UTC),
  and stored in their ISO spelling. ``05/01/2024`` stays refused: May 1 or January 5.

The written forms may end in a zone name with one meaning (:data:`ZONE_OFFSETS`: UTC,
GMT, UT, Z, KST, JST; ``2024-05-01 09:00:00 UTC``, ``Wed, 01 May 2024 09:00:00 KST``),
read as its offset and stored in the ISO spelling; other names are refused.

Dates are held as ``datetime64[ns]`` (naive, UTC), whose range is 1677-09-21 to
2262-04-11. A value of a date form outside that range (year 9999, a 16-digit epoch) is
not a parse failure but a date that cannot be placed: :func:`read_date_texts` marks it
with its own status, so the loader rejects that one record with a reason that says so
instead of failing the whole load.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import numpy as np
import pandas as pd

__all__ = ["DATE_RULE", "OK", "NOT_A_DATE", "OUT_OF_RANGE", "DateTexts", "date_problem",
           "read_date_texts", "parse_date_texts"]

DATE_RULE = ("an ISO 8601 date or time, an RFC 2822 date (RSS), epoch seconds (9 or 10 "
             "digits), epoch milliseconds (11 or more digits), digits year first "
             "(YYYYMMDDHH[MM[SS]]), a year-first date "
             "(2024.05.01 14:32, 2024/5/1, 2024년 5월 1일 오후 2:32) or one with an English "
             "month name (May 1, 2024); a date with a time may end in an offset or the zone "
             "name UTC, GMT, KST or JST")
"""What ``published_at`` may hold; empty means unknown. One rule for loading, the keep
rules of the dedupe and the date windows of the cross-host study and the signals."""

OK, NOT_A_DATE, OUT_OF_RANGE = 0, 1, 2
"""Statuses of :attr:`DateTexts.status`: a date (or empty), not a date, a date out of range."""

_NS_MIN, _NS_MAX = pd.Timestamp.min.value, pd.Timestamp.max.value
FIRST_DAY = (pd.Timestamp.min.ceil("D")).date().isoformat()
LAST_DAY = (pd.Timestamp.max.floor("D") - pd.Timedelta(days=1)).date().isoformat()
"""The whole days inside the ``datetime64[ns]`` range, as the reject reasons name them."""

_EPOCH_MS = re.compile(r"(\d{11,})(?:\.(\d{1,6}))?")

# Year-first digits: a date and hour, minute, second written without separators. Ten
# digits are also epoch seconds and twelve epoch milliseconds, so these are read only when
# the reading holds for the whole column (_compact_dates); the epoch readings of such
# values fall in 2030-2036 (ten digits) and 1976 (twelve), never a feed's present. Eight
# digits (a day) are ISO 8601's basic form, read there; here only as a spreadsheet or pandas
# writes such a column when it has gaps (``20261207.0``), which no ISO reading takes.
_COMPACT_FORMATS = {8: "%Y%m%d", 10: "%Y%m%d%H", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}
_COMPACT = re.compile(r"(?:19|20)\d{6}(?:\d{2}){0,3}")
_DIGITS = re.compile(r"\d+(?:\.0+)?")
_ZERO_FRACTION = r"\.0+$"
_EPOCH_S = re.compile(r"(\d{9,10})(?:\.(\d{1,9}))?")
# RFC 2822 (section 3.3) with its obsolete zone names, which RSS feeds still write; a zone
# name outside the RFC ("KST") is refused rather than read as UTC, the email parser's guess.
_RFC2822 = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?\d{1,2}\s+"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{2,4}\s+"
    r"\d{1,2}:\d{2}(?::\d{2})?\s*(?:[+-]\d{4}|UT|GMT|Z|[ECMP][SD]T)", re.IGNORECASE)

# Zone names read after any of the written forms above ("2024-05-01 09:00:00 UTC" as
# BigQuery exports it, "Wed, 01 May 2024 09:00:00 KST" as some Korean RSS writes it):
# only names with one meaning. Others stay refused rather than guessed: CST is US Central
# (RFC 822) or China, IST India, Ireland or Israel, and EST also the Australian east.
# Inside an RFC 2822 date, the RFC's own names (EST, PDT, ...) keep the RFC's meaning.
ZONE_OFFSETS: dict[str, str] = {"UTC": "+00:00", "GMT": "+00:00", "UT": "+00:00",
                                "Z": "+00:00", "KST": "+09:00", "JST": "+09:00"}
"""Zone name -> UTC offset, for a date written with a zone name after it."""
_ZONED = re.compile(r"(?P<body>.*?(?:\d|AM|PM))\s*(?P<zone>" + "|".join(ZONE_OFFSETS) + r")")

# Dates as news pages print them (the fifth form of the module docstring). Each is
# rewritten into its ISO spelling and read by the ISO parse, so a 31 February is refused
# there. Only unambiguous orders: year first, or the month by name; a zone name after one
# is read by _zoned_dates, once every form without it has been tried.
_TIME = (r"(?:,?\s*(?:at\s+)?(?P<ampm>오전|오후|AM|PM)?\s*(?P<H>\d{1,2}):(?P<M>\d{2})"
         r"(?::(?P<S>\d{2}))?\s*(?P<ampm2>AM|PM)?)?")
_WEEKDAY = r"(?:\s*[(（][^)）]{1,9}[)）])?"  # (수), (Wed), （水）
_YEAR_FIRST = re.compile(
    r"(?P<y>\d{4})\s*(?:[./-]|[년年])\s*(?P<m>\d{1,2})\s*(?:[./-]|[월月])\s*(?P<d>\d{1,2})"
    r"\s*[일日]?\.?" + _WEEKDAY + _TIME, re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (r"(?P<mon>Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?"
          r"|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DAY_NAME = r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\.?,?\s+)?"
_MONTH_NAMED = re.compile(
    _DAY_NAME + r"(?:" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?|(?P<d2>\d{1,2})\s+"
    + _MONTH.replace("mon", "mon2") + r"),?\s+(?P<y>\d{4})" + _TIME, re.IGNORECASE)


def _printed_iso(text: str) -> str | None:
    """The ISO spelling of a date as pages print it, or None when it is not one.

    Examples:
        >>> _printed_iso("2024.05.01. 오후 2:32"), _printed_iso("2024년 5월 1일")
        ('2024-05-01T14:32:00', '2024-05-01')
        >>> _printed_iso("Wednesday, May 1, 2024 at 12:05 AM"), _printed_iso("05/01/2024")
        ('2024-05-01T00:05:00', None)
    """
    match = _YEAR_FIRST.fullmatch(text) or _MONTH_NAMED.fullmatch(text)
    if match is None:
        return None
    parts = match.groupdict()
    if "mon" in parts:
        name = (parts["mon"] or parts["mon2"])[:3].lower()
        month, day = _MONTHS.index(name) + 1, int(parts["d"] or parts["d2"])
    else:
        month, day = int(parts["m"]), int(parts["d"])
    date = f"{parts['y']}-{month:02d}-{day:02d}"
    if parts["H"] is None:
        return date
    hour, marks = int(parts["H"]), {(parts["ampm"] or "").upper(), (parts["ampm2"] or "").upper()}
    marks.discard("")
    if marks:
        if len(marks) > 1 or not 1 <= hour <= 12:
            return "not a date"  # "오후 14:00", "PM 2:00 AM": refused by the ISO parse
        pm = marks <= {"오후", "PM"}
        hour = hour % 12 + (12 if pm else 0)
    return f"{date}T{hour:02d}:{parts['M']}:{parts['S'] or '00'}"


@dataclass(frozen=True)
class DateTexts:
    """What :func:`read_date_texts` read.

    Attributes:
        dates: ``datetime64[ns]`` per value (naive, UTC; ``NaT`` where empty or not OK),
            on a RangeIndex.
        status: ``int8`` per value: :data:`OK` (a date, or empty), :data:`NOT_A_DATE` or
            :data:`OUT_OF_RANGE`.
        iso: Per value, its ISO 8601 spelling when it was written in another form (RFC
            2822, epoch seconds), else None: what the loader stores, so that every later
            reader sees one spelling.
    """

    dates: pd.Series
    status: np.ndarray
    iso: list[str | None]


def read_date_texts(values: Sequence[str]) -> DateTexts:
    """Read ``published_at`` texts by :data:`DATE_RULE`; never raises on a value.

    Args:
        values: One text per item; ``""`` (or only blanks) is an unknown date.

    Returns:
        The :class:`DateTexts`.

    Examples:
        >>> r = read_date_texts(["Wed, 01 May 2024 09:00:00 +0900", "1714521600", "9999-01-01",
        ...                      "soon", ""])
        >>> r.dates.tolist()[:2], r.status.tolist(), r.iso[:2]
        ([Timestamp('2024-05-01 00:00:00'), Timestamp('2024-05-01 00:00:00')], [0, 0, 2, 1, 0], \
['2024-05-01T09:00:00+09:00', '2024-05-01T00:00:00+00:00'])
    """
    raw = pd.Series([str(v).strip() for v in values], dtype=object)
    ns = np.zeros(len(raw), dtype=np.int64)
    status = np.full(len(raw), NOT_A_DATE, dtype=np.int8)
    status[(raw == "").to_numpy(dtype=bool)] = OK
    known = np.zeros(len(raw), dtype=bool)  # holds a date in range, in ns
    iso: list[str | None] = [None] * len(raw)
    todo = status == NOT_A_DATE

    def place(at: np.ndarray, values_ns: list[int] | np.ndarray) -> None:
        """Mark positions ``at`` with their ns values, or out of range."""
        for k, v in zip(at.tolist(), list(values_ns), strict=True):
            if _NS_MIN <= v <= _NS_MAX:
                ns[k], status[k], known[k] = v, OK, True
            else:
                status[k] = OUT_OF_RANGE

    todo &= ~_compact_dates(raw, todo, ns, status, known, iso)
    ms = todo & raw.str.fullmatch(_EPOCH_MS).to_numpy(dtype=bool)
    # Python integers: an 18-digit (or 400-digit) value cannot overflow a check; the
    # fraction's digits apart, as for seconds below.
    milli = [v.partition(".") for v in raw[ms]]
    at = np.flatnonzero(ms)
    place(at, [int(w) * 1_000_000 + int(f.ljust(6, "0")) for w, _, f in milli])
    # Stored in ISO, as seconds are: a labeller reads 2014-03-10T16:52:50.698000+00:00,
    # not 1394470370698.
    for k in at[status[at] == OK].tolist():
        iso[k] = pd.Timestamp(int(ns[k]), tz="UTC").isoformat()
    todo &= ~ms
    seconds = todo & raw.str.fullmatch(_EPOCH_S).to_numpy(dtype=bool)
    at = np.flatnonzero(seconds)
    # Whole seconds and the fraction's digits apart: a float would round the nanoseconds.
    parts = [raw[k].partition(".") for k in at.tolist()]
    place(at, [int(w) * 10**9 + int(f.ljust(9, "0")) for w, _, f in parts])
    for k in at[status[at] == OK].tolist():
        iso[k] = pd.Timestamp(int(ns[k]), tz="UTC").isoformat()
    todo &= ~seconds
    if todo.any():
        _iso_dates(raw, todo, ns, status, known)
    for k in np.flatnonzero(status == NOT_A_DATE).tolist():
        _rfc2822(raw[k], k, ns, status, known, iso)
    _printed_dates(raw, ns, status, known, iso)
    _zoned_dates(raw, ns, status, known, iso)
    dates = pd.Series(np.where(known, ns, np.iinfo(np.int64).min).astype("datetime64[ns]"))
    return DateTexts(dates=dates, status=status, iso=iso)


def _compact_dates(raw: pd.Series, todo: np.ndarray, ns: np.ndarray, status: np.ndarray,
                   known: np.ndarray, iso: list[str | None]) -> np.ndarray:
    """The values among ``todo`` taken as year-first digits; returns where they are.

    A width (10, 12 or 14 digits, a ``.0`` as pandas writes a column with gaps allowed;
    8 digits only with that ``.0``: plain, they are ISO 8601's basic form)
    is read so when most digit-only values of that width in the column open with a
    valid date from 1900 to 2099 (``YYYYMMDD``): few values of a column of epoch seconds
    (``1714521600``) do. Then each value of that width opening with ``19`` or ``20`` is
    taken: read as that date and time and stored in its ISO spelling (naive, read as UTC
    as the ISO forms without offset are), or, with no such date or time (30 February,
    hour 24), not a date. One bad value so is one rejected record, not a column read as
    epochs in 2034; a value of another opening (an epoch beside them) is left to the
    epoch forms.

    Examples:
        >>> r = read_date_texts(["2026120708", "202612070930", "20261207093015"])
        >>> r.iso
        ['2026-12-07T08:00:00', '2026-12-07T09:30:00', '2026-12-07T09:30:15']
        >>> read_date_texts(["2026120708", "1714521600", "1714521601"]).iso  # epochs
        ['2034-03-16T11:18:28+00:00', '2024-05-01T00:00:00+00:00', '2024-05-01T00:00:01+00:00']
        >>> r = read_date_texts(["2024050109", "2024050324", "2024050210.0", "1796598000"])
        >>> r.status.tolist(), r.iso[:3]
        ([0, 1, 0, 0], ['2024-05-01T09:00:00', None, '2024-05-02T10:00:00'])
        >>> read_date_texts(["20261207.0", "", "20261231.0"]).iso
        ['2026-12-07', None, '2026-12-31']
    """
    taken = np.zeros(len(raw), dtype=bool)
    digits = todo & raw.str.fullmatch(_DIGITS).to_numpy(dtype=bool)
    if not digits.any():
        return taken
    whole = raw.str.replace(_ZERO_FRACTION, "", regex=True)
    widths = whole.str.len().to_numpy()
    fraction = (whole != raw).to_numpy(dtype=bool)
    for width, fmt in _COMPACT_FORMATS.items():
        at = np.flatnonzero(digits & (widths == width) & (fraction | (width != 8)))
        if not at.size:
            continue
        day = pd.to_datetime(whole[at].str[:8], format="%Y%m%d", errors="coerce")
        opens = whole[at].str.fullmatch(_COMPACT).to_numpy(dtype=bool)
        if 2 * int((opens & day.notna().to_numpy()).sum()) <= at.size:
            continue  # mostly epochs (or no dates at all): the epoch forms read them
        at = at[opens]
        parsed = pd.to_datetime(whole[at], format=fmt, errors="coerce")
        good = parsed.notna().to_numpy()
        ok = at[good]
        ns[ok] = parsed[good].to_numpy(dtype="datetime64[ns]").astype(np.int64)
        status[ok], known[ok] = OK, True
        status[at[~good]] = NOT_A_DATE
        taken[at] = True
        for k, stamp in zip(ok.tolist(), parsed[good], strict=True):
            iso[k] = stamp.date().isoformat() if width == 8 else stamp.isoformat()
    return taken


def _iso_dates(raw: pd.Series, todo: np.ndarray, ns: np.ndarray, status: np.ndarray,
               known: np.ndarray) -> None:
    """The ISO 8601 values among ``todo``, in one vectorized parse (offsets to UTC)."""
    parsed = pd.to_datetime(raw[todo], format="ISO8601", errors="coerce", utc=True)
    # pandas picks the unit (microseconds for most texts), so year 9999 parses; the
    # range check is made in that unit, before anything is cast to nanoseconds.
    naive = parsed.dt.tz_convert(None).to_numpy()
    at = np.flatnonzero(todo)
    got = ~np.isnat(naive)
    unit, _ = np.datetime_data(naive.dtype)
    per = int(pd.Timedelta(1, unit=unit).value)  # ns in one unit
    ticks = naive.astype(np.int64)  # compared as integers: casting a bound can wrap
    inside = got & (ticks >= -(-_NS_MIN // per)) & (ticks <= _NS_MAX // per)
    status[at[got & ~inside]] = OUT_OF_RANGE
    status[at[inside]] = OK
    known[at[inside]] = True
    ns[at[inside]] = naive[inside].astype("datetime64[ns]").astype(np.int64)


def _printed_dates(raw: pd.Series, ns: np.ndarray, status: np.ndarray, known: np.ndarray,
                   iso: list[str | None]) -> None:
    """The values still not dates that are dates as pages print them, read as ISO."""
    left = np.flatnonzero(status == NOT_A_DATE)
    spelled = [_printed_iso(raw[k]) for k in left.tolist()]
    at = np.array([k for k, text in zip(left.tolist(), spelled, strict=True) if text],
                  dtype=np.int64)
    if not at.size:
        return
    rewritten = raw.copy()
    rewritten[at] = [text for text in spelled if text]
    todo = np.zeros(len(raw), dtype=bool)
    todo[at] = True
    _iso_dates(rewritten, todo, ns, status, known)
    for k in at[status[at] == OK].tolist():
        iso[k] = rewritten[k]


def _zoned_dates(raw: pd.Series, ns: np.ndarray, status: np.ndarray, known: np.ndarray,
                 iso: list[str | None]) -> None:
    """The values still not dates that are one of the forms followed by a zone name.

    The name becomes its offset (:data:`ZONE_OFFSETS`), and the value is read again: as
    RFC 2822, else as ISO or as a page prints it, stored in its ISO spelling.
    """
    spelled: dict[int, str] = {}
    for k in np.flatnonzero(status == NOT_A_DATE).tolist():
        match = _ZONED.fullmatch(raw[k])
        if match is None:
            continue
        body, offset = match["body"], ZONE_OFFSETS[match["zone"]]
        _rfc2822(f"{body} {offset.replace(':', '')}", k, ns, status, known, iso)
        printed = _printed_iso(body) if status[k] == NOT_A_DATE else "not a date"
        if printed != "not a date":  # ISO, or as pages print it; a date alone has no zone
            spelled[k] = (printed or body) + ("" if printed and "T" not in printed else offset)
    if not spelled:
        return
    at = np.fromiter(spelled, dtype=np.int64, count=len(spelled))
    rewritten = raw.copy()
    rewritten[at] = list(spelled.values())
    todo = np.zeros(len(raw), dtype=bool)
    todo[at] = True
    _iso_dates(rewritten, todo, ns, status, known)
    for k in at[status[at] == OK].tolist():
        iso[k] = rewritten[k]


def _rfc2822(text: str, k: int, ns: np.ndarray, status: np.ndarray, known: np.ndarray,
             iso: list[str | None]) -> None:
    """Read value ``k`` as an RFC 2822 date, if it is one (the RSS form)."""
    if _RFC2822.fullmatch(text) is None:
        return
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, OverflowError):  # a day 31 of February, an hour 25
        return
    stamp = pd.Timestamp(moment)
    if stamp.tzinfo is None:  # "-0000": UTC, local zone unknown (RFC 2822, 3.3)
        stamp = stamp.tz_localize("UTC")
    value = stamp.tz_convert("UTC").tz_localize(None).as_unit("us")
    if not pd.Timestamp.min <= value <= pd.Timestamp.max:
        status[k] = OUT_OF_RANGE
        return
    ns[k], status[k], known[k] = value.as_unit("ns").value, OK, True
    iso[k] = moment.isoformat()


def date_problem(field: str, value: str, status: int) -> str:
    """The reject reason of a ``published_at`` value with a status other than :data:`OK`.

    Examples:
        >>> date_problem("date", "9999-01-01", OUT_OF_RANGE)
        "field 'date' (published_at) '9999-01-01' is a date outside 1677-09-22..2262-04-10, \
the range this workbench can place"
    """
    if status == OUT_OF_RANGE:
        return (f"field {field!r} (published_at) {value!r} is a date outside "
                f"{FIRST_DAY}..{LAST_DAY}, the range this workbench can place")
    return f"field {field!r} (published_at) {value!r} is not {DATE_RULE}"


def parse_date_texts(values: Sequence[str]) -> tuple[pd.Series, np.ndarray]:
    """Dates of ``published_at`` texts by :data:`DATE_RULE`, and which ones break it.

    Args:
        values: One text per item; ``""`` is an unknown date.

    Returns:
        ``(dates, bad)``: ``datetime64[ns]`` values (naive, UTC; ``NaT`` where empty or
        bad) on a RangeIndex, and a bool array marking the non-empty values that are not
        dates, or dates out of the ``datetime64[ns]`` range.

    Examples:
        >>> dates, bad = parse_date_texts(["2024-05-01T09:00:00+09:00", "", "soon"])
        >>> dates.tolist(), bad.tolist()
        ([Timestamp('2024-05-01 00:00:00'), NaT, NaT], [False, False, True])
    """
    read = read_date_texts(values)
    return read.dates, read.status != OK
