"""The OpenAI-compatible memory proxy: a chat frontend's requests go to its model with the
person's memories in them, and the person's turns are remembered (docs/chat-proxy.md)."""
