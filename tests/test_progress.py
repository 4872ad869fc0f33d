"""The shared rate lines of newsdedup.progress, as every step's callbacks say them."""

from newsdedup.progress import rate_line, rate_reporter


def test_rate_line_shows_slow_rates_with_three_figures():
    # A streamed pass over big blocks runs at well under one block a second;
    # "0/s" would hide that it moves at all.
    assert rate_line("blocks", 3, 40, 34.8) == (
        "blocks: 3 / 40 (7.5%), 0.0862/s, ETA 429 s")


def test_reporter_is_throttled_speaks_at_the_end_and_carries_the_unit():
    said, ticks = [], iter([0.0, 2.0, 6.0, 7.0, 8.0])
    tell = rate_reporter(said.append, "embed e5", every=5.0, clock=lambda: next(ticks),
                         unit=" texts")
    tell(10, 40)  # 2 s: too soon
    tell(30, 40)  # 6 s: spoken
    tell(35, 40)  # 7 s: too soon
    tell(40, 40)  # the end: always spoken
    assert said == ["embed e5: 30 / 40 texts (75.0%), 5 texts/s, ETA 2 s",
                    "embed e5: 40 / 40 texts (100.0%), 5 texts/s, ETA 0 s"]

