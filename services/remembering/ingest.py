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

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from models import UserMemory
from services.core.settings import Settings
from services.remembering.frequency import FrequencyTracker
from services.remembering.impact import newest_sharing
from services.remembering.near_duplicates import TermSetIndex
from services.repositories.associations import AssociationRepository
from services.repositories.facts import FactRepository
from services.repositories.memories import MemoryRepository
from services.repositories.search import Postings, SearchRepository
from services.text.analysis import AnalyzedText, content_similarity, jaccard


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


@dataclass
class _NewMemory:
    """A memory the batch creates, and the later statements that repeat it."""

    statement: Statement
    repeats: int = 0
    emotion_tags: list[str] = field(default_factory=list)
    emotion_score: float = 0.0
    memory_id: int = 0


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
        probed = [s for s in statements if s.analysis.content_hash not in stored]
        found = await self.frequency.find_near_duplicates(
            user_id, [s.analysis for s in probed], frequencies
        )
        stored_duplicates = {id(s): f for s, f in zip(probed, found, strict=True)}
        new: list[_NewMemory] = []
        new_by_hash: dict[str, int] = {}
        index = TermSetIndex(self.settings.near_duplicate_threshold)
        # Per statement: ("stored", memory id) or ("new", position in ``new``).
        targets: list[tuple[str, int]] = []
        mentioned: dict[int, int] = {}
        for statement in statements:
            a = statement.analysis
            target: tuple[str, int] | None
            if a.content_hash in stored:
                target = ("stored", stored[a.content_hash].id)
            elif a.content_hash in new_by_hash:
                target = ("new", new_by_hash[a.content_hash])
            else:
                target = self._near_duplicate(
                    statement, new, index, stored, stored_duplicates[id(statement)]
                )
            if target is None:
                new_by_hash[a.content_hash] = len(new)
                index.add(len(new), a.terms)
                new.append(_NewMemory(statement, 0, list(a.emotion_tags), a.emotion_score))
                targets.append(("new", len(new) - 1))
                continue
            targets.append(target)
            if target[0] == "new":
                _repeat(new[target[1]], a)
            else:
                mentioned[target[1]] = mentioned.get(target[1], 0) + 1
                _keep_emotion(next(m for m in stored.values() if m.id == target[1]), a)
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
            Outcome(new[i].memory_id, merged=new[i].statement is not s)
            if kind == "new" and new[i].memory_id
            else Outcome(self._winner(kind, i, new, stored), merged=True)
            for (kind, i), s in zip(targets, statements, strict=True)
        ]

    def _near_duplicate(
        self,
        statement: Statement,
        new: list[_NewMemory],
        index: TermSetIndex,
        stored: dict[str, UserMemory],
        found: tuple[UserMemory, float] | None,
    ) -> tuple[str, int] | None:
        """The most similar near-duplicate, stored (``found``) or earlier in this batch."""
        a = statement.analysis
        threshold = self.settings.near_duplicate_threshold
        best: tuple[str, int] | None = None
        best_similarity = 0.0
        terms = set(a.terms)
        for i in index.candidates(terms):
            earlier = new[i].statement
            if jaccard(terms, set(earlier.analysis.terms)) < threshold:
                continue
            similarity = content_similarity(a.normalized, earlier.content)
            if similarity >= threshold and similarity > best_similarity:
                best, best_similarity = ("new", i), similarity
        if found is not None and found[1] > best_similarity:
            memory = found[0]
            stored.setdefault(memory.content_hash, memory)
            best = ("stored", memory.id)
        return best

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
        stored: dict[str, UserMemory],
        mentioned: dict[int, int],
    ) -> None:
        """Insert the new rows; one a concurrent writer stored first becomes a repeat."""
        ids = await self.memories.insert_new([_row(user_id, m, now) for m in new])
        lost = [m for m in new if m.statement.analysis.content_hash not in ids]
        for m in new:
            m.memory_id = ids.get(m.statement.analysis.content_hash, 0)
        if not lost:
            return
        winners = await self.memories.get_by_hashes(
            user_id, [m.statement.analysis.content_hash for m in lost]
        )
        for m in lost:
            winner = winners[m.statement.analysis.content_hash]
            stored[winner.content_hash] = winner
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
        await self.search.index_many(
            user_id,
            [
                Postings(m.memory_id, m.statement.analysis.terms, m.statement.analysis.doc_length)
                for m in new
            ],
        )
        limit = self.settings.topic_links_per_memory
        topics = {m.memory_id: m.statement.analysis.topics for m in new}
        rows: list[dict[str, Any]] = []
        linked: set[int] = set()
        for memory_id, names in topics.items():
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
    def _winner(kind: str, i: int, new: list[_NewMemory], stored: dict[str, UserMemory]) -> int:
        if kind == "stored":
            return i
        memory = stored[new[i].statement.analysis.content_hash]
        return memory.id


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
