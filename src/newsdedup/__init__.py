"""newsdedup: measure, calibrate and run near-duplicate detection on news headlines.

The flow is one direction: corpus -> normalize -> shingle -> score (-> gate)
-> cluster -> report. Each step is a module of its own; scripts and notebooks
only call them.
"""

__version__ = "0.1.0"
