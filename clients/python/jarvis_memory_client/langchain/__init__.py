"""LangChain integration (``pip install 'jarvis-memory-client[langchain]'``).

``JarvisMemoryRetriever`` recalls a person's memories as ``Document``s;
``JarvisChatMessageHistory`` keeps a conversation's turns as memories. Only this
subpackage imports ``langchain_core``: the base client works without it.
"""

from jarvis_memory_client.langchain.history import JarvisChatMessageHistory
from jarvis_memory_client.langchain.retriever import JarvisMemoryRetriever, to_document

__all__ = ["JarvisChatMessageHistory", "JarvisMemoryRetriever", "to_document"]
