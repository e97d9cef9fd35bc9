"""All behaviour of the memory service; imports models, never api."""
