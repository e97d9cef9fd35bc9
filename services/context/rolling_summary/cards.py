"""Memory cards (seed 003 §3): statements of a summary worth remembering for later.

While a rolling summary is written, its new bullets under Goal, Decisions, Constraints,
TODOs, Important Snippets and Key Facts become memories of type goal, decision,
constraint, todo, code and fact (fact becomes preference when it states a liking), with
topic tags in ``metadata.tags`` and the conversation id as ``source``. Bullets carried
over from an earlier summary are not carded again: they were when they were new.

A card is only ever what the **person** stated: a statement of a user message
(a fact, preference, plan, decision, TODO or constraint of theirs). Never an assistant
sentence (its advice is not the person's constraint, its proposal not their decision),
never a question, a request to the assistant or a pleasantry
(:mod:`services.context.rolling_summary.statements`). An assistant suggestion the person
accepts becomes a card when the person states it (「好的，就定 1399」); a bare 「好的」 or
"Right." says too little to tell acceptance from acknowledgement, so it is not carded. The LLM
writer is asked for the same, and its cards are checked for questions and pleasantries too.

They are stored through :meth:`MemoryService.add_many`, which merges exact and near
duplicates into the existing memory and raises its mention count, so a statement repeated
across conversations gains frequency instead of piling up copies (seed 003: "记忆会按
content 去重追加").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from services.context.rolling_summary.extractive import Candidate
from services.context.rolling_summary.statements import form_of
from services.remembering.memory_service import MemoryService, NewMemory, StoredMemory

CARD_TYPES: Final = ("goal", "decision", "constraint", "todo", "code", "fact", "preference")
HEADING_TYPES: Final[dict[str, str]] = {
    "Goal": "goal",
    "Decisions": "decision",
    "Constraints": "constraint",
    "TODOs": "todo",
    "Important Snippets": "code",
    "Key Facts": "fact",
}
# Only statements the scorer rates at least this (0-10 message scale plus the cue bonus)
# are carded: a summary keeps context, a card is meant to matter weeks later.
CARD_MIN_SCORE: Final = 5.0
MAX_CARDS: Final = 20
MAX_TAGS: Final = 5
CARD_ORIGIN: Final = "context_summary"
_PREFERENCE = re.compile(
    r"喜欢|偏好|爱吃|爱喝|讨厌|不爱|\bprefers?\b|\bI (really )?(like|love|hate|enjoy)\b"
    r"|\bfavou?rite\b",
    re.I,
)


@dataclass(frozen=True)
class Card:
    """One statement to remember."""

    content: str
    memory_type: str
    tags: tuple[str, ...] = ()


def card_type(heading: str, text: str) -> str | None:
    """The memory type a bullet under ``heading`` becomes (None: not carded)."""
    found = HEADING_TYPES.get(heading)
    if found == "fact" and _PREFERENCE.search(text):
        return "preference"
    return found


def is_card_worthy(candidate: Candidate) -> bool:
    """The person's own statement (not the assistant's, not a request or question)."""
    return (
        candidate.role == "user"
        and candidate.form == "statement"
        and form_of(candidate.text) not in ("question", "pleasantry")
    )


def llm_cards_worth_keeping(cards: Sequence[Card]) -> list[Card]:
    """The LLM's cards without questions and pleasantries (it was asked for statements)."""
    return [
        c
        for c in cards
        if form_of(c.content) not in ("question", "pleasantry")
        and not c.content.rstrip().endswith(("?", "？"))
    ]


def cards_from_candidates(
    kept: Sequence[Candidate], keywords: Callable[[str], list[str]]
) -> list[Card]:
    """Cards from the new, well-scored bullets of an extractive summary (best first)."""
    cards: list[Card] = []
    for candidate in sorted(kept, key=lambda c: -c.score):
        if candidate.message_index is None or not is_card_worthy(candidate):
            continue
        kind = card_type(candidate.heading, candidate.text)
        if kind is None or candidate.score < CARD_MIN_SCORE:
            continue
        cards.append(Card(candidate.text, kind, tuple(keywords(candidate.text)[:MAX_TAGS])))
    return cards[:MAX_CARDS]


async def save_cards(
    service: MemoryService, user_id: str, cards: Sequence[Card], source: str | None
) -> list[StoredMemory]:
    """Remember the cards; repeats merge into existing memories (frequency + 1)."""
    if not cards:
        return []
    return await service.add_many(
        user_id,
        [
            NewMemory(
                content=card.content,
                memory_type=card.memory_type,
                source=source,
                metadata={"tags": list(card.tags), "origin": CARD_ORIGIN},
            )
            for card in cards
        ],
    )
