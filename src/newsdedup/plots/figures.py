"""Command line of the corpus figures: ``python -m newsdedup.plots.figures [name] [--root DIR]``.

Kept for ``make figures`` and ``make reproduce`` until ``newsdedup figures``
replaces it; it only calls :func:`newsdedup.plots.write.write_all` for the
corpus figures. The plots themselves live in :mod:`newsdedup.plots.measure`,
:mod:`newsdedup.plots.calibrate` and :mod:`newsdedup.plots.crosshost`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from newsdedup.plots.results import DEFAULT_NAME
from newsdedup.plots.style import run_writer
from newsdedup.plots.write import write_all


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m newsdedup.plots.figures [name] [--root DIR]``.

    Args:
        argv: Arguments; ``sys.argv[1:]`` when None.

    Returns:
        0; a missing input table exits with status 2 and the file's name.
    """
    parser = argparse.ArgumentParser(
        prog="python -m newsdedup.plots.figures",
        description="Write the PNG figures of results/<name>/ into results/<name>/figures/.",
    )
    parser.add_argument("name", nargs="?", default=DEFAULT_NAME,
                        help="corpus name, the folder under the results root "
                             "(default: %(default)s)")
    return run_writer(parser, lambda args: write_all(args.name, args.root, which=("corpus",)),
                      argv)


if __name__ == "__main__":
    raise SystemExit(main())
