"""The date rule (issue 28, items 1, 12 and 17): every date form a feed carries; none stops a load.

Item 1: one date outside pandas' nanosecond range (year 9999, a 16-digit epoch string, an
18-digit JSON integer) stopped the whole load without naming file or record. Item 17:
RFC 2822 dates (RSS) and epoch seconds were rejected. Item 12: a Parquet int64 column of
epoch milliseconds with one null was read as floats, and every record rejected. Expected
values are written out from the calendar, not taken from the parser.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.cli import main
from newsdedup.corpus.dates import NOT_A_DATE, OK, OUT_OF_RANGE, ZONE_OFFSETS, read_date_texts
from newsdedup.corpus.load import CorpusWarning, LoadResult, load_corpus
from newsdedup.runs.crosshost import CrossHostConfig, run_crosshost

TITLES = ["진천군 스마트 돌봄 구축 착수", "화성시 화재 감지 시스템 도입", "포항시 제조 AI 실증",
          "노타 AMD 협력 발표", "경북도 AI 인재 양성"]


def load_quiet(path: Path) -> LoadResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)
        return load_corpus(path)


def jsonl(tmp_path: Path, dates: list) -> Path:
    path = tmp_path / "feed.jsonl"
    rows = [{"id": f"i{k}", "title": t, "url": f"https://{'ab'[k % 2]}.example/{k}",
             "published_at": d} for k, (t, d) in enumerate(zip(TITLES, dates, strict=True))]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.mark.parametrize("bad", ["9999-01-01", "1234567890123456", 123456789012345678,
                                 "0000-01-01T00:00:00Z", "9" * 400])
def test_a_date_out_of_range_rejects_its_record_and_the_rest_load(tmp_path, bad):
    path = jsonl(tmp_path, ["2024-05-01", bad, "2024-05-02", "2024-05-03", ""])
    res = load_quiet(path)
    assert res.items["id"].tolist() == ["i0", "i2", "i3", "i4"]
    [rej] = res.rejected
    assert (rej.record, rej.line, rej.id) == (2, 2, "i1")
    assert "outside 1677-09-22..2262-04-10" in rej.reason


def test_crosshost_runs_on_a_feed_with_one_date_out_of_range(tmp_path, capsys):
    path = jsonl(tmp_path, ["2024-05-01", "9999-12-31T23:59:59Z", "2024-05-02", "2024-05-03",
                            "2024-05-04"])
    code = main(["measure", "--crosshost", str(path), "--hosts", "a.example,b.example", "--out",
                 str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "rejected 1 of 5 records of feed.jsonl (first: line 2: field 'published_at'" in err
    [listed] = (tmp_path / "out").glob("*/rejected.csv")
    assert listed.read_text("utf-8").splitlines()[1].startswith("2,2,,i1,\"field 'published_at'")
    rep = run_crosshost(load_quiet(path), "feed", tmp_path / "api",
                        CrossHostConfig(hosts=("a.example", "b.example")), echo=False)
    assert rep.n_items == 4


def test_rss_and_epoch_seconds_are_read_and_stored_as_iso(tmp_path):
    dates = ["Wed, 01 May 2024 09:00:00 +0900", "01 May 2024 09:00 GMT", "1714521600",
             1714521600, "1714521600.25"]
    res = load_quiet(jsonl(tmp_path, dates))
    assert not res.rejected
    assert res.items["published_at"].tolist() == [
        "2024-05-01T09:00:00+09:00", "2024-05-01T09:00:00+00:00", "2024-05-01T00:00:00+00:00",
        "2024-05-01T00:00:00+00:00", "2024-05-01T00:00:00.250000+00:00"]
    # 1714521600 s after the epoch is 2024-05-01 00:00 UTC (19,844 days).
    assert datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=19844) == datetime(
        2024, 5, 1, tzinfo=UTC)


@pytest.mark.parametrize(("text", "status"), [
    ("Wed, 01 May 2024 09:00:00 IST", NOT_A_DATE),  # India, Ireland or Israel
    ("Wed, 31 Feb 2024 09:00:00 +0900", NOT_A_DATE),
    ("Mon, 01 Jan 2263 00:00:00 GMT", OUT_OF_RANGE),
    ("9999999999", OUT_OF_RANGE),  # 2286-11-20 in seconds
    ("12345", NOT_A_DATE),
    ("-0000-01-01", OUT_OF_RANGE),
])
def test_date_forms_at_the_edges_of_the_rule(text, status):
    assert read_date_texts([text]).status.tolist() == [status]


def test_parquet_epoch_milliseconds_with_a_null_are_read(tmp_path):
    path = tmp_path / "feed.parquet"
    ms = [1714521600000, None, 1714608000000, 1714694400000, 1714780800000]
    pq.write_table(pa.table({"id": [f"i{k}" for k in range(5)], "title": TITLES,
                             "published_at": pa.array(ms, pa.int64()),
                             "views": pa.array([1, 2, None, 4, 5], pa.int32())}), path)
    res = load_quiet(path)
    assert not res.rejected
    # Stored in ISO, as epoch seconds are: what a labeller reads on the sheet.
    assert res.items["published_at"].tolist() == [
        "2024-05-01T00:00:00+00:00", "", "2024-05-02T00:00:00+00:00",
        "2024-05-03T00:00:00+00:00", "2024-05-04T00:00:00+00:00"]
    assert res.items["views"].tolist()[:3] == [1, 2, None]


LIKELY = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31),
                 timezones=st.sampled_from([None, UTC])).map(lambda d: d.isoformat()),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
        lambda d: d.strftime("%a, %d %b %Y %H:%M:%S ") + "+0900"),
    st.integers(min_value=0, max_value=10**25).map(str),
    st.integers(min_value=0, max_value=10**25),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)


@settings(max_examples=300)
@given(st.lists(LIKELY, min_size=1, max_size=8))
def test_any_published_at_is_a_date_or_a_listed_reject_never_a_crash(tmp_path_factory, values):
    # The neighbourhood of items 1 and 17: ISO and RFC dates across the whole calendar,
    # epoch digits of any length (as text and JSON numbers), floats and any text.
    folder = tmp_path_factory.mktemp("dates")
    path = folder / "f.jsonl"
    rows = [{"id": f"i{k}", "title": f"제목 {k}", "published_at": v} for k, v in enumerate(values)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    try:
        res = load_quiet(path)
    except ValueError as exc:  # every record rejected: a one-line failure naming the file
        assert str(exc).startswith(f"{path}:1: record 1: every one") and "\n" not in str(exc)
        return
    assert len(res.items) + len(res.rejected) == len(values)
    for rej in res.rejected:
        # a date the rule refuses names the field; a JSON number the JSON standard has no
        # place for (Infinity, NaN) fails the record's JSON itself and says so
        assert "\n" not in rej.reason
        assert "published_at" in rej.reason or "is not a JSON value" in rej.reason
    read = read_date_texts(res.items["published_at"].tolist())
    assert (read.status == OK).all()  # what the loader kept, every later reader reads
    known = read.dates.dropna()
    assert ((known >= pd.Timestamp.min) & (known <= pd.Timestamp.max)).all()


def year_first_digits(text: str) -> datetime | None:
    """``YYYYMMDDHH[MM[SS]]`` from 1900 to 2099 read by slicing, or None (the rule, apart)."""
    if len(text) not in (10, 12, 14) or text[:2] not in ("19", "20"):
        return None
    parts = [int(text[k:k + 2]) for k in range(4, len(text), 2)]
    try:
        return datetime(int(text[:4]), *parts)
    except ValueError:
        return None


@settings(max_examples=300)
@given(st.one_of(st.integers(min_value=10**8, max_value=10**19),
                 st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2099, 12, 31))
                 .flatmap(lambda d: st.sampled_from(
                     [int(d.strftime(f)) for f in ("%Y%m%d%H", "%Y%m%d%H%M", "%Y%m%d%H%M%S")]
                     + [int(d.strftime("%Y%m%d") + "24")]))))
def test_epoch_digits_are_seconds_up_to_ten_digits_then_milliseconds(value):
    # ... unless they are a date and time written year first, digits alone.
    text = str(value)
    ns = value * 10**9 if len(text) <= 10 else value * 10**6  # the rule, in integers
    read = read_date_texts([text])
    if (written := year_first_digits(text)) is not None:
        assert read.status.tolist() == [OK] and read.dates[0] == pd.Timestamp(written)
        assert read.iso == [written.isoformat()]
    elif year_first_digits(text[:8] + "00" * ((len(text) - 8) // 2)) is not None and len(
            text) in (10, 12, 14):
        # A valid day with no such time (hour 24): not a date, not an epoch.
        assert read.status.tolist() == [NOT_A_DATE]
    elif pd.Timestamp.min.value <= ns <= pd.Timestamp.max.value:
        assert read.status.tolist() == [OK] and read.dates[0].value == ns
    else:
        assert read.status.tolist() == [OUT_OF_RANGE]


def test_year_first_digits_are_read_when_most_of_the_column_reads_so(tmp_path):
    # Korean portals export 2026120708 / 202612070930 / 20261207093015: as epochs they
    # would be 2034, 1976 and out of range.
    path = tmp_path / "compact.csv"
    path.write_text("id,title,published_at\n"
                    "a,T1,20261207080000\nb,T2,202612070930\nc,T3,2026120710\n"
                    "d,T4,1796598000000.0\ne,T5,20261207\n", "utf-8")
    res = load_quiet(path)
    assert res.items["published_at"].tolist() == [
        "2026-12-07T08:00:00", "2026-12-07T09:30:00", "2026-12-07T10:00:00",
        "2026-12-06T23:00:00+00:00", "20261207"]
    assert read_date_texts(res.items["published_at"].tolist()).dates.tolist() == [
        pd.Timestamp("2026-12-07 08:00"), pd.Timestamp("2026-12-07 09:30"),
        pd.Timestamp("2026-12-07 10:00"), pd.Timestamp(1796598000000, unit="ms"),
        pd.Timestamp("2026-12-07")]
    # A column mostly of epoch seconds keeps its ten digits epochs.
    mixed = read_date_texts(["2026120710", "1714521600", "1714521601"])
    assert mixed.dates.tolist() == [pd.Timestamp(2026120710, unit="s"),
                                    pd.Timestamp("2024-05-01"),
                                    pd.Timestamp("2024-05-01 00:00:01")]
    # Mostly year-first digits: one impossible date (30 February) or time (hour 24) is
    # one rejected value, an epoch beside them stays an epoch, the rest are dates.
    column = [f"20261207{h:02d}" for h in range(8, 16)] + ["2026023008", "1796598000"]
    read = read_date_texts(column)
    assert read.status.tolist() == [OK] * 8 + [NOT_A_DATE, OK]
    assert read.dates.tolist()[:8] == [pd.Timestamp(f"2026-12-07 {h:02d}:00")
                                       for h in range(8, 16)]
    assert read.dates[9] == pd.Timestamp(1796598000, unit="s")
    seconds = [f"20261207083{k}15" for k in range(8)] + ["20261307093015"]
    assert read_date_texts(seconds).status.tolist() == [OK] * 8 + [NOT_A_DATE]


def test_a_day_column_written_as_floats_is_read(tmp_path):
    # pandas (and spreadsheets) write a whole-number column with gaps as floats: the days
    # of such a column arrive as 20261207.0, which no ISO reading takes.
    frame = pd.DataFrame({"id": ["a", "b", "c"], "title": ["T1", "T2", "T3"],
                          "published_at": [20261207, None, 20261231]})
    path = tmp_path / "days.csv"
    frame.to_csv(path, index=False)
    assert "20261207.0" in path.read_text("utf-8")
    res = load_quiet(path)
    assert not res.rejected
    assert res.items["published_at"].tolist() == ["2026-12-07", "", "2026-12-31"]
    assert read_date_texts(["20261307.0"]).status.tolist() == [NOT_A_DATE]  # month 13
    # Eight plain digits stay ISO 8601's basic form, spelled as written.
    assert read_date_texts(["20261207"]).iso == [None]


def test_dates_as_pages_print_them_are_read_and_stored_as_iso(tmp_path):
    dates = ["2024.05.01. 오후 2:32", "2024년 5월 1일 (수) 오전 12:05", "2024年5月1日 14:32",
             "Wednesday, May 1, 2024 at 2:30 PM", "1 Sept. 2024"]
    res = load_quiet(jsonl(tmp_path, dates))
    assert not res.rejected
    assert res.items["published_at"].tolist() == [
        "2024-05-01T14:32:00", "2024-05-01T00:05:00", "2024-05-01T14:32:00",
        "2024-05-01T14:30:00", "2024-09-01"]


@pytest.mark.parametrize("text", [
    "05/01/2024",  # May 1 or January 5
    "2024.02.31",  # no such day
    "2024.05.01 오후 14:32", "May 1, 2024 2:30 PM AM",  # a 12-hour mark on a 24-hour time
    "May 1, 2024 2:30 PM EST",  # US or Australian east: outside RFC 2822, not guessed
    "Mayday 1, 2024", "2024년 5월",
])
def test_printed_dates_that_could_be_misread_are_refused(text):
    assert read_date_texts([text]).status.tolist() == [NOT_A_DATE]


@pytest.mark.parametrize(("text", "stored", "utc"), [
    ("Wed, 01 May 2024 09:00:00 KST", "2024-05-01T09:00:00+09:00", "2024-05-01 00:00"),
    ("2024-05-01 09:00:00 UTC", "2024-05-01T09:00:00+00:00", "2024-05-01 09:00"),  # BigQuery
    ("2024-05-01T09:00:00 Z", "2024-05-01T09:00:00 Z", "2024-05-01 09:00"),  # ISO: as written
    ("2024.05.01. 오후 2:32 KST", "2024-05-01T14:32:00+09:00", "2024-05-01 05:32"),
    ("May 1, 2024 2:30 PM JST", "2024-05-01T14:30:00+09:00", "2024-05-01 05:30"),
    ("2024/5/1 14:32 GMT", "2024-05-01T14:32:00+00:00", "2024-05-01 14:32"),
])
def test_a_zone_name_with_one_meaning_is_read_as_its_offset(tmp_path, text, stored, utc):
    res = load_quiet(jsonl(tmp_path, [text, "", "", "", ""]))
    assert not res.rejected
    assert res.items["published_at"].tolist() == [stored, "", "", "", ""]
    assert read_date_texts([stored]).dates.tolist() == [pd.Timestamp(utc)]


@pytest.mark.parametrize("text", [
    "2024-05-01 09:00:00 CST",  # US Central (RFC 822) or China
    "2024-05-01 09:00:00 kst",  # names are upper case
    "2024-05-01 09:00:00+09:00 UTC",  # two zones
    "1714521600 UTC", "09:00 UTC", "UTC",  # no written date before the name
])
def test_other_zone_names_are_refused(text):
    assert read_date_texts([text]).status.tolist() == [NOT_A_DATE]


@settings(max_examples=200, deadline=None)
@given(st.datetimes(datetime(1900, 1, 2), datetime(2200, 12, 30)).map(
    lambda d: d.replace(second=0, microsecond=0)), st.sampled_from(sorted(ZONE_OFFSETS)),
    st.integers(0, 2))
def test_every_zoned_form_reads_back_its_moment(moment, zone, form):
    text = [f"{moment:%a, %d %b %Y %H:%M} {zone}", f"{moment:%Y-%m-%d %H:%M:%S} {zone}",
            f"{moment:%Y.%m.%d. %H:%M} {zone}"][form]
    hours, minutes = (int(x) for x in ZONE_OFFSETS[zone][1:].split(":"))
    offset = timedelta(hours=hours, minutes=minutes) * (-1 if ZONE_OFFSETS[zone][0] == "-" else 1)
    read = read_date_texts([text])
    assert read.status.tolist() == [OK]
    assert read.dates[0] == pd.Timestamp(moment - offset)


MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"]


@settings(max_examples=300, deadline=None)
@given(st.datetimes(datetime(1900, 1, 1), datetime(2200, 12, 31)).map(
    lambda d: d.replace(second=0, microsecond=0)), st.integers(0, 5))
def test_every_printed_form_reads_back_its_moment(moment, form):
    hour12 = f"{(moment.hour + 11) % 12 + 1}:{moment.minute:02d}"
    korean = ("오후 " if moment.hour >= 12 else "오전 ") + hour12
    english = hour12 + (" PM" if moment.hour >= 12 else " AM")
    month = MONTH_NAMES[moment.month - 1]
    text = [f"{moment:%Y.%m.%d}. {korean}",
            f"{moment.year}년 {moment.month}월 {moment.day}일 {korean}",
            f"{moment.year}年{moment.month}月{moment.day}日 {moment:%H:%M}",
            f"{month} {moment.day}, {moment.year} {english}",
            f"{moment.day} {month[:3]} {moment.year}, {moment:%H:%M}",
            f"{moment:%A}, {month} {moment.day}, {moment.year} at {english}"][form]
    read = read_date_texts([text])
    assert read.status.tolist() == [OK], text
    assert read.dates[0] == pd.Timestamp(moment), text
    assert read.iso[0] == moment.isoformat(), text
