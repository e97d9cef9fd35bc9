"""Recall: RecallService, tracked recall, lexical relevance, and ranking (signals, query
types, time expressions, MMR, explanations)."""
