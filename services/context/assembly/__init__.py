"""Context assembly (seeds 001 and 003): the messages to send to a chat model within one
token budget: private memories first, the history in a sliding window with its rolling
summary, the key user information, and the service that answers ``/context``
(``service.py``)."""
