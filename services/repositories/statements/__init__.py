"""The statement builders: fixed statements per dialect that the repositories execute
(BM25, rescoring, a tracked recall's counting, corpus statistics, topics, the add path)."""
