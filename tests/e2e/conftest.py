"""User runs shared by the end-to-end tests, and a headless Chromium to open their reports.

The user runs are what a new user makes of the shared real feeds: a Korean
feed with URLs, sources and dates (the first 700 and the last 300 items of
``knews-rss-big3``, eight days apart: without labels the calibration
declines and says what to label) and an English title list with no URL and
no source (all 4,978 titles of ``reuters21578-titles``: no host information;
its decoys pass their check and recommend a threshold, so the dedupe runs). They are
written once per session by ``newsdedup run`` into a temporary root, with
fewer simulation trials: the report and the notebooks need every table, the
numbers are tested elsewhere.

Chromium is Debian's ``chromium`` package: ``make check`` installs it when it
is missing (the Makefile's ``browser`` target; CI runs ``make check``). Set
``NEWSDEDUP_CHROMIUM`` to use another binary. The browser is driven over the
DevTools protocol on a pipe (``--remote-debugging-pipe``), so no port is
opened and no network is used.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from newsdedup import cli, paths

KNEWS = ("knews-rss-big3", "knews-rss-big3.jsonl")
REUTERS = ("reuters21578-titles", "reuters-005-009.csv")
UCI = ("uci-news-aggregator-head", "uci-news-aggregator.head.csv")
UCI_COLUMNS = "id=ID,title=TITLE,url=URL,source=PUBLISHER,published_at=TIMESTAMP"
SYNTHETIC_SIZE = 100_000
"""Items of the synthetic Korean run: the size where a report must still be small and whole."""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1"]


def knews_sample(lines: list[str]) -> list[str]:
    """The lines of the Korean user run: the first 700 and the last 300 (eight days later)."""
    return lines[:700] + lines[-300:]


def _run(args: list[str]) -> None:
    assert cli.main([*args, "--quiet"]) == 0, args


@pytest.fixture(scope="session")
def user_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results root holding ``knews-sample`` (with signals) and ``reuters-feed``."""
    root = tmp_path_factory.mktemp("user-results")
    corpora = tmp_path_factory.mktemp("user-corpora")
    lines = paths.shared_corpus_file(*KNEWS).read_text(encoding="utf-8").splitlines()
    knews = corpora / "knews-sample.jsonl"
    knews.write_text("\n".join(knews_sample(lines)) + "\n", encoding="utf-8")
    reuters = paths.shared_corpus_file(*REUTERS)
    short = ["--out", str(root), "--trials", "5", "--error-perms", "16,128"]
    _run(["run", str(knews), "--name", "knews-sample", *short])
    _run(["signals", str(knews), "--name", "knews-sample", "--out", str(root)])
    _run(["run", str(reuters), "--name", "reuters-feed", *short])
    return root


@pytest.fixture(scope="session")
def uci_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``newsdedup run`` of the UCI aggregator head (English; publishers, URLs, times)."""
    root = tmp_path_factory.mktemp("uci-results")
    _run(["run", str(paths.shared_corpus_file(*UCI)), "--name", "uci-head", "--columns",
          UCI_COLUMNS, "--out", str(root), "--trials", "5", "--error-perms", "16,128"])
    return root / "uci-head"


@pytest.fixture(scope="session")
def synthetic_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``newsdedup run`` of 100,000 Korean headlines: real ones and their rewrites.

    Five sources and sixty days drawn with a fixed seed; about a minute and
    1.6 GB on two cores (the large-corpus paths of measure and calibrate).
    """
    import numpy as np

    from newsdedup.studies.synthetic import enlarge, headline_pool

    folder = tmp_path_factory.mktemp("synthetic")
    frame = enlarge(headline_pool("ko"), SYNTHETIC_SIZE, seed=0)
    rng = np.random.default_rng(1)
    source = rng.integers(0, 5, len(frame))
    minute = rng.integers(0, 60 * 24 * 60, len(frame))
    corpus = folder / "synthetic-100k.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for k, title in enumerate(frame.text):
            at = np.datetime64("2025-01-01T00:00") + np.timedelta64(int(minute[k]), "m")
            fh.write(json.dumps({"id": f"s{k}", "title": title, "source": f"outlet-{source[k]}",
                                 "published_at": f"{at}:00+00:00"}, ensure_ascii=False) + "\n")
    _run(["run", str(corpus), "--name", "synthetic-100k", "--out", str(folder / "results"),
          "--trials", "5", "--error-perms", "16,128"])
    return folder / "results" / "synthetic-100k"


def chromium_binary() -> str:
    """The Chromium to run: ``$NEWSDEDUP_CHROMIUM``, else Debian's ``chromium`` on the PATH."""
    found = os.environ.get("NEWSDEDUP_CHROMIUM") or shutil.which("chromium")
    if not found:
        pytest.fail("chromium not found: `make check` installs Debian's package (apt-get install "
                    "-y chromium), or set NEWSDEDUP_CHROMIUM to a Chromium binary")
    return found


class Browser:
    """A headless Chromium driven over the DevTools protocol on a pipe.

    Attributes:
        events: Every event received, in order (``{"method", "params"}``).
    """

    def __init__(self, profile: Path) -> None:
        """Start Chromium with a fresh profile and attach to a new page."""
        to_chrome, self._send = os.pipe()
        self._recv, from_chrome = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        script = f'exec "$0" "$@" 3<&{to_chrome} 4>&{from_chrome}'
        self._log = (profile.parent / f"{profile.name}.stderr").open("wb")
        self.proc = subprocess.Popen(
            ["bash", "-c", script, chromium_binary(), *FLAGS, f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            pass_fds=(to_chrome, from_chrome), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self._log)
        os.close(to_chrome)
        os.close(from_chrome)
        self._buffer = b""
        self._id = 0
        self.events: list[dict] = []
        self.session: str | None = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._recv, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, **params) -> dict:
        """Send one command and return its result (events received meanwhile are kept)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        while True:
            got = self._message()
            if got.get("id") == self._id:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})
            if "method" in got:
                self.events.append(got)

    def wait_for(self, method: str) -> dict:
        """The first event ``method`` not yet consumed (waiting for it)."""
        while True:
            for k, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(k)
            got = self._message()
            if "method" in got:
                self.events.append(got)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (promises awaited)."""
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                        awaitPromise=True)
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expression}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def close(self) -> None:
        """Close the browser and wait for it."""
        with contextlib.suppress(RuntimeError, OSError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._send)
        os.close(self._recv)
        self._log.close()


@pytest.fixture
def browser(tmp_path: Path):
    """A fresh headless Chromium (its own profile folder), closed after the test."""
    b = Browser(tmp_path / "chromium-profile")
    yield b
    b.close()
