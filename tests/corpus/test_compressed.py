"""Compressed corpus files load as the files they hold (corpus/compressed.py)."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import warnings
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pandas as pd
import pytest

from newsdedup.cli import main
from newsdedup.corpus.compressed import compression_of, inner_name, unpack
from newsdedup.corpus.load import CorpusWarning, load_corpus
from newsdedup.corpus.records import CorpusError
from newsdedup.runs.load import results_name

ROWS = [
    {"id": "a1", "title": "진천군, 온디바이스 AI 기반 스마트 돌봄 구축 본격 착수",
     "url": "https://www.yna.co.kr/view/1", "published_at": "2024-05-01T09:00:00+09:00"},
    {"id": "a2", "title": "진천군 온디바이스 AI기반 스마트돌봄 본격화",
     "url": "https://www.ccdn.co.kr/2", "published_at": "2024-05-01T10:00:00+09:00"},
    {"id": "a3", "title": "", "url": "https://x.kr/3"},  # rejected: no title (its line is kept)
    {"id": "a4", "title": "Fed holds rates steady", "summary": "The Fed held rates.",
     "url": "https://reuters.com/4", "published_at": "2024-05-02T00:00:00Z"},
]


def _plain(fmt: str) -> tuple[str, bytes]:
    """ROWS as a file of one format: its name and bytes."""
    frame = pd.DataFrame(ROWS).fillna("")
    if fmt == "jsonl":
        return "news.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n"
                                     for r in ROWS).encode()
    if fmt == "json":
        return "news.json", json.dumps({"articles": ROWS}, ensure_ascii=False).encode()
    if fmt == "csv":
        return "news.csv", frame.to_csv(index=False).encode()
    if fmt == "tsv":
        return "news.tsv", frame.to_csv(index=False, sep="\t").encode()
    if fmt == "rss":
        items = "".join(
            f"<item><guid>{r['id']}</guid><title>{escape(r['title'])}</title>"
            f"<link>{escape(r['url'])}</link>"
            + (f"<pubDate>{r['published_at']}</pubDate>" if "published_at" in r else "")
            + (f"<description>{escape(r['summary'])}</description>" if "summary" in r else "")
            + "</item>\n" for r in ROWS)
        return "news.rss", (f'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0">'
                            f"<channel><title>feed</title>\n{items}</channel></rss>\n").encode()
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return "news.parquet", buffer.getvalue()


def _compress(kind: str, name: str, data: bytes) -> tuple[str, bytes]:
    if kind == "gzip":
        return name + ".gz", gzip.compress(data, mtime=0)
    if kind == "bzip2":
        return name + ".bz2", bz2.compress(data)
    if kind == "xz":
        return name + ".xz", lzma.compress(data)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"export/{name}", data)
    return name.rsplit(".", 1)[0] + ".zip", buffer.getvalue()


def _load(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorpusWarning)  # the rejected record is expected
        return load_corpus(path)


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zip"])
@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "tsv", "parquet", "rss"])
def test_a_compressed_file_loads_as_the_file_it_holds(tmp_path, fmt, kind):
    name, data = _plain(fmt)
    (tmp_path / name).write_bytes(data)
    packed_name, packed = _compress(kind, name, data)
    (tmp_path / packed_name).write_bytes(packed)

    plain, inside = _load(tmp_path / name), _load(tmp_path / packed_name)

    pd.testing.assert_frame_equal(inside.items, plain.items)
    assert [(r.record, r.line, r.reason) for r in inside.rejected] == \
        [(r.record, r.line, r.reason) for r in plain.rejected]
    assert len(plain.rejected) == 1 and len(plain.items) == 3
    assert inside.fmt == plain.fmt
    assert inside.sha256 == hashlib.sha256(packed).hexdigest() != plain.sha256


def test_compression_is_told_by_the_bytes_not_the_name(tmp_path):
    name, data = _plain("jsonl")
    (tmp_path / "plain.jsonl").write_bytes(data)
    (tmp_path / "zipped.jsonl").write_bytes(gzip.compress(data))  # a gzip file without .gz
    (tmp_path / "named.jsonl.gz").write_bytes(data)  # named .gz, but plain text
    loads = [_load(tmp_path / f) for f in ("plain.jsonl", "zipped.jsonl", "named.jsonl.gz")]
    for other in loads[1:]:
        pd.testing.assert_frame_equal(other.items, loads[0].items)


@pytest.mark.parametrize("kind, cut", [("gzip", gzip.compress), ("bzip2", bz2.compress),
                                       ("xz", lzma.compress)])
def test_a_truncated_file_is_one_error_naming_it(tmp_path, kind, cut):
    _, data = _plain("jsonl")
    path = tmp_path / "news.jsonl.x"
    path.write_bytes(cut(data)[:-20])
    with pytest.raises(CorpusError, match=rf"news\.jsonl\.x: not a readable {kind} file .*"
                                          r"truncated or damaged") as err:
        load_corpus(path, "jsonl")
    assert "\n" not in str(err.value)


def test_a_damaged_stream_is_one_error_naming_it(tmp_path):
    _, data = _plain("jsonl")
    packed = bytearray(gzip.compress(data))
    packed[len(packed) // 2] ^= 0xFF
    path = tmp_path / "news.jsonl.gz"
    path.write_bytes(bytes(packed))
    with pytest.raises(CorpusError, match=r"news\.jsonl\.gz: not a readable gzip file"):
        load_corpus(path)


def test_a_zip_of_several_files_names_them(tmp_path):
    path = tmp_path / "dump.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.jsonl", "{}\n")
        archive.writestr("b.jsonl", "{}\n")
    with pytest.raises(CorpusError, match=r"dump\.zip: .*holds 2 \(a\.jsonl, b\.jsonl\)"):
        load_corpus(path)
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w"):
        pass
    with pytest.raises(CorpusError, match=r"empty\.zip: .*holds 0"):
        load_corpus(empty, "jsonl")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip at all")
    with pytest.raises(CorpusError, match=r"broken\.zip: not a readable zip archive"):
        load_corpus(broken)


def test_a_zip_member_of_macos_resource_forks_is_not_counted(tmp_path):
    _, data = _plain("csv")
    path = tmp_path / "news.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("news.csv", data)
        archive.writestr("__MACOSX/._news.csv", b"\x00\x05\x16\x07")
    assert inner_name(path) == tmp_path / "news.csv"
    assert len(_load(path).items) == 3


def test_zstandard_and_empty_contents_are_refused_with_what_to_do(tmp_path):
    zst = tmp_path / "news.jsonl.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 16)
    with pytest.raises(CorpusError, match=r"Zstandard-compressed.*zstd -d news\.jsonl\.zst"):
        load_corpus(zst, "jsonl")
    empty = tmp_path / "news.jsonl.gz"
    empty.write_bytes(gzip.compress(b"\n  \n"))
    with pytest.raises(CorpusError, match=r"news\.jsonl\.gz:1: file is empty once decompressed"):
        load_corpus(empty)


def test_a_tar_archive_is_refused_with_how_to_read_its_files(tmp_path):
    import tarfile

    csv = b"id,title\n1,T\n"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("news.csv")
        info.size = len(csv)
        tar.addfile(info, io.BytesIO(csv))
    for name, data in (("news.tar.gz", gzip.compress(buffer.getvalue())),
                       ("news.tar", buffer.getvalue())):
        path = tmp_path / name
        path.write_bytes(data)
        # Read as CSV its headers would be a row of NULs: refused for what it is instead.
        with pytest.raises(CorpusError, match=rf"^{path}: a tar archive, which is not read as "
                                              rf"a corpus; extract it \(tar -xf {name}\)"):
            load_corpus(path, "csv")
    # A text holding "mustard" where a tar header has its magic is no tar archive.
    head = "id,title\n1," + "x" * (257 - len("id,title\n1,") - 1) + "mustard\n"
    assert head.index("ustard") == 257
    text = tmp_path / "mustard.csv"
    text.write_text(head, encoding="utf-8")
    assert load_corpus(text).items["id"].tolist() == ["1"]


def test_the_format_comes_from_the_file_held(tmp_path):
    path = tmp_path / "news.doc.gz"
    path.write_bytes(gzip.compress(b"{}"))
    with pytest.raises(ValueError, match=r"extension '\.doc' of the file it holds \(news\.doc\)"):
        load_corpus(path)
    # A list of headlines, compressed: read as the lines it holds.
    listed = tmp_path / "headlines.txt.gz"
    listed.write_bytes(gzip.compress("첫 기사\n둘째 기사\n".encode()))
    with pytest.warns(CorpusWarning, match="record number"):
        corpus = load_corpus(listed)
    assert corpus.fmt == "lines" and corpus.items["title"].tolist() == ["첫 기사", "둘째 기사"]


@pytest.mark.parametrize("data, kind", [
    (b"BZh91AY&SY", "bzip2"), (b"BZh, a headline that starts so", None),
    (b"\xfd7zXZ\x00\x00", "xz"), (b"PK\x03\x04", "zip"), (b"PAR1", None), (b"\xef\xbb\xbf{", None),
])
def test_first_bytes_tell_the_compression(data, kind):
    assert compression_of(data) == kind
    if kind is None:
        assert unpack(Path("f"), data) == data


def test_the_results_folder_is_named_after_the_file_held():
    assert results_name(Path("news.jsonl.gz")) == "news"
    assert results_name(Path("news.csv.zip")) == "news"
    assert results_name(Path("feeds/news.jsonl.xz")) == "feeds"


def test_the_commands_read_a_compressed_feed(tmp_path, capsys):
    name, data = _plain("jsonl")
    (tmp_path / "news.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / name).write_bytes(data)
    said = []
    for file in ("news.jsonl.gz", name):
        assert main(["dedupe", str(tmp_path / file), "--threshold", "0.3", "--name", "n",
                     "--out", str(tmp_path / file.replace(".", "_")), "--quiet"]) == 0
        said.append(capsys.readouterr().out)
    assert "3 items -> 2 kept, 1 merged groups" in said[0]
    assert said[0] == said[1]
