"""Admin inspection: read-only views of every user's memories, scores and job runs."""
