"""Published block 1: exact all-pairs Jaccard against MinHash (n = 3, 4, 5).

Thin wrapper around `newsdedup measure`; all logic is in the package. Run
`python measure/measure.py --help` for the options. Without a corpus path it works on the
pinned archive and writes `results/paldyn-ai-lab-news/`.
"""

import sys

from newsdedup.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["measure", *sys.argv[1:]]))
