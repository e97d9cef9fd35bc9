"""Context assembly for a chat model: message importance, token estimates, compression."""
