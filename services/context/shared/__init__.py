"""What message importance, the rolling summary and context assembly share: the chat
message, token estimates, the LLM client and the compression levels."""
