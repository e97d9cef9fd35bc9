"""A LangChain retriever over ``POST /v1/users/{id}/recall``."""

from __future__ import annotations

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, model_validator

from jarvis_memory_client.async_client import AsyncJarvisMemory
from jarvis_memory_client.client import JarvisMemory
from jarvis_memory_client.types import MemoryType, RecallHit, RecallOptions, RerankMode


def to_document(hit: RecallHit) -> Document:
    """A recalled memory as a ``Document``: its content, and in ``metadata`` the memory's
    ``id``, the hit's ``score``, ``relevance``, ``importance``, ``confidence`` and
    ``evidence`` as recall answered them, and the memory's type, role, conversation and
    creation time. ``Document.id`` is the memory id as a string."""
    memory = hit["memory"]
    return Document(
        id=str(memory["id"]),
        page_content=memory["content"],
        metadata={
            "id": memory["id"],
            "user_id": memory["user_id"],
            "score": hit["score"],
            "relevance": hit["relevance"],
            "importance": hit["importance"],
            "confidence": hit["confidence"],
            "evidence": hit["evidence"],
            "memory_type": memory["memory_type"],
            "importance_level": memory["importance_level"],
            "role": memory["role"],
            "conversation_id": memory.get("conversation_id"),
            "created_at": memory["created_at"],
        },
    )


class JarvisMemoryRetriever(BaseRetriever):
    """The memories of one person that matter for a query, best first.

    Give ``client`` (sync), ``async_client`` (async) or both; without ``async_client``
    the async path runs the sync client in LangChain's executor. The recall options left
    at None are not sent, so the service's settings apply (``top_k`` is the service's
    own default too). A recall may return fewer than ``top_k`` documents, or none: the
    service returns only memories with evidence for the query (docs/api.md, Recall).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    user_id: str
    client: JarvisMemory | None = None
    async_client: AsyncJarvisMemory | None = None
    top_k: int | None = None
    types: list[MemoryType] | None = None
    min_confidence: float | None = None
    rerank_mode: RerankMode | None = None
    track: bool | None = None
    include_superseded: bool | None = None

    @model_validator(mode="after")
    def _has_a_client(self) -> JarvisMemoryRetriever:
        if self.client is None and self.async_client is None:
            raise ValueError("give client (JarvisMemory), async_client, or both")
        return self

    def _options(self) -> RecallOptions:
        options = RecallOptions()
        if self.top_k is not None:
            options["top_k"] = self.top_k
        if self.types is not None:
            options["types"] = self.types
        if self.min_confidence is not None:
            options["min_confidence"] = self.min_confidence
        if self.rerank_mode is not None:
            options["rerank_mode"] = self.rerank_mode
        if self.track is not None:
            options["track"] = self.track
        if self.include_superseded is not None:
            options["include_superseded"] = self.include_superseded
        return options

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.client is None:
            raise ValueError("this retriever has only an async_client: use ainvoke")
        found = self.client.recall(self.user_id, query, **self._options())
        return [to_document(hit) for hit in found["results"]]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_client is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        found = await self.async_client.recall(self.user_id, query, **self._options())
        return [to_document(hit) for hit in found["results"]]
