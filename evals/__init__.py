"""Evaluations of the service: tools that measure it, not part of the product."""
