"""Step 4: the subject gate, greedy clustering and the dedupe pipeline built on them."""
