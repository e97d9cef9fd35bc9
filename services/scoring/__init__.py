"""Importance scoring (seed 002): the pure ImportanceScorer, set-based rescoring, and the
scheduled jobs that keep every score fresh."""
