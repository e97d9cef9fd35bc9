"""Docs that cannot go stale: generated from the code and the running service.

``python -m docsgen`` (``make docs``) rewrites the README's walkthrough from what a fresh
server answers, its command-line sample from what the CLI prints, and
docs/configuration.md from the settings class; tests/docs/ fails when
any of them differs from what is committed.
"""
