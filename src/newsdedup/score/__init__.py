"""Step 3: pair scores (exact Jaccard, IDF, MinHash), LSH banding and the exact join."""
