"""ORM models only: no queries, no I/O, no settings."""

from models.api_key import ApiKey
from models.association import ASSOCIATION_KINDS, MemoryAssociation
from models.base import Base, UTCDateTime
from models.embedding import EmbeddingFailure, MemoryEmbedding
from models.history import JobRun, MemoryScoreHistory
from models.index import MemoryTerm, MemoryTermStat, MemoryTopic
from models.memory import IMPORTANCE_LEVELS, MEMORY_ROLES, MEMORY_TYPES, MemoryUser, UserMemory
from models.message_score import CompressionRecord, MessageScoreRecord

__all__ = [
    "ASSOCIATION_KINDS",
    "IMPORTANCE_LEVELS",
    "MEMORY_ROLES",
    "MEMORY_TYPES",
    "ApiKey",
    "Base",
    "CompressionRecord",
    "EmbeddingFailure",
    "JobRun",
    "MemoryAssociation",
    "MemoryEmbedding",
    "MemoryScoreHistory",
    "MemoryTerm",
    "MemoryTermStat",
    "MemoryTopic",
    "MemoryUser",
    "MessageScoreRecord",
    "UTCDateTime",
    "UserMemory",
]
