"""Benchmark harness for jarvis-memory: `python -m bench` (see docs/benchmarks.md)."""
