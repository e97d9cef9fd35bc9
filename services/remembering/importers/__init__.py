"""Importers of conversation histories into memories, through ``MemoryService.add_many``."""
