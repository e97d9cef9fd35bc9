"""The rolling summary (seed 003): older messages folded into one ``context_summary``
message, extractive or written by the optional LLM (``writer.py`` chooses), and the memory
cards its new statements become."""
