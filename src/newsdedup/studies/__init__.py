"""The published studies: measure, word-retention sensitivity, calibration, cross-host."""
