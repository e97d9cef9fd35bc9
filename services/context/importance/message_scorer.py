"""MessageImportanceScorer: seed 000's hybrid scorer (rules, optional LLM, recency).

Every score is on the seed's 0-10 scale, where its LLM rubric puts the user's core request
at 9-10 and a pleasantry at 0-2, so the seed's phase threshold (≥ 8.0) means what it says.

1. *Rule score* (seed ``RuleBasedScorer``). The strongest rule that fires
   (:mod:`services.context.importance.rules`) gives the seed's score for such a message
   (:mod:`services.context.importance.rule_kinds`: a request 9.0, a file created 8.5, a config
   modified 8.0, exploring 6.0, nothing recognised 5.0, a pleasantry 1.0) and its
   confidence. The five dimensions place the message within that band::

       rule_score = clamp(kind score + REFINEMENT_SPAN · (content − 5) / 5, 0, 10)

   where ``content`` is the task type's weighted mean of relevance (term overlap with the
   task context, :mod:`services.context.importance.task_relevance`), information, operation and
   decision (:func:`services.context.importance.weights.content_score`). Pleasantries and noise keep
   their score as it is.
2. *LLM* (optional). Messages whose rule confidence is below
   ``MESSAGE_SCORE_LLM_THRESHOLD`` (0.7) are sent, in one batched prompt with the seed's
   rubric (:mod:`services.context.importance.llm_scorer`), to the LLM; its answers are cached by
   what the prompt shows of a message (role, name, content hash) and the task, never by
   the caller's message id, so a growing conversation only pays for its new messages
   (seed "增量评分"). The answer refines the share of the score the rules are unsure of::

       content = confidence · rule_score + (1 − confidence) · llm_score

   The seed replaces the rule score outright; blending keeps the two on one scale, so an
   LLM that rates filler 9 cannot push out a request the rules are sure of (9.0 at 0.9).
3. *Recency bonus* (seed ``TimeDecayScorer``): ``(i / (n − 1))²``, +1.0 for the newest
   (scaled by the task type's 时效性 weight,
   :func:`services.context.importance.weights.recency_bonus`).

``total = clamp(content + recency bonus, 0, 10)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from services.context.importance.llm_answer_cache import (
    LlmAnswer,
    ScoreCache,
    message_key,
    task_key,
)
from services.context.importance.llm_scorer import LlmMessageScorer
from services.context.importance.message_score import MessageScore
from services.context.importance.rule_kinds import TERMINAL
from services.context.importance.rules import RuleScore, rule_score
from services.context.importance.task_relevance import TaskRelevance, text_terms
from services.context.importance.weights import (
    TASK_TYPE_WEIGHTS,
    Dimension,
    TaskType,
    content_score,
    recency_bonus,
    resolve_task_type,
)
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.core.secret import hash_secret, keyed_hash, process_secret
from services.core.settings import Settings
from services.core.text_cache import TextCache
from services.text import normalize_content
from services.text.analysis import TextAnalyzer

# A user instruction defines the task (seed rule "核心需求", score 9): it is relevant at
# least this much even when it words the task differently from the task context.
REQUEST_RELEVANCE_FLOOR = 7.0
# Dialogue turns share relevance with their neighbours (see dialogue_context).
DIALOGUE_ROLES = frozenset({"user", "assistant"})
NEIGHBOR_SHARE = 0.7
NEIGHBOR_WINDOW = 2
# Messages whose terms and rule scores one scorer remembers, and their characters in all.
ANALYSIS_CACHE_SIZE = 50_000
ANALYSIS_CACHE_CHARS = 2_000_000
# How far the dimensions move a message within its rule's band, each way.
REFINEMENT_SPAN = 5.0


def _clamp(value: float) -> float:
    return round(min(10.0, max(0.0, value)), 4)


def dialogue_context(messages: Sequence[ChatMessage], relevance: list[float]) -> list[float]:
    """A user or assistant message is at least ``NEIGHBOR_SHARE ** d`` as relevant as the
    dialogue turn ``d`` places away (up to ``NEIGHBOR_WINDOW``): an answer belongs to its
    question ("what did you do?" / "I went camping") even when only one of them names the
    topic. Tool output and system messages stand on their own terms."""
    talk = [m.role in DIALOGUE_ROLES for m in messages]
    spread = list(relevance)
    for i in range(len(messages)):
        if not talk[i]:
            continue
        for distance in range(1, NEIGHBOR_WINDOW + 1):
            share = NEIGHBOR_SHARE**distance
            for j in (i - distance, i + distance):
                if 0 <= j < len(messages) and talk[j]:
                    spread[i] = max(spread[i], round(share * relevance[j], 4))
    return spread


def recency(index: int, count: int) -> float:
    """Seed ``TimeDecayScorer``: the squared relative position, on 0-10."""
    return round(10.0 * (index / max(count - 1, 1)) ** 2, 4)


@dataclass(frozen=True)
class ScoringTask:
    """What the messages are scored against (the phase only reaches the LLM's prompt)."""

    context: str
    task_type: TaskType
    phase: str | None = None
    # The deployment's hash secret (services/core/secret.py): the key is stored.
    secret: bytes = field(default=b"", repr=False, compare=False)

    @property
    def key(self) -> str:
        """Cache key of this task (keyed: it is stored with message scores)."""
        return task_key(self.context, self.task_type, self.phase, self.secret)


def _keyed_content(secret: bytes, text: str) -> str:
    """The stored hash of a message's content: keyed, of its normalised form."""
    return keyed_hash(secret, normalize_content(text))


def _content_length(message: ChatMessage) -> int:
    return len(message.content)


class MessageImportanceScorer:
    """Scores a conversation's messages in one batch; see the module docstring."""

    def __init__(
        self,
        analyzer: TextAnalyzer,
        settings: Settings,
        *,
        llm: LlmMessageScorer | None = None,
        cache: ScoreCache | None = None,
        secret: bytes | None = None,
    ) -> None:
        self._settings = settings
        # What keys the hashes that recognise a message again (services/core/secret.py):
        # they are stored, and a bare hash of a short text gives the text back.
        self.secret = secret if secret is not None else process_secret()
        # Cached per scorer: a conversation is re-scored as it grows and against new tasks.
        # Each bounded in the characters of the messages it keeps too (text_cache.py): a
        # term Counter grows with its message, and a message may hold 200,000 characters.
        size, chars = ANALYSIS_CACHE_SIZE, ANALYSIS_CACHE_CHARS
        self._terms = TextCache(partial(text_terms, analyzer), size, chars)
        self._rules = TextCache(rule_score, size, chars, size=_content_length)
        self.content_hash = TextCache(partial(_keyed_content, self.secret), size, chars)
        self._keywords = TextCache(analyzer.topic_extractor.extract, size, chars)
        self._llm = llm
        self.cache = cache if cache is not None else ScoreCache(settings.message_score_cache_size)

    def keywords(self, text: str) -> list[str]:
        """Topic keywords of a message (context compression's extreme level, memory cards).

        Cached here, with the other per-message analyses, rather than per request: the
        frontend sends the whole conversation every turn, and jieba's keyword extraction
        of 200 resent messages was 3.8 of 4.9 s over 30 assemblies (pyinstrument, the
        bench's context step at 1k memories).
        """
        return list(self._keywords(text))

    def task(
        self, task_context: str = "", task_type: str | None = None, phase: str | None = None
    ) -> ScoringTask:
        """The task, its type named or inferred (ValueError for an unknown name)."""
        return ScoringTask(
            task_context, resolve_task_type(task_type), phase or None, secret=self.secret
        )

    def message_key(self, message: ChatMessage) -> str:
        """The LLM answer cache's key of a message (keyed hash of its content)."""
        return message_key(message, self.content_hash(message.content))

    def score_rules(self, messages: Sequence[ChatMessage], task: ScoringTask) -> list[MessageScore]:
        """Rule-layer scores of every message (no I/O)."""
        relevance = TaskRelevance(self._terms, self._settings, task.context)
        # The author's name counts as text: "what did Ann say" is about Ann's messages.
        texts = [f"{m.name or ''} {m.content}" for m in messages]
        relevances = dialogue_context(messages, relevance.scores(texts))
        count = len(messages)
        scores = []
        for index, message in enumerate(messages):
            rules = self._rules(message)
            related = relevances[index]
            if rules.is_request and relevance.has_task:
                related = max(related, REQUEST_RELEVANCE_FLOOR)
            if "pleasantry" in rules.rules or "noise" in rules.rules:
                related = 0.0
            confidence = rules.confidence if relevance.has_task else min(rules.confidence, 0.6)
            scores.append(
                self._build(index, message, task, related, rules, confidence, recency(index, count))
            )
        return scores

    @property
    def has_llm(self) -> bool:
        """Whether an LLM is configured to refine uncertain messages."""
        return self._llm is not None

    async def score(
        self, messages: Sequence[ChatMessage], task: ScoringTask, *, ask_llm: bool = True
    ) -> list[MessageScore]:
        """Rules first, then the LLM (or its cache) for the uncertain messages.

        With ``ask_llm=False`` only earlier answers are used, and the uncertain messages
        the LLM has not answered yet are marked ``pending`` (seed 000
        ``async_score_and_compress``: the caller asks it in the background)."""
        # Every message's terms and rules: CPU work, in a worker thread.
        scores = await asyncio.to_thread(self.score_rules, messages, task)
        threshold = self._settings.message_score_llm_threshold
        uncertain = [s.index for s in scores if s.confidence < threshold]
        if not uncertain or (self._llm is None and not len(self.cache)):
            # Nothing to ask and nothing cached: hashing every message would be wasted.
            return scores
        cached: dict[int, LlmAnswer] = {}
        missing: list[tuple[int, ChatMessage]] = []
        for index in uncertain:
            answer = self.cache.get(self.message_key(messages[index]), task.key)
            if answer is not None:
                cached[index] = answer
            elif self._llm is not None:
                missing.append((index, messages[index]))
        fresh: dict[int, LlmAnswer] = {}
        if self._llm is not None and missing and ask_llm:
            fresh = await self._llm.score(missing, task.context, task.phase)
        elif missing:
            for index, _ in missing:
                scores[index] = replace(scores[index], pending=True)
        for index, answer in fresh.items():
            self.cache.put(self.message_key(messages[index]), task.key, answer)
        for index, answer in [*cached.items(), *fresh.items()]:
            scores[index] = self._from_llm(scores[index], answer, index in fresh)
        return scores

    def _build(
        self,
        index: int,
        message: ChatMessage,
        task: ScoringTask,
        relevance: float,
        rules: RuleScore,
        confidence: float,
        recent: float,
    ) -> MessageScore:
        dimensions: dict[Dimension, float] = {
            "relevance": relevance,
            "information": rules.information,
            "operation": rules.operation,
            "decision": rules.decision,
            "recency": recent,
        }
        weights = TASK_TYPE_WEIGHTS[task.task_type]
        rule = rules.score
        if rules.kind.name not in TERMINAL:
            rule += REFINEMENT_SPAN * (content_score(dimensions, weights) - 5.0) / 5.0
        rule = _clamp(rule)
        bonus = recency_bonus(recent, weights)
        return MessageScore(
            index=index,
            total=_clamp(rule + bonus),
            dimensions=dimensions,
            confidence=round(confidence, 4),
            method="rule",
            content_hash=self.content_hash(message.content),
            rules=tuple(rules.rules),
            message_id=message.id,
            rule_kind=rules.kind.name,
            rule_score=rule,
            recency_bonus=bonus,
        )

    @staticmethod
    def _from_llm(rule: MessageScore, answer: LlmAnswer, fresh: bool) -> MessageScore:
        """The LLM refines the share of the score the rule layer is unsure of."""
        sure = rule.confidence
        content = sure * rule.rule_score + (1.0 - sure) * answer.score
        return replace(
            rule,
            total=_clamp(content + rule.recency_bonus),
            method="llm" if fresh else "cache",
            reason=answer.reason,
            llm_score=round(answer.score, 4),
            pending=False,
        )


def build_message_scorer(analyzer: TextAnalyzer, settings: Settings) -> MessageImportanceScorer:
    """The process-wide scorer: rules, plus the LLM layer when ``LLM_BASE_URL`` is set."""
    client = ChatCompletionsClient.from_settings(settings)
    llm = LlmMessageScorer(client, settings.message_score_llm_batch) if client else None
    return MessageImportanceScorer(analyzer, settings, llm=llm, secret=hash_secret(settings))
