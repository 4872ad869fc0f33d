"""Compressed corpus files: gzip, bzip2, xz, and a zip archive of one file.

Archives of feeds are kept compressed (``news-2024-05.jsonl.gz``) and datasets
are downloaded as a zip of one CSV, so a corpus file may be either: it is read
as the file it holds. Which compression a file uses is told by its first bytes,
not by its name, so a gzip file named ``news.jsonl`` is read as well; the
format (JSON Lines, CSV, ...) comes from the name of the file inside: the
corpus file's name without its ``.gz`` / ``.bz2`` / ``.xz``, or a zip's member.

A run records the sha256 of the file as stored (what the user has and can
check), and a record's line is a line of the text inside (``zcat FILE | sed -n
Lp`` shows it). Zstandard has no reader in Python's standard library: such a
file is refused with how to decompress it.

Decompressing is linear in the bytes and small beside parsing them (61 MB of
knews-rss-big3 repeated: gzip 268 MB/s, xz 460 MB/s, bzip2 38 MB/s on the
project's 2-core machine). Both byte strings are held while decompressing; the
compressed ones are then let go, so parsing holds what an uncompressed file's does.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
import zlib
from pathlib import Path

from newsdedup.corpus.records import CorpusError

__all__ = ["COMPRESSED_SUFFIXES", "compression_of", "inner_name", "unpack"]

COMPRESSED_SUFFIXES: dict[str, str] = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz",
                                       ".zip": "zip"}
"""File name endings of the compressions read, and the compression each names."""

# First bytes of each compression. bzip2's three-letter magic "BZh" is followed by the
# block size digit and the first block's own magic (pi's digits), so a text file that
# happens to start with "BZh" is not taken for one.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),  # an empty zip archive
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
_BZIP2_BLOCK = b"1AY&SY"


def compression_of(data: bytes) -> str | None:
    """The compression of a file's bytes, from its first bytes; None for a plain file.

    Examples:
        >>> compression_of(gzip.compress(b"{}")), compression_of(bz2.compress(b"{}"))
        ('gzip', 'bzip2')
        >>> compression_of(b'{"id": "a"}'), compression_of(b"BZh, a headline")
        (None, None)
    """
    for magic, name in _MAGIC:
        if data.startswith(magic):
            return name
    if data[:3] == b"BZh" and data[3:4].isdigit() and data[4:10] == _BZIP2_BLOCK:
        return "bzip2"
    return None


def inner_name(path: Path) -> Path:
    """The name of the file a corpus file holds, whose ending tells its format.

    ``news.jsonl.gz`` holds ``news.jsonl``; a zip archive holds its one member (read from
    its directory, not its data); any other name is its own.

    Raises:
        CorpusError: A ``.zip`` file is not a readable archive of exactly one file.

    Examples:
        >>> inner_name(Path("feeds/news.jsonl.gz")), inner_name(Path("news.csv"))
        (PosixPath('feeds/news.jsonl'), PosixPath('news.csv'))
    """
    suffix = path.suffix.lower()
    if suffix == ".zip":
        return path.parent / _zip_member(path, _zip_members(path))
    if suffix in COMPRESSED_SUFFIXES:
        return path.with_suffix("")
    return path


def unpack(path: Path, data: bytes) -> bytes:
    """The bytes a corpus file holds: decompressed when its first bytes say so, else as read.

    Args:
        path: The file, for error messages.
        data: Its bytes as stored.

    Returns:
        The plain bytes.

    Raises:
        CorpusError: The compressed data is damaged or truncated, the zip archive does not
            hold exactly one file, the file is Zstandard-compressed, or it is (or holds) a
            tar archive.

    Examples:
        >>> unpack(Path("n.jsonl.gz"), gzip.compress(b'{"id": "a"}'))
        b'{"id": "a"}'
        >>> unpack(Path("n.jsonl.gz"), gzip.compress(b"{}")[:-4])
        Traceback (most recent call last):
        ...
        newsdedup.corpus.records.CorpusError: n.jsonl.gz: not a readable gzip file ...
    """
    kind = compression_of(data)
    if kind is None:
        _refuse_tar(path, data)
        return data
    if kind == "zstd":
        raise CorpusError(path, "the file is Zstandard-compressed, which is not read; "
                                f"decompress it first (zstd -d {path.name})")
    try:
        if kind == "gzip":
            plain = gzip.decompress(data)
        elif kind == "bzip2":
            plain = bz2.decompress(data)
        elif kind == "xz":
            plain = lzma.decompress(data)
        else:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                plain = archive.read(_zip_member(path, archive.infolist()))
        _refuse_tar(path, plain)
        return plain
    except CorpusError:
        raise
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError,
            zipfile.BadZipFile) as exc:
        # Truncated data raises EOFError, a bad header OSError (gzip.BadGzipFile), a bad
        # stream zlib.error / LZMAError / OSError (bzip2), a bad CRC BadZipFile or OSError.
        raise CorpusError(path, f"not a readable {kind} file ({str(exc) or type(exc).__name__}); "
                                "it may be truncated or damaged") from None


def _refuse_tar(path: Path, data: bytes) -> None:
    """Refuse a tar archive (``.tar``, ``.tar.gz``): its files are not one corpus file.

    A tar's headers are blocks of 512 bytes, NUL-padded, with ``ustar`` at byte 257 (POSIX
    and GNU alike); read as text they would make a header row of NULs.

    Examples:
        >>> import tarfile
        >>> buffer = io.BytesIO()
        >>> with tarfile.open(fileobj=buffer, mode="w") as tar:
        ...     tar.addfile(tarfile.TarInfo("news.csv"))
        >>> _refuse_tar(Path("news.tar.gz"), buffer.getvalue())
        Traceback (most recent call last):
        ...
        newsdedup.corpus.records.CorpusError: news.tar.gz: a tar archive, which is not read ...
    """
    # The magic with what follows it: POSIX "ustar\0", GNU "ustar " (a text may hold
    # "mustard" at that offset).
    if data[257:263] in (b"ustar\x00", b"ustar "):
        raise CorpusError(path, f"a tar archive, which is not read as a corpus; extract it "
                                f"(tar -xf {path.name}) and pass the file, or the folder of "
                                "files")


def _zip_members(path: Path) -> list[zipfile.ZipInfo]:
    """The members of a zip file, from its directory."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.infolist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise CorpusError(path, f"not a readable zip archive ({exc})") from None


def _zip_member(path: Path, members: list[zipfile.ZipInfo]) -> str:
    """The one file a zip archive holds (folders and macOS resource forks aside)."""
    files = [m.filename for m in members
             if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
    if len(files) != 1:
        shown = ", ".join(files[:5]) + (", ..." if len(files) > 5 else "")
        raise CorpusError(path, f"a zip archive is read when it holds one file; this one holds "
                                f"{len(files)}" + (f" ({shown})" if files else "")
                                + ": extract the corpus file and pass it")
    return files[0]
