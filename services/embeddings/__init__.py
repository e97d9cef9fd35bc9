"""Optional embeddings: providers, vector storage and per-user semantic search."""
