"""Offline recall evaluation (LoCoMo) through the same services as the REST API.

``jarvis-memory eval locomo`` ingests every conversation turn with ``MemoryService.add_many``,
asks every question with ``RecallService.recall_memories(track=False)`` and reports
recall@k per question category next to a naive BM25 baseline computed by the same harness.
"""
