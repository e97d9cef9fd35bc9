"""LoCoMo: load conversations, repair evidence ids, and run recall through the services.

Every dialog turn becomes one memory of a fresh user, ``"<speaker>: <text>"`` plus
``" [image: <blip_caption>]"`` when the turn shared a photo, dated by its session's
``session_<N>_date_time`` (taken as UTC). Every question with evidence becomes one recall
of ``max(ks)`` memories with ``track=False``, so asking leaves the scores alone and the
questions cannot influence each other.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.baseline import NaiveBM25
from evals.embedding_step import embed_user
from evals.metrics import QuestionScore, score_question
from services.composition import Services
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings, SignalWeights
from services.core.validation import MAX_BATCH_ITEMS
from services.recall.ranking.query_types import QueryType
from services.remembering.memory_service import NewMemory

log = logging.getLogger(__name__)

_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE_TIME = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*", re.I
)
_MONTH_NAMES = (
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
)
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
# "D8:6", "D:11:26", "D30:05"; anything else ("D", "8:6") names no turn.
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")
_EVIDENCE_SEPARATORS = re.compile(r"[;,\s]+")


def parse_session_datetime(value: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime (English month names)."""
    match = _DATE_TIME.fullmatch(value)
    if match is None or match.group(5).lower() not in _MONTHS:
        raise ValueError(f"unrecognised LoCoMo session date: {value!r}")
    hour, minute, half, day, month, year = match.groups()
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime(int(year), _MONTHS[month.lower()], int(day), hour_24, int(minute), tzinfo=UTC)


def normalize_dia_id(raw: str) -> str | None:
    """The canonical ``D<session>:<turn>`` of one id, or None if it is not an id at all.

    ``"D:11:26"`` → ``"D11:26"`` (stray colon), ``"D30:05"`` → ``"D30:5"`` (leading zeros).
    """
    match = _DIA_ID.fullmatch(raw.strip())
    if match is None:
        return None
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def normalize_evidence(raw: Iterable[str], known: set[str] | frozenset[str]) -> list[str]:
    """A question's evidence as distinct canonical turn ids of this conversation, in order.

    One string may hold several ids (``"D8:6; D9:17"``, ``"D8:6 D9:17"``): it is split on
    ``;``, ``,`` and whitespace. Ids that are malformed beyond repair (``"D"``) or name no turn
    in ``known`` are dropped.
    """
    ids: dict[str, None] = {}
    for entry in raw:
        for piece in _EVIDENCE_SEPARATORS.split(str(entry)):
            canonical = normalize_dia_id(piece) if piece else None
            if canonical is not None and canonical in known:
                ids[canonical] = None
    return list(ids)


@dataclass(frozen=True)
class Turn:
    """One dialog turn, ready to be remembered."""

    dia_id: str
    session: int
    content: str
    created_at: datetime | None
    speaker: str = ""
    text: str = ""  # the turn without the speaker prefix (caption included)


@dataclass(frozen=True)
class Question:
    """A question with at least one evidence turn."""

    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class Conversation:
    """One LoCoMo sample: its turns in order and its answerable questions."""

    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    skipped_questions: int = 0  # no evidence left after normalisation
    dropped_evidence_ids: int = 0  # evidence entries naming no turn (or repeating one)


def turn_content(turn: dict[str, Any]) -> str:
    """``"<speaker>: <text>"``, plus ``" [image: <caption>]"`` for a shared photo."""
    content = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    if caption:
        content += f" [image: {caption}]"
    return content


def parse_conversation(sample: dict[str, Any]) -> Conversation:
    """One sample of the dataset file. A session without a date keeps ``created_at`` None."""
    dialog = sample["conversation"]
    sessions = sorted(
        (int(m.group(1)), key) for key in dialog if (m := _SESSION_KEY.fullmatch(key))
    )
    turns: list[Turn] = []
    for number, key in sessions:
        stamp = dialog.get(f"{key}_date_time")
        created_at = parse_session_datetime(stamp) if stamp else None
        for raw in dialog[key]:
            dia_id = normalize_dia_id(str(raw["dia_id"])) or str(raw["dia_id"])
            content = turn_content(raw)
            speaker = str(raw["speaker"])
            text = content.removeprefix(f"{speaker}: ")
            turns.append(Turn(dia_id, number, content, created_at, speaker, text))
    known = frozenset(t.dia_id for t in turns)
    conversation = Conversation(str(sample["sample_id"]), turns, [])
    for qa in sample["qa"]:
        raw_evidence = [str(e) for e in qa.get("evidence", [])]
        evidence = normalize_evidence(raw_evidence, known)
        pieces = [p for e in raw_evidence for p in _EVIDENCE_SEPARATORS.split(e) if p]
        conversation.dropped_evidence_ids += len(pieces) - len(evidence)
        if not evidence:
            conversation.skipped_questions += 1
            continue
        category = int(qa["category"])
        conversation.questions.append(Question(str(qa["question"]), category, tuple(evidence)))
    return conversation


def load_locomo(path: Path) -> list[Conversation]:
    """Every conversation of a LoCoMo JSON file (a list of samples)."""
    samples = json.loads(path.read_text(encoding="utf-8"))
    return [parse_conversation(s) for s in samples]


@dataclass
class ConversationRun:
    """What happened to one conversation."""

    sample_id: str
    user_id: str
    turns: int
    memories: int
    merged_turns: int
    questions: int
    ingest_seconds: float
    recall_seconds: float  # the service's recalls only (the baseline is not timed)


@dataclass
class LocomoRun:
    """Per-question scores of every system, recall latencies and per-conversation counts."""

    ks: tuple[int, ...]
    baseline: list[QuestionScore] = field(default_factory=list)
    service: list[QuestionScore] = field(default_factory=list)
    lexical: list[QuestionScore] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    lexical_latencies_ms: list[float] = field(default_factory=list)
    # With embeddings: the same service without them (the offline default), same questions.
    offline: list[QuestionScore] = field(default_factory=list)
    offline_latencies_ms: list[float] = field(default_factory=list)
    embedding_model: str | None = None
    conversations: list[ConversationRun] = field(default_factory=list)


def lexical_only(settings: Settings) -> Settings:
    """The core service's plain lexical recall, for comparison: 0.7 · BM25 relevance +
    0.3 · importance for every query type; no phrase, time, continuity or semantic
    signal (weight 0: not computed) and no MMR."""
    plain = SignalWeights(lexical=0.7, importance=0.3)
    update: dict[str, object] = {f"recall_weights_{t.value}": plain for t in QueryType}
    return settings.model_copy(update={**update, "recall_mmr_lambda": 1.0})


async def _ingest(
    services: Services, user_id: str, turns: list[Turn]
) -> tuple[dict[int, set[str]], int]:
    """Remember ``turns`` in batches (one unit of work each); memory id → its dia_ids."""
    by_memory: dict[int, set[str]] = {}
    merged = 0
    for start in range(0, len(turns), MAX_BATCH_ITEMS):
        batch = turns[start : start + MAX_BATCH_ITEMS]
        items = [
            NewMemory(
                content=t.content,
                metadata={"dia_id": t.dia_id, "session": t.session},
                created_at=t.created_at,
                # Each LoCoMo session is one dialogue: continuity stays inside it.
                conversation_id=f"{user_id}/session_{t.session}",
            )
            for t in batch
        ]
        async with services.db.unit_of_work() as session:
            stored = await services.memories(session).add_many(user_id, items)
        for turn, result in zip(batch, stored, strict=True):
            by_memory.setdefault(result.memory.id, set()).add(turn.dia_id)
            merged += result.merged
    return by_memory, merged


async def _ask(
    services: Services, user_id: str, question: Question, top_k: int
) -> tuple[list[int], float]:
    """One untracked recall in its own unit of work: the memory ids and milliseconds.

    Asked at ``min_confidence`` 0: recall@k asks how well recall *ranks* the evidence
    among k results, as a model reading k memories would use them. Which of them a person
    is shown (the confidence floor) is measured on the people of evals/people. Before the
    one floor for every write mode, LoCoMo's turns met the dialogue floor of 0.1, which
    let 9.98 of 10 results through: the same measurement, now named."""
    asked = time.perf_counter()
    async with services.db.unit_of_work() as session:
        hits = await services.recall(session).recall_memories(
            user_id, question.text, top_k, track=False, min_confidence=0.0
        )
    return [h.memory.id for h in hits], (time.perf_counter() - asked) * 1000.0


async def run_locomo(
    services: Services,
    conversations: Sequence[Conversation],
    ks: Sequence[int],
    user_prefix: str,
    progress: Progress = NO_PROGRESS,
) -> LocomoRun:
    """Ingest, ask and score every conversation, one fresh user (``user_prefix + id``) each.

    The service's ranking of memories is scored against the dia_ids that went into each
    memory; the baseline ranks the same turns (unmerged) with :class:`NaiveBM25`, and the
    same service with :func:`lexical_only` settings gives the plain lexical row and latency.
    With embeddings configured the turns are embedded by the backfill job right after
    they are written (``ingest_seconds`` includes it) and the service recalls
    with the semantic signal; the same service without it is the ``offline`` row.
    """
    top_k = max(ks)
    db, settings, clock, embeddings = (
        services.db,
        services.settings,
        services.clock,
        services.embeddings,
    )
    # The variants are settings too (no model: no semantic source), built by the root.
    offline = services.reconfigured(settings.model_copy(update={"embedding_provider": "none"}))
    plain = offline.reconfigured(lexical_only(offline.settings))
    run = LocomoRun(tuple(ks), embedding_model=embeddings.model if embeddings else None)
    progress.start(sum(len(c.questions) for c in conversations))
    for conversation in conversations:
        user_id = f"{user_prefix}{conversation.sample_id}"
        started = time.perf_counter()
        by_memory, merged = await _ingest(services, user_id, conversation.turns)
        if embeddings is not None:  # as the server does: the backfill job embeds the turns
            await embed_user(db, settings, clock, embeddings, user_id)
        ingest_seconds = time.perf_counter() - started
        baseline = NaiveBM25([t.content for t in conversation.turns])
        asked_before = len(run.latencies_ms)
        for index, question in enumerate(conversation.questions):
            ranked_turns = baseline.rank(question.text, top_k)
            run.baseline.append(
                score_question(
                    question.category,
                    question.evidence,
                    [{conversation.turns[i].dia_id} for i in ranked_turns],
                    ks,
                )
            )
            # Both configurations answer every question, alternating which goes first, so
            # the latency comparison sees the same caches and the same machine load.
            configs = [(services, run.service, run.latencies_ms)]
            configs.append((plain, run.lexical, run.lexical_latencies_ms))
            if embeddings is not None:
                configs.append((offline, run.offline, run.offline_latencies_ms))
            for config, scores, latencies in configs if index % 2 else configs[::-1]:
                ids, milliseconds = await _ask(config, user_id, question, top_k)
                latencies.append(milliseconds)
                ranked = [by_memory.get(memory_id, set()) for memory_id in ids]
                scores.append(score_question(question.category, question.evidence, ranked, ks))
            progress.advance()
        run.conversations.append(
            ConversationRun(
                sample_id=conversation.sample_id,
                user_id=user_id,
                turns=len(conversation.turns),
                memories=len(by_memory),
                merged_turns=merged,
                questions=len(conversation.questions),
                ingest_seconds=ingest_seconds,
                recall_seconds=sum(run.latencies_ms[asked_before:]) / 1000.0,
            )
        )
        log.info(
            "%s: %d turns -> %d memories (%d merged) in %.1f s; %d questions in %.1f s",
            conversation.sample_id,
            len(conversation.turns),
            len(by_memory),
            merged,
            ingest_seconds,
            len(conversation.questions),
            run.conversations[-1].recall_seconds,
        )
    return run
