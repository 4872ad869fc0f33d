"""Publication dates: the one rule for ``published_at``, and its vectorized reading.

Feeds write dates in four ways, and every one is read here (:data:`DATE_RULE`):

* ISO 8601 (``2024-05-01``, ``2024-05-01T09:00:00+09:00``), one vectorized parse;
* RFC 2822, what RSS carries (``Wed, 01 May 2024 09:00:00 +0900``, ``... GMT``);
* epoch seconds, 9 or 10 digits with an optional fraction (``1714521600``, as text or
  as a JSON number): 1973-03-03 to 2286-11-20;
* epoch milliseconds, 11 or more digits (``1394470370698``, the UCI aggregator).

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
             "digits) or epoch milliseconds (11 or more digits)")
"""What ``published_at`` may hold; empty means unknown. One rule for loading, the keep
rules of the dedupe and the date windows of the cross-host study and the signals."""

OK, NOT_A_DATE, OUT_OF_RANGE = 0, 1, 2
"""Statuses of :attr:`DateTexts.status`: a date (or empty), not a date, a date out of range."""

_NS_MIN, _NS_MAX = pd.Timestamp.min.value, pd.Timestamp.max.value
FIRST_DAY = (pd.Timestamp.min.ceil("D")).date().isoformat()
LAST_DAY = (pd.Timestamp.max.floor("D") - pd.Timedelta(days=1)).date().isoformat()
"""The whole days inside the ``datetime64[ns]`` range, as the reject reasons name them."""

_EPOCH_MS = re.compile(r"\d{11,}")
_EPOCH_S = re.compile(r"(\d{9,10})(?:\.(\d{1,9}))?")
# RFC 2822 (section 3.3) with its obsolete zone names, which RSS feeds still write; a zone
# name outside the RFC ("KST") is refused rather than read as UTC, the email parser's guess.
_RFC2822 = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?\d{1,2}\s+"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{2,4}\s+"
    r"\d{1,2}:\d{2}(?::\d{2})?\s*(?:[+-]\d{4}|UT|GMT|Z|[ECMP][SD]T)", re.IGNORECASE)


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

    ms = todo & raw.str.fullmatch(_EPOCH_MS).to_numpy(dtype=bool)
    # Python integers: an 18-digit (or 400-digit) value cannot overflow a check.
    place(np.flatnonzero(ms), [int(v) * 1_000_000 for v in raw[ms]])
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
    dates = pd.Series(np.where(known, ns, np.iinfo(np.int64).min).astype("datetime64[ns]"))
    return DateTexts(dates=dates, status=status, iso=iso)


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
