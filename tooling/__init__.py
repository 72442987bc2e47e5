"""Tooling beside the product, never shipped: benchmarks, the chaos run, recorders, lint."""
