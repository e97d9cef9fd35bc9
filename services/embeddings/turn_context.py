"""What a memory is embedded as: a statement alone, a turn of a conversation with the
turns said just before it.

A reply means little on its own ("Yes, twice a week", "That's the one I told you
about"): what it answers is in the turns before it. So a turn of a conversation
(``conversation_id``) is embedded as

    turn_{-n} ⏎ … ⏎ turn_{-1} ⏎ turn

with up to ``EMBEDDING_CONTEXT_TURNS`` turns of the same conversation said just before it
(the neighbours session continuity uses, services/repositories/neighbours.py), oldest
first. A statement (no conversation) is embedded alone, and so is every query.

Off by default (``EMBEDDING_CONTEXT_TURNS`` 0): every turn is embedded alone. On the fit
part of evals/people (``python -m evals.people.sweep``, recall's ranking at
``min_confidence`` 0), context ranked answers lower in both conversation modes, whether
every turn took it (the turn after an answer carried the answer's words and came first)
or only replies that lean on what came before (``EMBEDDING_CONTEXT_ONLY_LEANING``; one or
two turns). On LoCoMo's development split, where both speakers' turns are stored and
many answers are in replies, two turns of context had ranked better: the people are
what a chat frontend writes, so they decide, and ``make eval-embedding`` reports what
LoCoMo's recall@k is now.

The vectors' model name carries the count (``+turns2``), so changing it re-embeds every
memory, as a change of model does. A turn's vector is made from the text its earlier
turns had when it was embedded; editing a turn re-embeds that turn, not the ones after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

# A reply that opens with one of these answers what was said before it ("Yes, Terminal
# 2.", "That one.", 「对，就那家」, 「嗯，下周去」).
_LEANING_OPENERS: Final = re.compile(
    r"^\s*(?:yes|yeah|yep|yup|no|nope|nah|ok|okay|sure|right|exactly|correct|true|"
    r"that|this|those|these|it|its|it's|both|neither|either|same|the latter|the former|"
    r"interfaces it is|sounds good|good idea|agreed|definitely|probably|maybe)\b"
    r"|^\s*(?:对|是的|是啊|不是|好的|好啊|好|行|嗯|没有|没|不用|不|那个|这个|那|这|就|它|都|两个|"
    r"可以|算了|对的|没错|也行)",
    re.IGNORECASE,
)
_WORD: Final = re.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff]")
# A turn of at most this many words (a Chinese character counts as half a word) says
# too little on its own for its vector to mean anything without what came before.
SHORT_TURN_WORDS: Final = 5


def leans_on_context(content: str) -> bool:
    """Whether a turn leaves out what it is about: a short reply, or one that opens by
    answering or pointing back ("Yes, twice a week", 「那个就行」). Only such a turn is
    embedded with the turns before it; any other turn's vector is its own text's, so the
    turn after an answer cannot carry the answer's words (it did when every turn was
    embedded with the two before it)."""
    units = sum(0.5 if len(w) == 1 and not w.isascii() else 1.0 for w in _WORD.findall(content))
    return units <= SHORT_TURN_WORDS or bool(_LEANING_OPENERS.match(content))


def embedded_text(content: str, before: Sequence[str]) -> str:
    """``content`` after the turns said before it (oldest first), a line each."""
    return "\n".join([*before, content])


def model_name(model: str, context_turns: int, only_leaning: bool = False) -> str:
    """The name stored with the vectors: the provider's model and how turns are embedded
    (``+lean2``: a turn that leans on what came before with up to two earlier turns;
    ``+turns2``: every turn with two)."""
    if context_turns <= 0:
        return model
    return f"{model}+{'lean' if only_leaning else 'turns'}{context_turns}"
