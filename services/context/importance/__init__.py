"""Chat-message importance (seed 000): the hybrid scorer (rules, optional LLM, recency),
scoring in the background, smart_compress and the phase switch, and the service that
scores and compresses a conversation (``service.py``)."""
