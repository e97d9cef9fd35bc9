"""A typed Python client for jarvis-memory: ``JarvisMemory`` (sync) and
``AsyncJarvisMemory`` (async), over httpx."""

from jarvis_memory_client.async_client import AsyncJarvisMemory
from jarvis_memory_client.client import JarvisMemory
from jarvis_memory_client.errors import (
    AuthenticationError,
    ConflictError,
    DatabaseBusyError,
    InvalidInputError,
    JarvisMemoryError,
    NotFoundError,
    PermissionDeniedError,
    ServerError,
    ServiceUnavailableError,
)

__all__ = [
    "AsyncJarvisMemory",
    "AuthenticationError",
    "ConflictError",
    "DatabaseBusyError",
    "InvalidInputError",
    "JarvisMemory",
    "JarvisMemoryError",
    "NotFoundError",
    "PermissionDeniedError",
    "ServerError",
    "ServiceUnavailableError",
]
