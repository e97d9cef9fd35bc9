"""One backfill batch embedded even when some of its texts cannot be: split, retry, mark.

A batch the provider fails (an error, a malformed answer, a time-out) is split in two and
each half retried, down to the single text, so the texts the provider can embed get
their vectors and only the one it cannot is left out. That text is reported as failed,
and the backfill records it (models/embedding.py ``EmbeddingFailure``) so later runs skip
it instead of retrying the same batch forever.

A provider that is down fails every text, and marking all of them would hide them until
they were edited. So every failure is followed by a probe (a short text, with the
provider's ordinary time-out; it may go down half-way through a split): a text is called
failed only when it failed alone and the probe right after it was embedded. A probe that
fails raises the failure: the run ends ``failed`` with nothing marked and the next run
tries again. A provider that is down costs one failing call and one probe; one bad text
among ``n`` costs about ``2·log2(n)`` calls and as many probes, each call bounded by the
backfill's time-out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from services.embeddings.providers import EmbeddingUnavailable
from services.embeddings.vectors import Vector

# What the probe embeds: short, plain, embedded by any model.
PROBE_TEXT = "a short probe to check the embedding provider answers"

EmbedTexts = Callable[[Sequence[str]], Awaitable[list[Vector]]]


@dataclass
class Split:
    """Per text of the batch, its vector (None where it failed); ``failed``: index →
    the provider's error for that text alone."""

    vectors: list[Vector | None]
    failed: dict[int, str] = field(default_factory=dict)


async def embed_apart(texts: Sequence[str], embed: EmbedTexts, probe: EmbedTexts) -> Split:
    """Embed ``texts`` with ``embed``, splitting a failing batch down to single texts.

    ``probe`` embeds :data:`PROBE_TEXT` (with the provider's ordinary time-out) after
    every failure: a text is reported failed only if the probe succeeds right after it
    failed alone. Raises the failure's :class:`EmbeddingUnavailable` when the provider
    itself does not answer.
    """
    split = Split([None] * len(texts))
    await _attempt(texts, 0, len(texts), embed, probe, split)
    return split


async def _attempt(
    texts: Sequence[str], lo: int, hi: int, embed: EmbedTexts, probe: EmbedTexts, split: Split
) -> None:
    """Embed ``texts[lo:hi]``; on failure (the provider still answering) its two halves."""
    try:
        split.vectors[lo:hi] = await embed(texts[lo:hi])
        return
    except EmbeddingUnavailable as exc:
        try:
            await probe([PROBE_TEXT])
        except EmbeddingUnavailable:
            raise exc from None  # the provider is down, not this text
        if hi - lo == 1:
            split.failed[lo] = f"{type(exc).__name__}: {exc}"
            return
    middle = (lo + hi) // 2
    await _attempt(texts, lo, middle, embed, probe, split)
    await _attempt(texts, middle, hi, embed, probe, split)
