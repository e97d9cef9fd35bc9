"""Optional embeddings: providers, vector storage and per-user semantic search (issue 3)."""
