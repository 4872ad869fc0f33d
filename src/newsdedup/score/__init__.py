"""Step 3: pair scores (exact Jaccard, IDF, MinHash), LSH banding and the exact join.

Candidate pairs by meaning (each item's nearest neighbours by sentence embedding within a
date window) are in :mod:`newsdedup.score.neighbours`.
"""
