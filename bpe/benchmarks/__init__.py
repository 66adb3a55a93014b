"""Benchmarks: speed figures measured as ratios in one process, and the loops they are measured against."""
