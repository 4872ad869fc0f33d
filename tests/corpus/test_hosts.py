"""Tests for newsdedup.corpus.hosts: URL hosts and publication dates."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdedup.corpus.hosts import host_of, hosts_of, parse_dates


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://blog.google/x", "blog.google"),
        ("https://www.anthropic.com/news/claude", "www.anthropic.com"),
        ("http://user:secret@Example.COM:8080/path", "example.com"),
        ("ftp://files.example.org", "files.example.org"),
        ("deepmind.google/discover", "deepmind.google"),
        ("https://a.com?x=/y", "a.com"),
        ("http://[::1]:8080/x", "[::1]"),
        ("", ""),
    ],
)
def test_host_of(url: str, host: str) -> None:
    assert host_of(url) == host


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=30),
    st.builds(lambda scheme, user, host, port, rest: f"{scheme}{user}{host}{port}{rest}",
              st.sampled_from(["", "https://", "HTTP://", "ftp+x://", " http://"]),
              st.sampled_from(["", "u:p@", "a@b@"]),
              st.sampled_from(["WWW.Example.com", "blog.google", "[::1]", "[fe80::1", "xn--bcher"]),
              st.sampled_from(["", ":8080", ":", ":x"]),
              st.sampled_from(["", "/a?b", "?q=1", "#f", "/"]))), max_size=20))
def test_hosts_of_agrees_with_host_of(urls):
    assert hosts_of(urls) == [host_of(u) for u in urls]


def test_parse_dates_accepts_iso_and_epoch_ms_and_names_bad_record():
    df = pd.DataFrame({"id": ["a", "b", "c", "d"],
                       "published_at": ["2026-05-06", "1394470370698", "", "2026-05-07T10:00"]})
    d = parse_dates(df)
    assert d.iloc[0] == pd.Timestamp("2026-05-06") and d.iloc[1].year == 2014
    assert pd.isna(d.iloc[2])
    bad = pd.DataFrame({"id": ["a", "zz"], "published_at": ["2026-05-06", "yesterday"]})
    with pytest.raises(ValueError,
                       match="1 of 2 rows .*first: row 2 of the table .id 'zz'.: 'yesterday'"):
        parse_dates(bad)
