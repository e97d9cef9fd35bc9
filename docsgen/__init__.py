"""Docs that cannot go stale: generated from the code and the running service.

``python -m docsgen`` (``make docs``) rewrites the README's walkthrough from what a fresh
server answers and docs/configuration.md from the settings class; tests/docs/ fails when
either differs from what is committed.
"""
