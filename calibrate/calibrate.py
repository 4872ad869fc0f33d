"""Published block 2: word-retention sensitivity, threshold sweeps, calibration.json.

Thin wrapper around `newsdedup calibrate`; all logic is in the package. Run
`python calibrate/calibrate.py --help` for the options. Without a corpus path it works on the
pinned archive and writes `results/paldyn-ai-lab-news/`.
"""

import sys

from newsdedup.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["calibrate", *sys.argv[1:]]))
