"""One module per command: options, run(), the files it writes (files.py writes them all)."""
