"""Remembering: MemoryService (add, merge, edit, forget, link), batch ingest, frequency,
near-duplicates, impact, fact correction, reindex and importers."""
