"""Run the scenarios through the real services, as a chat frontend would use them.

*Recall.* Each person is a fresh user. Every statement is written on its own, in its own
unit of work, with the clock standing at the instant it was said (``MemoryService.add``,
what ``POST /v1/users/{id}/memories`` calls). Then, with the clock at the person's
``now`` (one minute later per question), every question is one tracked recall of
``TOP_K`` through ``recall_and_track``, what ``POST /v1/users/{id}/recall`` runs with
``track`` on, in the file's order: the counts a question adds shape the next answers, as
they would for a real person. Around every recall the user's ``recall_count`` column is
read from the database, so the counts a question added to memories that are not an
acceptable result for it are measured, not inferred from the answer.

*Cards.* Each ``/context`` conversation is sent once, to a fresh user, through
``ContextService.assemble`` (what ``POST /v1/users/{id}/context`` calls) with a budget
small enough that the early turns are summarised and ``extract_cards`` forced on, so the
junk rate is measured whatever the default; the memories the call wrote are the cards.

Fields that later versions of recall add (a hit's ``confidence``; seed 001's ``sufficient``
verdict) are read when present.
"""

from __future__ import annotations

import importlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import select

from evals.embedding_step import embed_user
from evals.scenario_data import (
    Person,
    ScenarioConversation,
    ScenarioQuestion,
)
from models.memory import UserMemory
from services.composition import Services
from services.context.assembly.service import ContextRequest
from services.context.shared.messages import ChatMessage
from services.core.db import Database
from services.core.settings import Settings
from services.recall.recall_service import RecallHit
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import NewMemory

log = logging.getLogger(__name__)

TOP_K: Final = 5
# The /context call of a scenario conversation: small enough that everything before the
# last few turns is folded into the rolling summary (whose new bullets become cards).
CONTEXT_BUDGET_TOKENS: Final = 260
CONTEXT_PRESERVE_RECENT: Final = 2
# When a conversation's person is not part of the run.
CONVERSATION_NOW: Final = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
_NOT_TEXT = re.compile(r"[\W_]+", re.UNICODE)


class StepClock:
    """The evaluation's clock: set to each statement's instant, then to question time."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True)
class Returned:
    """One recall result: which statements its memory holds and whether it is acceptable."""

    memory_id: int
    statements: frozenset[str]
    acceptable: bool
    answer: bool
    confidence: float | None = None  # when the recall API reports one


@dataclass(frozen=True)
class QuestionOutcome:
    """What one tracked recall returned and what it did to the recall counts."""

    person: str
    question: ScenarioQuestion
    returned: tuple[Returned, ...]
    counts_added_acceptable: int  # recall_count increase on acceptable memories
    counts_added_filler: int  # … on every other memory of the person
    milliseconds: float
    sufficient: bool | None = None  # when the recall API reports it

    @property
    def hit_at_1(self) -> bool:
        """The first result is an answer (False when nothing came back)."""
        return bool(self.returned) and self.returned[0].answer

    @property
    def answered(self) -> bool:
        """An answer is among the results."""
        return any(r.answer for r in self.returned)

    @property
    def filler(self) -> int:
        """Results that are not acceptable for this question."""
        return sum(not r.acceptable for r in self.returned)


@dataclass(frozen=True)
class PersonOutcome:
    """One person's store after the run."""

    person: str
    user_id: str
    statements: int
    memories: int
    never_acceptable_recall_count: int  # final recall_count of memories no question accepts
    ingest_seconds: float


@dataclass(frozen=True)
class CardOutcome:
    """One card a ``/context`` call wrote."""

    content: str
    memory_type: str
    worthy: bool


@dataclass(frozen=True)
class ConversationOutcome:
    """What one ``/context`` call wrote and summarised."""

    conversation: str
    language: str
    cards: tuple[CardOutcome, ...]
    worthy_statements: int
    worthy_carded: int  # labelled statements that became a card
    summary_method: str | None
    summary: str | None


@dataclass
class ScenarioRun:
    """Every outcome of a run."""

    top_k: int = TOP_K
    people: list[PersonOutcome] = field(default_factory=list)
    questions: list[QuestionOutcome] = field(default_factory=list)
    conversations: list[ConversationOutcome] = field(default_factory=list)
    optional_fields: set[str] = field(default_factory=set)  # seen on recall hits


def folded(text: str) -> str:
    """Case-folded text without spaces or punctuation, to compare a card with a label."""
    return _NOT_TEXT.sub("", text).casefold()


def is_worthy(card: str, labels: Sequence[str]) -> bool:
    """A card is worthy when it holds a labelled statement or is part of one."""
    text = folded(card)
    return bool(text) and any((label := folded(w)) in text or text in label for w in labels)


async def _recall_counts(db: Database, user_id: str) -> dict[int, int]:
    async with db.unit_of_work() as session:
        rows = await session.execute(
            select(UserMemory.id, UserMemory.recall_count).where(UserMemory.user_id == user_id)
        )
        return {int(memory_id): int(count) for memory_id, count in rows.all()}


async def _ingest(
    services: Services, clock: StepClock, user_id: str, person: Person
) -> dict[int, set[str]]:
    """Write every statement on its own at its instant (``services`` read ``clock``);
    memory id → statement ids."""
    by_memory: dict[int, set[str]] = {}
    for statement in person.statements:
        clock.now = statement.at
        async with services.db.unit_of_work() as session:
            stored = await services.memories(session).add(
                user_id, NewMemory(content=statement.text, created_at=statement.at)
            )
        by_memory.setdefault(stored.memory.id, set()).add(statement.id)
    return by_memory


def _confidence(hit: object) -> float | None:
    value = getattr(hit, "confidence", None)
    return float(value) if isinstance(value, int | float) else None


def _sufficiency_verdict() -> Callable[..., Any] | None:
    """Seed 001 §1.2's "is private memory enough?" when this recall provides it
    (``services.recall.sufficiency.sufficiency(evidence, confidences, settings, asked=)``);
    None before it does, and the report leaves ``sufficient`` out."""
    try:
        module = importlib.import_module("services.recall.sufficiency")
    except ImportError:
        return None
    verdict = getattr(module, "sufficiency", None)
    return verdict if callable(verdict) else None


def _sufficient(
    verdict: Callable[..., Any] | None, hits: Sequence[object], settings: Settings, query: str
) -> bool | None:
    if verdict is None:
        return None
    try:
        found = verdict(
            [getattr(h, "evidence", None) for h in hits],
            [getattr(h, "confidence", None) for h in hits],
            settings,
            asked=bool(query.strip()),
        )
    except (TypeError, AttributeError) as exc:  # another shape of the API: not measured
        log.warning("recall sufficiency not measured: %s", exc)
        return None
    value = getattr(found, "sufficient", None)
    return value if isinstance(value, bool) else None


async def ask(
    services: Services, user_id: str, query: str, top_k: int = TOP_K, *, track: bool = True
) -> list[RecallHit]:
    """One question as the evaluation asks it: the composition root's recall (the one
    ``jarvis-memory serve`` answers with), ranked in a reader and counted after."""
    return await recall_and_track(services.db, services.recall, user_id, query, top_k, track=track)


async def run_person(services: Services, person: Person, user_id: str, run: ScenarioRun) -> None:
    """Ingest one person, ask every question tracked, and record the outcomes in ``run``.

    With embeddings configured the backfill job embeds the person's memories after the
    writes (as the server's scheduler does) and recall uses the semantic signal.
    """
    clock = StepClock(person.statements[0].at if person.statements else person.now)
    timed = services.at(clock)
    db, settings = services.db, services.settings
    started = time.perf_counter()
    by_memory = await _ingest(timed, clock, user_id, person)
    if services.embeddings is not None:
        await embed_user(db, settings, clock, services.embeddings, user_id)
    ingest_seconds = time.perf_counter() - started

    accepted_anywhere = {s for q in person.questions for s in q.acceptable}
    verdict = _sufficiency_verdict()
    for index, question in enumerate(person.questions):
        clock.now = person.now + timedelta(minutes=index)
        before = await _recall_counts(db, user_id)
        asked = time.perf_counter()
        hits = await ask(timed, user_id, question.text, run.top_k)
        milliseconds = (time.perf_counter() - asked) * 1000.0
        after = await _recall_counts(db, user_id)
        returned = []
        for hit in hits:
            statements = frozenset(by_memory.get(hit.memory.id, set()))
            confidence = _confidence(hit)
            if confidence is not None:
                run.optional_fields.add("confidence")
            returned.append(
                Returned(
                    hit.memory.id,
                    statements,
                    bool(statements & question.acceptable),
                    bool(statements & question.answers),
                    confidence,
                )
            )
        added = {mid: after.get(mid, 0) - before.get(mid, 0) for mid in after}
        good = {mid for mid, ids in by_memory.items() if ids & question.acceptable}
        sufficient = _sufficient(verdict, hits, settings, question.text)
        if sufficient is not None:
            run.optional_fields.add("sufficient")
        run.questions.append(
            QuestionOutcome(
                person.id,
                question,
                tuple(returned),
                sum(n for mid, n in added.items() if mid in good),
                sum(n for mid, n in added.items() if mid not in good),
                milliseconds,
                sufficient,
            )
        )
    final = await _recall_counts(db, user_id)
    run.people.append(
        PersonOutcome(
            person.id,
            user_id,
            len(person.statements),
            len(by_memory),
            sum(final.get(mid, 0) for mid, ids in by_memory.items() if not ids & accepted_anywhere),
            ingest_seconds,
        )
    )


async def run_conversation(
    services: Services, conversation: ScenarioConversation, user_id: str, now: datetime
) -> ConversationOutcome:
    """One ``/context`` call with cards on; every memory it wrote is judged a card."""
    clock = StepClock(now)
    messages = [ChatMessage(m.role, m.content) for m in conversation.messages]
    request = ContextRequest(
        messages=messages,
        budget_tokens=CONTEXT_BUDGET_TOKENS,
        preserve_recent=CONTEXT_PRESERVE_RECENT,
        extract_cards=True,
        conversation_id=conversation.id,
    )
    timed = services.at(clock)
    async with services.db.unit_of_work() as session:
        assembled = await timed.context(session).assemble(user_id, request)
    async with services.db.unit_of_work() as session:
        rows = await session.execute(
            select(UserMemory.content, UserMemory.memory_type)
            .where(UserMemory.user_id == user_id)
            .order_by(UserMemory.id)
        )
        written = rows.all()
    labels = [w for m in conversation.messages for w in m.card_worthy]
    cards = tuple(CardOutcome(c, t, is_worthy(c, labels)) for c, t in written)
    carded = sum(any(is_worthy(c.content, [label]) for c in cards) for label in labels)
    summary = assembled.summary
    return ConversationOutcome(
        conversation.id,
        conversation.language,
        cards,
        len(labels),
        carded,
        summary.method if summary else None,
        summary.message.content if summary else None,
    )


async def run_scenarios(
    services: Services,
    people: Sequence[Person],
    conversations: Sequence[ScenarioConversation],
    user_prefix: str,
) -> ScenarioRun:
    """Every person and conversation, each under ``user_prefix`` + its id, on the
    composition root's services (what ``jarvis-memory serve`` answers with)."""
    run = ScenarioRun()
    for person in people:
        user_id = f"{user_prefix}{person.id}"
        await run_person(services, person, user_id, run)
    when = {p.id: p.now for p in people}
    for conversation in conversations:
        now = when.get(conversation.person, CONVERSATION_NOW)
        user_id = f"{user_prefix}ctx-{conversation.id}"
        run.conversations.append(await run_conversation(services, conversation, user_id, now))
    return run
