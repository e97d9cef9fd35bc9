"""Fact correction (seed 001 §3.4): slots, the order rule and the corrector."""
