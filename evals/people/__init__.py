"""People written as chat: recall in three write modes, fit and test parts (README.md)."""
