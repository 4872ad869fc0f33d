"""Step 2: items to normalized texts and character n-gram shingle sets."""
