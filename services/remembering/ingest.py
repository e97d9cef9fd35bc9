"""Batch ingest: remember many statements with a handful of statements per batch.

``MemoryService.add_many`` decides, in order, what each statement is: a repeat of a
stored memory, a repeat of an earlier statement of the same batch, or a new memory
(exact content hash first, then the near-duplicate rule of services/remembering/frequency.py). The
new memories are then written in bulk: one multi-row INSERT for the rows, the postings,
the topics and the topic links, one recount of the link counts and one rescoring of
every memory the batch touched. A batch's outcome equals adding its statements one by
one, except that each touched memory is scored once, at the end of the batch, so it
gets one score-history row per batch rather than one per statement.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from models import UserMemory
from services.core.pacing import chunks, paced
from services.core.settings import Settings
from services.remembering.frequency import FrequencyTracker
from services.remembering.impact import newest_sharing
from services.remembering.near_duplicates import (
    NEAR_DUPLICATE_CANDIDATES,
    Alignment,
    TermSetIndex,
)
from services.repositories.associations import AssociationRepository
from services.repositories.facts import FactRepository
from services.repositories.memories import HashKey, MemoryRepository
from services.repositories.search import Postings, SearchRepository
from services.text.analysis import AnalyzedText, jaccard


@dataclass
class Statement:
    """One cleaned statement of a batch and its analysis."""

    content: str
    memory_type: str
    source: str | None
    metadata: dict[str, Any]
    created_at: datetime | None
    analysis: AnalyzedText
    fact_slot: str | None = None  # services/remembering/facts/slots.py
    conversation_id: str | None = None  # the dialogue it is a turn of
    role: str = "user"  # whose words: it repeats only a memory of the same role

    @property
    def key(self) -> HashKey:
        """What makes it the same memory as a stored one, word for word."""
        return self.analysis.content_hash, self.role


@dataclass
class _NewMemory:
    """A memory the batch creates, and the later statements that repeat it."""

    statement: Statement
    repeats: int = 0
    emotion_tags: list[str] = field(default_factory=list)
    emotion_score: float = 0.0
    memory_id: int = 0


@dataclass(frozen=True)
class Target:
    """What a statement repeats: a stored memory (by id) or the batch's ``key``-th new
    memory; ``creates`` when the statement is that new memory's first."""

    kind: Literal["stored", "new"]
    key: int
    creates: bool = False


def decide(
    analyses: Sequence[AnalyzedText],
    stored: Mapping[HashKey, int],
    found: Sequence[tuple[int, float] | None],
    alignment: Alignment,
    roles: Sequence[str] | None = None,
) -> list[Target]:
    """Per statement, in order: the memory it repeats, or the new memory it starts.

    ``stored`` maps the (content hash, role) pairs already stored to their memory ids,
    ``found`` is each statement's stored near-duplicate (id, similarity) of the same
    role, ``roles`` whose words each statement is (all the person's when None): a
    statement repeats only a memory of its own role, so the assistant echoing the
    person's words never counts as the person saying them again. Pure CPU work, run in
    a worker thread: an earlier statement of the batch is a candidate only through the
    prefix and length filters, at most ``NEAR_DUPLICATE_CANDIDATES`` of them are
    verified, and their alignments share the batch's budget (near_duplicates.py).
    """
    threshold = alignment.threshold
    frequencies: Counter[str] = Counter(t for a in analyses for t in a.terms)
    # One index per role: another role's texts are never candidates, nor crowd them out.
    indexes: dict[str, TermSetIndex] = {}
    sets: list[set[str]] = []
    texts: list[str] = []
    new_by_key: dict[HashKey, int] = {}
    targets: list[Target] = []
    for a, role, near in zip(analyses, roles or ["user"] * len(analyses), found, strict=True):
        key = (a.content_hash, role)
        if key in stored:
            targets.append(Target("stored", stored[key]))
            continue
        if key in new_by_key:
            targets.append(Target("new", new_by_key[key]))
            continue
        index = indexes.get(role)
        if index is None:
            index = indexes[role] = TermSetIndex(threshold, frequencies)
        terms = set(a.terms)
        best: Target | None = None
        best_similarity = 0.0
        for i in index.candidates(terms, NEAR_DUPLICATE_CANDIDATES):
            if jaccard(terms, sets[i]) < threshold:
                continue
            similarity = alignment.ratio(a.normalized, ("new", i), texts[i])
            if similarity >= threshold and similarity > best_similarity:
                best, best_similarity = Target("new", i), similarity
        if near is not None and near[1] > best_similarity:
            best = Target("stored", near[0])
        if best is None:
            best = Target("new", len(sets), creates=True)
            new_by_key[key] = len(sets)
            index.add(len(sets), terms)
            sets.append(terms)
            texts.append(a.normalized)
        targets.append(best)
    return targets


@dataclass(frozen=True)
class Outcome:
    """What became of one statement: the memory id and whether it merged."""

    memory_id: int
    merged: bool


class BatchIngest:
    """Writes one batch of a user's statements inside the caller's unit of work."""

    def __init__(
        self,
        memories: MemoryRepository,
        search: SearchRepository,
        links: AssociationRepository,
        facts: FactRepository,
        frequency: FrequencyTracker,
        settings: Settings,
    ) -> None:
        self.memories = memories
        self.search = search
        self.links = links
        self.facts = facts
        self.frequency = frequency
        self.settings = settings

    async def write(
        self, user_id: str, statements: list[Statement], now: datetime
    ) -> list[Outcome]:
        """Store a batch; one outcome per statement, in order."""
        stored = await self.memories.get_by_hashes(
            user_id, [s.analysis.content_hash for s in statements]
        )
        # The stored frequencies of every term of the batch, in one lookup.
        frequencies = await self.search.document_frequencies(
            user_id, [t for s in statements for t in s.analysis.terms]
        )
        # Stored memories do not change while the batch is decided, so every statement's
        # stored near-duplicate is looked up at once, in three statements in all.
        probed = [s for s in statements if s.key not in stored]
        alignment = Alignment(self.settings.near_duplicate_threshold)
        found = await self.frequency.find_near_duplicates(
            user_id, [s.analysis for s in probed], frequencies, alignment, [s.role for s in probed]
        )
        near = {id(s): f for s, f in zip(probed, found, strict=True)}
        by_id = {m.id: m for m in stored.values()}
        for f in found:
            if f is not None:
                by_id[f[0].id] = f[0]
                stored.setdefault((f[0].content_hash, f[0].role), f[0])
        targets = await asyncio.to_thread(
            decide,
            [s.analysis for s in statements],
            {k: m.id for k, m in stored.items()},
            [_id_and_similarity(near.get(id(s))) for s in statements],
            alignment,
            [s.role for s in statements],
        )
        new: list[_NewMemory] = []
        mentioned: dict[int, int] = {}
        for statement, target in zip(statements, targets, strict=True):
            a = statement.analysis
            if target.creates:
                new.append(_NewMemory(statement, 0, list(a.emotion_tags), a.emotion_score))
            elif target.kind == "new":
                _repeat(new[target.key], a)
            else:
                mentioned[target.key] = mentioned.get(target.key, 0) + 1
                _keep_emotion(by_id[target.key], a)
        by_topic = await self._lock(user_id, statements, new, mentioned, now)
        await self._insert(user_id, new, now, stored, mentioned)
        for memory_id, times in mentioned.items():
            await self.memories.record_mention(user_id, memory_id, now, times)
        linked = await self._link(user_id, [m for m in new if m.memory_id], by_topic, now)
        created = [m.memory_id for m in new if m.memory_id]
        await self.links.refresh_counts(user_id, sorted({*created, *linked}))
        written = sorted({*created, *linked} - set(mentioned))
        await self.memories.rescore(self.settings, now, user_id, written, "write")
        await self.memories.rescore(self.settings, now, user_id, sorted(mentioned), "mention")
        if created:
            length = sum(m.statement.analysis.doc_length for m in new if m.memory_id)
            await self.memories.bump_user(user_id, now, len(created), length)
        return [
            Outcome(new[t.key].memory_id, merged=not t.creates)
            if t.kind == "new" and new[t.key].memory_id
            else Outcome(self._winner(t.kind, t.key, new, stored), merged=True)
            for t in targets
        ]

    async def _lock(
        self,
        user_id: str,
        statements: list[Statement],
        new: list[_NewMemory],
        mentioned: dict[int, int],
        now: datetime,
    ) -> dict[str, list[int]]:
        """Lock what the batch will write (MemoryRepository.lock_user); returns the
        newest memories of the new memories' topics, which the links are chosen from.

        The stored memories it may change: the ones it repeats (their counts), the
        newest of each new topic (a link raises their impact) and the current memories
        of every slot it states (the fact corrector may supersede them; after this
        batch, in MemoryService.add_many). The last two are read once the user's row is
        held, so no other write of the user changes them meanwhile. Taken as they came, the
        locks deadlocked with tracked counts, with other adds and with deletes.
        """
        await self.memories.lock_user(user_id, now)
        by_topic = await self.search.newest_by_topic(
            user_id,
            [t for m in new for t in m.statement.analysis.topics],
            self.settings.topic_links_per_memory,
        )
        slots = [s.fact_slot for s in statements if s.fact_slot is not None]
        current = await self.facts.current_of_slots(user_id, slots)
        topical = [i for ids in by_topic.values() for i in ids]
        await self.memories.lock_memories(user_id, [*mentioned, *topical, *(r.id for r in current)])
        return by_topic

    async def _insert(
        self,
        user_id: str,
        new: list[_NewMemory],
        now: datetime,
        stored: dict[HashKey, UserMemory],
        mentioned: dict[int, int],
    ) -> None:
        """Insert the new rows; one a concurrent writer stored first becomes a repeat."""
        ids = await self.memories.insert_new([_row(user_id, m, now) for m in new])
        lost = [m for m in new if m.statement.key not in ids]
        for m in new:
            m.memory_id = ids.get(m.statement.key, 0)
        if not lost:
            return
        winners = await self.memories.get_by_hashes(
            user_id, [m.statement.analysis.content_hash for m in lost]
        )
        for m in lost:
            winner = winners[m.statement.key]
            stored[m.statement.key] = winner
            mentioned[winner.id] = mentioned.get(winner.id, 0) + 1 + m.repeats
            _keep_emotion(winner, m.statement.analysis)

    async def _link(
        self,
        user_id: str,
        new: list[_NewMemory],
        by_topic: dict[str, list[int]],
        now: datetime,
    ) -> set[int]:
        """Postings, topics and topic links of the new memories; the ids they linked to.

        Each new memory links to the ``topic_links_per_memory`` newest memories written
        before it that share a topic (``by_topic``: the stored ones, oldest first), as if
        the batch were added one statement at a time.
        """
        for some in chunks(new):
            await self.search.index_many(
                user_id,
                [
                    Postings(
                        m.memory_id, m.statement.analysis.terms, m.statement.analysis.doc_length
                    )
                    for m in some
                ],
            )
        limit = self.settings.topic_links_per_memory
        topics = {m.memory_id: m.statement.analysis.topics for m in new}
        rows: list[dict[str, Any]] = []
        linked: set[int] = set()
        async for memory_id, names in paced(topics.items()):
            others = newest_sharing(by_topic, names, limit)
            for other in others:
                shared = sorted(t for t in names if other in by_topic.get(t, ())[-limit:])
                rows.append(
                    {
                        "user_id": user_id,
                        "memory_id_a": min(other, memory_id),
                        "memory_id_b": max(other, memory_id),
                        "kind": "topic",
                        "weight": float(len(shared)),
                        "shared_topics": shared,
                        "created_at": now,
                    }
                )
            linked.update(others)
            for topic in names:
                by_topic.setdefault(topic, []).append(memory_id)
        await self.search.add_topics_many(user_id, topics)
        await self.links.insert_topic_links(rows)
        return linked

    @staticmethod
    def _winner(kind: str, i: int, new: list[_NewMemory], stored: dict[HashKey, UserMemory]) -> int:
        if kind == "stored":
            return i
        memory = stored[new[i].statement.key]
        return memory.id


def _id_and_similarity(found: tuple[UserMemory, float] | None) -> tuple[int, float] | None:
    return None if found is None else (found[0].id, found[1])


def _repeat(memory: _NewMemory, analysis: AnalyzedText) -> None:
    """A later statement of the batch repeats a memory the batch creates."""
    memory.repeats += 1
    memory.emotion_tags += [t for t in analysis.emotion_tags if t not in memory.emotion_tags]
    memory.emotion_score = max(memory.emotion_score, analysis.emotion_score)


def _keep_emotion(memory: UserMemory, analysis: AnalyzedText) -> None:
    """A repeat keeps any new emotion tag and the stronger emotion score."""
    extra = [t for t in analysis.emotion_tags if t not in memory.emotion_tags]
    if extra or analysis.emotion_score > memory.emotion_score:
        memory.emotion_tags = [*memory.emotion_tags, *extra]
        memory.emotion_score = max(memory.emotion_score, analysis.emotion_score)


def _row(user_id: str, m: _NewMemory, now: datetime) -> dict[str, Any]:
    s, a = m.statement, m.statement.analysis
    mentions = 1 + m.repeats
    return {
        "user_id": user_id,
        "content": s.content,
        "content_hash": a.content_hash,
        "memory_type": s.memory_type,
        "source": s.source,
        "conversation_id": s.conversation_id,
        "role": s.role,
        "meta": s.metadata,
        "created_at": s.created_at or now,
        "updated_at": now,
        "mention_count": mentions,
        "frequency_count": mentions,
        "recall_count": 0,
        "last_mentioned_at": now if m.repeats else None,
        "emotion_tags": m.emotion_tags,
        "emotion_score": m.emotion_score,
        "topics": a.topics,
        "associated_count": 0,
        "doc_length": a.doc_length,
        "fact_slot": s.fact_slot,
    }
