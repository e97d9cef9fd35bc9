"""MemoryService: remember, merge, edit, forget and link a user's memories.

Built per unit of work from a session; never commits (the edge that opened the unit
of work does). Scores are written by the same SQL that the scheduled job runs, so a
memory's score right after a write equals what the next rescoring would give it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryAssociation, MemoryScoreHistory, UserMemory
from services.core.clock import Clock
from services.core.db import after_commit
from services.core.errors import (
    DuplicateContent,
    InvalidInput,
    MemoryNotFound,
    NotSuperseded,
    SupersedeCycle,
)
from services.core.pacing import chunks
from services.core.secret import hash_secret, keyed_hash
from services.core.settings import Settings
from services.core.time_zones import person_zone
from services.core.validation import (
    check_batch_size,
    check_content,
    check_created_at,
    check_memory_type,
    check_metadata,
    check_role,
    check_tags,
    check_text,
    check_user_id,
)
from services.embeddings.service import Embeddings
from services.embeddings.vectors import Vector
from services.remembering.facts.corrector import FactCorrector
from services.remembering.facts.resolve import SlotFact
from services.remembering.facts.slots import Fact, extract_fact
from services.remembering.frequency import FrequencyTracker
from services.remembering.impact import ImpactEvaluator
from services.remembering.ingest import BatchIngest, Outcome, Statement
from services.repositories.associations import AssociationRepository
from services.repositories.embeddings import EmbeddingRepository
from services.repositories.erasure import ErasureRepository
from services.repositories.facts import FactRepository
from services.repositories.memories import MemoryRepository, Order
from services.repositories.neighbours import Anchor, NeighbourRepository
from services.repositories.search import SearchRepository
from services.text import normalize_content
from services.text.analysis import AnalyzedText, TextAnalyzer


@dataclass
class NewMemory:
    """A statement to remember."""

    content: str
    memory_type: str = "other"
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    emotion_tags: list[str] = field(default_factory=list)
    created_at: datetime | None = None
    # The dialogue this statement is a turn of (recall's continuity stays inside one).
    conversation_id: str | None = None
    # Whose words: "user" (the person's own) or "assistant" (a reply kept as context of a
    # conversation). An assistant turn merges only with the assistant's words, and states
    # no fact about the person (it neither sets nor supersedes a fact slot).
    role: str = "user"


@dataclass
class MemoryChanges:
    """A partial update; None leaves a field as it is."""

    content: str | None = None
    memory_type: str | None = None
    source: str | None = None
    metadata: dict[str, Any] | None = None
    emotion_tags: list[str] | None = None


@dataclass(frozen=True)
class StoredMemory:
    """The outcome of an add: the memory and whether it merged into an existing one."""

    memory: UserMemory
    merged: bool


@dataclass(frozen=True)
class MemoryPage:
    """One page of a listing and the cursor for the next (None at the end)."""

    items: list[UserMemory]
    next_cursor: str | None


def quotable(content: str) -> list[str]:
    """What of a text, normalised, a stored reason must not repeat once it is forgotten:
    the whole text (8 characters or more), and each word of 4 or more characters with a
    digit in it (a PIN, a code, a phone number: what an LLM's reason would quote)."""
    text = normalize_content(content)
    words = [w for w in text.split() if len(w) >= 4 and any(c.isdigit() for c in w)]
    return [text, *words] if len(text) >= 8 else words


def encode_cursor(order: Order, memory: UserMemory) -> str:
    """An opaque keyset cursor: the sort key and id of the last row of a page."""
    key = memory.importance_score if order == "importance" else memory.created_at.isoformat()
    raw = json.dumps({"o": order, "k": key, "i": memory.id}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(order: Order, cursor: str) -> tuple[Any, int]:
    """The (sort key, id) inside a cursor made by ``encode_cursor`` for the same order."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if raw["o"] != order:
            raise InvalidInput("cursor belongs to a different order")
        key = float(raw["k"]) if order == "importance" else datetime.fromisoformat(raw["k"])
        if isinstance(key, datetime) and key.tzinfo is None:
            raise InvalidInput("malformed cursor")
        if isinstance(key, float) and not math.isfinite(key):
            raise InvalidInput("malformed cursor")
        return key, int(raw["i"])
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise InvalidInput("malformed cursor") from exc


def _stated_fact(content: str, role: str) -> Fact | None:
    """The fact a memory states about the person: only the person's own words state one
    ("You live in Oslo, right?" from the assistant is not the person moving there)."""
    return extract_fact(content) if role == "user" else None


class MemoryService:
    """Per-user memory operations over one session."""

    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        analyzer: TextAnalyzer,
        clock: Clock,
        embeddings: Embeddings | None = None,
    ) -> None:
        self.settings = settings
        self.analyzer = analyzer
        self.clock = clock
        self.embeddings = embeddings
        self.memories = MemoryRepository(session)
        self.search = SearchRepository(session)
        self.links = AssociationRepository(session)
        self.frequency = FrequencyTracker(self.memories, self.search, settings)
        self.impact = ImpactEvaluator(self.search, self.links, settings)
        self.facts = FactRepository(session)
        self.ingest = BatchIngest(
            self.memories, self.search, self.links, self.facts, self.frequency, settings
        )
        self.corrector = FactCorrector(self.facts)
        # Keys the hash by which a message score recognises a forgotten text.
        self.secret = hash_secret(settings)

    async def get(self, user_id: str, memory_id: int) -> UserMemory:
        """One memory of this user; 404 for a missing one or another user's."""
        memory = await self.memories.get(check_user_id(user_id), memory_id)
        if memory is None:
            raise MemoryNotFound(memory_id)
        return memory

    async def add(self, user_id: str, item: NewMemory) -> StoredMemory:
        """Remember one statement, or merge it into the memory it repeats."""
        return (await self.add_many(user_id, [item]))[0]

    async def add_many(self, user_id: str, items: Sequence[NewMemory]) -> list[StoredMemory]:
        """Remember statements in order; a later item may merge into an earlier one.

        The whole batch is written with a few bulk statements (services/remembering/ingest.py). New
        memories that set a fact slot then supersede the older memories of that slot
        (services/remembering/facts), a later statement of the batch an earlier one.
        """
        check_user_id(user_id)
        check_batch_size([item.content for item in items])
        cleaned = [self._clean(item) for item in items]
        # jieba is CPU-bound: analyse off the event loop so other requests keep flowing.
        # The vectors are made meanwhile, before the first SQL statement: a slow provider
        # never holds the database's write lock (SQLite takes it at BEGIN IMMEDIATE).
        (analyses, facts), vectors = await asyncio.gather(
            asyncio.to_thread(self._analyze_all, cleaned),
            self._embed_new(cleaned),
        )
        statements = [
            Statement(
                i.content,
                i.memory_type,
                i.source,
                i.metadata,
                i.created_at,
                a,
                f.slot if f else None,
                i.conversation_id,
                i.role,
            )
            for i, a, f in zip(cleaned, analyses, facts, strict=True)
        ]
        now = self.clock()
        outcomes = await self.ingest.write(user_id, statements, now)
        await self._correct(user_id, cleaned, facts, outcomes, now)
        if self.embeddings is not None and vectors is not None:
            # A statement that created its memory holds that memory's text exactly.
            fresh = [
                (o.memory_id, v, i.content)
                for o, v, i in zip(outcomes, vectors, cleaned, strict=True)
                if v is not None and not o.merged
            ]
            await self.embeddings.store(self.memories.session, user_id, fresh, now)
        rows: dict[int, UserMemory] = {}
        # A few hundred rows per read: reading a thousand ORM rows is one stretch of
        # CPU on the event loop (services/core/pacing.py).
        for ids in chunks(sorted({o.memory_id for o in outcomes})):
            rows.update(await self.memories.get_many(user_id, ids))
        return [StoredMemory(rows[o.memory_id], o.merged) for o in outcomes]

    def _analyze_all(
        self, items: Sequence[NewMemory]
    ) -> tuple[list[AnalyzedText], list[Fact | None]]:
        """The analysis and stated fact of every item (CPU only: a worker thread's job)."""
        analyses = [self.analyzer.analyze(i.content, i.emotion_tags) for i in items]
        return analyses, [_stated_fact(i.content, i.role) for i in items]

    async def _reembed(
        self, memory: UserMemory, text: str, vectors: list[Vector] | None, now: datetime
    ) -> None:
        """Store an edited memory's new vector; without one, drop the old text's vector
        (it would mislead) and let the backfill make a new one."""
        if self.embeddings is None:
            return
        session, user_id = self.memories.session, memory.user_id
        # A turn's vector holds the turns before it: the backfill job makes it again.
        turn = memory.conversation_id is not None and self.embeddings.context_turns > 0
        if vectors is not None and not turn:
            await self.embeddings.store(session, user_id, [(memory.id, vectors[0], text)], now)
        else:
            await self.embeddings.forget(session, user_id, memory.id)
            self._backfill_after_commit()

    async def _embed_new(self, items: Sequence[NewMemory]) -> list[Vector | None] | None:
        """Vectors for new memories (:meth:`_embed`), None for a turn of a conversation
        when turns are embedded with the turns before them (services/embeddings/
        turn_context.py): the backfill job reads those from the database."""
        in_context = self.embeddings is not None and self.embeddings.context_turns > 0
        alone = [
            n for n, i in enumerate(items) if not (in_context and i.conversation_id is not None)
        ]
        made = await self._embed([items[n].content for n in alone])
        if made is None:
            return None
        if len(alone) < len(items):
            self._backfill_after_commit()
        found: list[Vector | None] = [None] * len(items)
        for n, vector in zip(alone, made, strict=True):
            found[n] = vector
        return found

    async def _embed(self, texts: list[str]) -> list[Vector] | None:
        """Vectors for new texts; None (logged) without a provider or when it fails.

        With ``embedding_at_write`` off (the default) none are made here: the write stays
        as fast as without a provider, and the backfill job is told to embed soon.
        """
        if self.embeddings is None:
            return None
        if not self.embeddings.settings.embedding_at_write:
            self._backfill_after_commit()
            return None
        made = await self.embeddings.try_embed(texts)
        if made is None:
            self._backfill_after_commit()
        return made

    def _backfill_after_commit(self) -> None:
        """Tell the backfill job once this unit of work has committed: before, its read
        could miss what this one is writing (services/embeddings/nudges.py)."""
        if self.embeddings is not None:
            after_commit(self.memories.session, self.embeddings.on_unembedded)

    async def _correct(
        self,
        user_id: str,
        items: Sequence[NewMemory],
        facts: Sequence[Fact | None],
        outcomes: Sequence[Outcome],
        now: datetime,
    ) -> None:
        """Run the fact corrector over the memories this batch stated, in stated order.

        A new memory is a new fact. A repeat of a current memory changes nothing, but a
        repeat of a *superseded* one of the same slot says the old value again ("I live
        in Beijing" after "I moved to Shanghai"): it is current again and supersedes,
        as of the repeat, what replaced it.
        """
        repeated = {
            o.memory_id for o, f in zip(outcomes, facts, strict=True) if o.merged and f is not None
        }
        superseded = await self.facts.superseded_slots(user_id, sorted(repeated))
        incoming: list[SlotFact] = []
        seen: set[int] = set()
        for item, fact, outcome in zip(items, facts, outcomes, strict=True):
            if fact is None or outcome.memory_id in seen:
                continue
            said = item.created_at or now
            if outcome.merged:
                if superseded.get(outcome.memory_id) != fact.slot:
                    continue
                said = now  # the old value, said again now
                await self.facts.clear(user_id, outcome.memory_id)
            seen.add(outcome.memory_id)
            incoming.append(SlotFact(outcome.memory_id, fact.slot, fact.value, said))
        await self.corrector.correct(user_id, incoming, now)

    def _clean(self, item: NewMemory) -> NewMemory:
        if item.created_at is not None:
            check_created_at(item.created_at)
        return NewMemory(
            content=check_content(item.content),
            memory_type=check_memory_type(item.memory_type),
            source=check_text(item.source, "source") if item.source else item.source,
            metadata=check_metadata(item.metadata),
            emotion_tags=check_tags(item.emotion_tags),
            created_at=item.created_at,
            conversation_id=(
                check_text(item.conversation_id, "conversation_id")
                if item.conversation_id
                else None
            ),
            role=check_role(item.role),
        )

    async def _index(self, memory: UserMemory, analysis: AnalyzedText, now: datetime) -> None:
        """Postings, topics, topic links, link counts and scores of a (re)written memory."""
        await self.search.index(memory.user_id, memory.id, analysis.terms, analysis.doc_length)
        linked = await self.impact.link_by_topics(memory.user_id, memory.id, analysis.topics, now)
        touched = [memory.id, *linked]
        await self.impact.refresh(memory.user_id, touched)
        await self.memories.rescore(self.settings, now, memory.user_id, touched, "write")

    async def _reload(self, user_id: str, memory_id: int) -> UserMemory:
        return (await self.memories.get_many(user_id, [memory_id]))[memory_id]

    async def update(self, user_id: str, memory_id: int, changes: MemoryChanges) -> UserMemory:
        """Edit a memory; new content is re-analysed, re-indexed, re-linked, re-embedded."""
        # Checked before the provider sees it; embedded before the first SQL statement.
        if changes.memory_type is not None:
            check_memory_type(changes.memory_type)
        text = check_content(changes.content) if changes.content is not None else None
        vectors = await self._embed([text]) if text is not None else None
        memory, now = await self._get_for_write(user_id, memory_id)
        old_content = memory.content
        analysis = None
        if changes.content is not None or changes.emotion_tags is not None:
            analysis = await self._analyse(memory, changes)
        touched = await self._touched_by_edit(memory, analysis, text)
        await self.memories.lock_memories(user_id, touched)
        if changes.memory_type is not None:
            memory.memory_type = changes.memory_type
        if changes.source is not None:
            memory.source = check_text(changes.source, "source")
        if changes.metadata is not None:
            memory.meta = check_metadata(changes.metadata)
        if analysis is not None:
            await self._reanalyse(memory, text or memory.content, analysis, now)
        if text is not None:  # new content
            await self._reslot(memory, now)
            await self._reembed(memory, text, vectors, now)
            if memory.content != old_content:
                await self._forget_text(memory, old_content)
        memory.updated_at = now
        await self.memories.session.flush()
        await self.memories.rescore(self.settings, now, user_id, [memory.id], "update")
        return await self._reload(user_id, memory.id)

    async def _get_for_write(self, user_id: str, memory_id: int) -> tuple[UserMemory, datetime]:
        """The memory, read once the user's row is held (MemoryRepository.lock_user,
        step 1: no other write of the user changes it meanwhile), and the time."""
        now = self.clock()
        await self.memories.lock_user(check_user_id(user_id), now)
        return await self.get(user_id, memory_id), now

    async def _analyse(self, memory: UserMemory, changes: MemoryChanges) -> AnalyzedText:
        """The analysis of the memory's edited content or emotion tags."""
        content = check_content(changes.content) if changes.content is not None else memory.content
        explicit = check_tags(changes.emotion_tags) if changes.emotion_tags is not None else None
        old_content, old_tags = memory.content, list(memory.emotion_tags)

        def analyse() -> AnalyzedText:
            tags = explicit
            if tags is None:
                # Keep the client's explicit tags: those the old text did not produce itself.
                detected = set(self.analyzer.emotions.analyze(old_content).tags)
                tags = [t for t in old_tags if t not in detected]
            return self.analyzer.analyze(content, tags)

        return await asyncio.to_thread(analyse)

    async def _touched_by_edit(
        self, memory: UserMemory, analysis: AnalyzedText | None, content: str | None
    ) -> list[int]:
        """Every memory an edit may write (MemoryRepository.lock_user, step 2): the
        memory; for new content or tags its old neighbours and the memories it will link
        to; for new content (:meth:`_reslot`) the ones it superseded and the current ones
        of the slot it states."""
        touched = [memory.id]
        if analysis is None:
            return touched
        user_id, limit = memory.user_id, self.settings.topic_links_per_memory
        touched += await self.links.neighbours(user_id, memory.id)
        sharing = await self.search.memories_sharing_topics(
            user_id, memory.id, analysis.topics, limit
        )
        touched += sharing
        if content is None:
            return touched
        touched += await self.facts.superseded_by(user_id, memory.id)
        fact = _stated_fact(content, memory.role)
        if fact is not None:
            touched += [row.id for row in await self.facts.current_of_slots(user_id, [fact.slot])]
        return touched

    async def _reanalyse(
        self, memory: UserMemory, content: str, analysis: AnalyzedText, now: datetime
    ) -> None:
        if analysis.content_hash != memory.content_hash:
            other = await self.memories.get_by_hash(
                memory.user_id, analysis.content_hash, memory.role
            )
            if other is not None and other.id != memory.id:
                raise DuplicateContent(f"memory {other.id} already holds this content")
        old_length = memory.doc_length
        neighbours = await self.links.neighbours(memory.user_id, memory.id)
        await self.search.unindex(memory.user_id, memory.id)
        await self.links.delete_topic_links(memory.user_id, memory.id)
        memory.content = content
        memory.content_hash = analysis.content_hash
        memory.emotion_tags = analysis.emotion_tags
        memory.emotion_score = analysis.emotion_score
        memory.topics = analysis.topics
        memory.doc_length = analysis.doc_length
        await self.memories.session.flush()
        await self.memories.bump_user(memory.user_id, now, 0, analysis.doc_length - old_length)
        await self._index(memory, analysis, now)
        await self.impact.refresh(memory.user_id, neighbours)
        await self.memories.rescore(self.settings, now, memory.user_id, neighbours, "link")

    async def _reslot(self, memory: UserMemory, now: datetime) -> None:
        """Edited content may state another slot or value: re-run the correction.

        When the slot changes, the memory no longer speaks about its old slot: it leaves
        that slot's history (the memories it superseded go to its own successor, or
        become current again, and its own superseded link is cleared). Then it is
        corrected like a new statement said at its ``created_at``.
        """
        fact = _stated_fact(memory.content, memory.role)
        slot = fact.slot if fact is not None else None
        if slot != memory.fact_slot:
            await self.facts.repoint(memory.user_id, memory.id, memory.superseded_by_id)
            memory.fact_slot = slot
            memory.superseded_by_id = None
            memory.superseded_at = None
            await self.memories.session.flush()
        if fact is not None and memory.superseded_by_id is None:
            incoming = [SlotFact(memory.id, fact.slot, fact.value, memory.created_at)]
            await self.corrector.correct(memory.user_id, incoming, now)

    async def supersede(self, user_id: str, memory_id: int, by_id: int) -> UserMemory:
        """Mark a memory as superseded by a newer memory of the same user (explicitly).

        Re-pointing an already superseded memory is allowed; a link that would make a
        memory its own (indirect) successor is refused with 409 ``supersede_cycle``.
        """
        if memory_id == by_id:
            raise InvalidInput("a memory cannot supersede itself")
        await self.memories.lock_user(check_user_id(user_id), self.clock())
        await self.get(user_id, memory_id)
        newer = await self.get(user_id, by_id)
        successor, seen = newer.superseded_by_id, {by_id}
        while successor is not None and successor not in seen:
            if successor == memory_id:
                raise SupersedeCycle(
                    f"memory {by_id} is itself superseded by memory {memory_id}",
                    details={"memory_id": memory_id, "by": by_id},
                )
            seen.add(successor)
            successor = await self.facts.successor(user_id, successor)
        await self.facts.supersede(user_id, {memory_id: by_id}, self.clock())
        return await self._reload(user_id, memory_id)

    async def restore(self, user_id: str, memory_id: int) -> UserMemory:
        """Make a superseded memory current again (the newer one stays current too)."""
        await self.memories.lock_user(check_user_id(user_id), self.clock())
        memory = await self.get(user_id, memory_id)
        if memory.superseded_by_id is None:
            raise NotSuperseded(f"memory {memory_id} is not superseded")
        memory.superseded_by_id = None
        memory.superseded_at = None
        await self.memories.session.flush()
        return await self._reload(user_id, memory_id)

    async def delete(self, user_id: str, memory_id: int) -> None:
        """Forget a memory; its links go too and its neighbours lose the impact.

        The memories it superseded pass to its own successor, or, if it was current,
        become current again: forgetting "I moved to Shanghai" brings back "I live in
        Beijing".
        """
        memory, now = await self._get_for_write(user_id, memory_id)
        neighbours = await self.links.neighbours(user_id, memory_id)
        replaced = await self.facts.superseded_by(user_id, memory_id)
        await self.memories.lock_memories(user_id, [memory_id, *neighbours, *replaced])
        await self.facts.repoint(user_id, memory_id, memory.superseded_by_id)
        await self._forget_text(memory, memory.content)
        await self.search.unindex(user_id, memory_id)
        await self.memories.delete(memory)
        await self.memories.bump_user(user_id, now, -1, -memory.doc_length)
        await self.impact.refresh(user_id, neighbours)
        await self.memories.rescore(self.settings, now, user_id, neighbours, "link")

    async def _forget_text(self, memory: UserMemory, content: str) -> None:
        """Leave nothing beyond the memory row that recognises or repeats ``content``,
        the text a delete or an edit forgets (postings, topics, links and
        score history go with :meth:`SearchRepository.unindex` and the row's cascade).

        - Message scores of a message with exactly this text (their keyed hash), and
          those whose stored reason, the LLM's words, quotes it or one of its
          identifiers (:func:`quotable`): the message is scored again if sent again.
        - The vectors of the turns said just after it in its conversation, which were
          embedded with its text (services/embeddings/turn_context.py): the backfill
          job embeds them again without it.
        - This process's cached vectors of the user.
        """
        user_id = memory.user_id
        erasure = ErasureRepository(self.memories.session)
        needles = quotable(content)
        quoting = [
            i
            for i, reason in await erasure.score_reasons(user_id)
            if any(n in normalize_content(reason) for n in needles)
        ]
        hashed = keyed_hash(self.secret, normalize_content(content))
        await erasure.drop_message_scores(user_id, {hashed}, quoting)
        if self.embeddings is None:
            return
        self.embeddings.cache.invalidate(user_id)
        turns = self.embeddings.context_turns
        if memory.conversation_id is None or turns < 1:
            return
        anchor = Anchor(memory.id, memory.created_at, memory.conversation_id)
        window = timedelta(minutes=self.settings.recall_continuity_window_minutes)
        later = await NeighbourRepository(self.memories.session).around(
            user_id, [anchor], radius=turns, window=window
        )
        vectors = EmbeddingRepository(self.memories.session)
        for neighbour in later:
            if neighbour.distance > 0:
                await vectors.forget(user_id, neighbour.memory_id)
        if any(n.distance > 0 for n in later):
            self.embeddings.on_unembedded()

    async def link(
        self, user_id: str, memory_id: int, target_id: int, weight: float = 1.0
    ) -> MemoryAssociation:
        """Link two memories of the same user explicitly (raises their impact)."""
        if memory_id == target_id:
            raise InvalidInput("a memory cannot be linked to itself")
        _, now = await self._get_for_write(user_id, memory_id)
        await self.get(user_id, target_id)
        await self.memories.lock_memories(user_id, [memory_id, target_id])
        link = await self.impact.link_explicit(user_id, memory_id, target_id, weight, now)
        await self.impact.refresh(user_id, [memory_id, target_id])
        await self.memories.rescore(self.settings, now, user_id, [memory_id, target_id], "link")
        return link

    async def time_zone(self, user_id: str) -> tzinfo:
        """The zone the person's days are counted in (UTC unless they set one)."""
        return person_zone(await self.memories.time_zone(user_id))

    async def write_version(self, user_id: str) -> int:
        """The user's write count: changes with every write of their memories."""
        return await self.memories.write_version(check_user_id(user_id))

    async def profile(self, user_id: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, fact slot, content) of the person's current facts, most important first."""
        return await self.facts.profile(check_user_id(user_id), limit)

    async def links_of(self, user_id: str, memory_id: int) -> list[MemoryAssociation]:
        """Every link of one memory."""
        await self.get(user_id, memory_id)
        return await self.links.for_memory(user_id, memory_id)

    async def list_page(
        self,
        user_id: str,
        *,
        order: Order = "importance",
        limit: int = 20,
        cursor: str | None = None,
        types: Sequence[str] = (),
        level: str | None = None,
        include_superseded: bool = False,
    ) -> MemoryPage:
        """A keyset-paginated listing, most important (or newest) first.

        Superseded memories (services/remembering/facts) are left out unless ``include_superseded``.
        """
        after = decode_cursor(order, cursor) if cursor else None
        rows = await self.memories.list_page(
            check_user_id(user_id),
            order=order,
            limit=limit + 1,
            after=after,
            types=types,
            level=level,
            current_only=not include_superseded,
        )
        more = len(rows) > limit
        items = rows[:limit]
        return MemoryPage(items, encode_cursor(order, items[-1]) if more and items else None)

    async def history(self, memory: UserMemory) -> list[MemoryScoreHistory]:
        """A memory's score history, newest first."""
        return await self.memories.history(memory)

    async def escalations(
        self, user_id: str, include_acknowledged: bool = False, include_superseded: bool = False
    ) -> list[UserMemory]:
        """Memories that crossed into ``high`` for the frontend to follow up on.

        A superseded memory is left out unless ``include_superseded``, as in recall: the
        assistant should not bring up a fact the person has since corrected.
        """
        return await self.memories.escalations(
            check_user_id(user_id), include_acknowledged, include_superseded
        )

    async def acknowledge_escalation(self, user_id: str, memory_id: int) -> UserMemory:
        """The frontend followed up; the escalation leaves the default list."""
        memory = await self.get(user_id, memory_id)
        if memory.escalated_at is None:
            raise InvalidInput(f"memory {memory_id} is not escalated")
        memory.escalation_acknowledged_at = self.clock()
        await self.memories.session.flush()
        return memory
