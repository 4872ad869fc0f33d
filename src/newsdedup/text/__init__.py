"""Step 2: items to normalized texts and character n-gram shingle sets."""

MAX_NGRAM = 64
"""Largest character n-gram size anything accepts (``--ngram``, ``--ngrams``, the configs).

A headline normalizes to some 20 to 100 characters, so an n-gram of more than 64 is the
empty set for nearly every item: a size beyond it is a typo (``--ngram 1e10``), and the
packed n-gram codes and per-position loops of :mod:`newsdedup.text.shingle` grow with
``n``. Kept here, free of imports, so the command line's parser can name it."""

SCHEME_NAMES = ("hangul-alnum", "nfkc-hangul-alnum", "hangul-alnum-spaces", "identity",
                "unicode-alnum")
"""The normalization schemes by name (:data:`newsdedup.text.normalize.SCHEMES`, tested
equal), for the command line's ``--scheme`` choices without importing numpy."""
