"""What a memory is embedded as: a statement alone, a turn of a conversation with the
turns said just before it.

A reply means little on its own ("Yes, twice a week", "That's the one I told you
about"): what it answers is in the turns before it. So a turn of a conversation
(``conversation_id``) is embedded as

    turn_{-n} ⏎ … ⏎ turn_{-1} ⏎ turn

with up to ``EMBEDDING_CONTEXT_TURNS`` turns of the same conversation said just before it
(the neighbours session continuity uses, services/repositories/neighbours.py), oldest
first. A statement (no conversation) is embedded alone, and so is every query.

Measured on the LoCoMo development split with the bundled model (its turns are the only
conversations in our data), ``EMBEDDING_CONTEXT_TURNS=n`` and ``make eval-embedding``'s
LoCoMo command: R@10 (categories 1-5) 79.6 with one turn before it, 81.1 with two
(docs/eval/locomo_dev_embedding_multilingual.md), 79.4 with three (more of the vector is
about what others said; 1 and 3 were measured with the confidence constants before
the last refit), 77.6 with each turn alone.

The vectors' model name carries the count (``+turns2``), so changing it re-embeds every
memory, as a change of model does. A turn's vector is made from the text its earlier
turns had when it was embedded; editing a turn re-embeds that turn, not the ones after it.
"""

from __future__ import annotations

from collections.abc import Sequence


def embedded_text(content: str, before: Sequence[str]) -> str:
    """``content`` after the turns said before it (oldest first), a line each."""
    return "\n".join([*before, content])


def model_name(model: str, context_turns: int) -> str:
    """The name stored with the vectors: the provider's model and how turns are embedded."""
    return f"{model}+turns{context_turns}" if context_turns > 0 else model
