"""Published block 3: cross-host pairs of a host set, with a date window.

Thin wrapper around `newsdedup measure --crosshost`; all logic is in the package. Run
`python calibrate/crosshost.py --help` for the options. Without a corpus path it works on the
pinned archive and writes `results/paldyn-ai-lab-news/`.
"""

import sys

from newsdedup.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["crosshost", *sys.argv[1:]]))
