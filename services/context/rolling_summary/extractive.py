"""The rolling summary of seed 003: older messages become one ``context_summary`` message.

The summary is an assistant message named ``context_summary`` whose content starts with
``## Context Summary`` and has one ``### <heading>`` section per kind of content (seed 003
§2): Goal, Background, Key Facts, Constraints, Decisions, TODOs, Important Snippets, each
a list of ``- `` bullets. A later summary *folds the previous one in*: an incoming summary
message is parsed back into its sections and its bullets compete with the new ones for the
summary's budget, so summaries never stack.

Without an LLM the summary is extractive (seed 001 §3.1 提取式摘要): the messages are cut
into sentences, each sentence is filed under a heading by cue words (Chinese and English)
and scored by its message's importance plus the rule layer's information and decision
value of the sentence itself; the best sentences fill the budget. The LLM writer lives in
:mod:`services.context.rolling_summary.llm_summary`.

Who said it matters (:mod:`services.context.rolling_summary.statements`): pleasantries and
questions are never summarised; the **Goal** comes only from the person's requests,
rewritten as an instruction ("Also, can you remind me what I need to pay?" → "Remind me
what I need to pay"), and from statements of theirs with a goal cue (「我打算…」); a
request to be reminded of something (「记得提醒我…」) is a TODO. The person's statements
outrank the assistant's (``PERSON_BONUS``), and one that voices urgency or worry
(「急」, "worried") ranks like a cued sentence (``CONCERN_BONUS``), so an early concern of a
long conversation, in Chinese, English or both, stays in the summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from services.context.importance.rules import rule_score
from services.context.rolling_summary.statements import (
    Form,
    as_instruction,
    form_of,
    voices_concern,
    without_filler,
)
from services.context.shared.levels import sentences
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator
from services.core.text_cache import text_cache
from services.text import normalize_content
from services.text.analysis import jaccard

SUMMARY_NAME: Final = "context_summary"
SUMMARY_TITLE: Final = "## Context Summary"
HEADINGS: Final = (
    "Goal",
    "Background",
    "Key Facts",
    "Constraints",
    "Decisions",
    "TODOs",
    "Important Snippets",
)
MAX_BULLET_CHARS: Final = 300
# A bullet carried over from the previous summary already won a place once; it ranks like
# a solidly informative message (scores are on the message scale, 0-10).
PREVIOUS_BULLET_SCORE: Final = 6.0
# A sentence filed under a specific heading (not Background) is worth this much more.
CUE_BONUS: Final = 2.0
# The person's own statements and requests outrank the assistant's sentences.
PERSON_BONUS: Final = 1.0
# A statement of the person's that says something is urgent or worrying.
CONCERN_BONUS: Final = 2.0
MIN_SENTENCE_CHARS: Final = 4
# A bullet this similar (character bigram Jaccard) to one already picked says nothing new
# (seed 001 §3.1 删除冗余信息): 「端口 5400」 and 「端口 5401」 repeated 30 times is one fact.
NEAR_DUPLICATE: Final = 0.7

# Cues tried in order; the first that matches files the sentence (seed 003 §2 headings).
_CUES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    (
        "Important Snippets",
        re.compile(
            r"```|`[^`]+`|^\s*[$>]\s|\b(pip|npm|git|make|docker|python3?|curl|kubectl|alembic)"
            r"\s+\w|(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w+",
            re.I,
        ),
    ),
    (
        "Constraints",
        re.compile(
            r"必须|不能|不要|不得|禁止|只能|务必|不可以|不允许|不超过|至少|最多"
            r"|\bmust\b|\bshould ?n[o']t\b|\bcannot\b|\bcan't\b|\bnever\b|\bonly\b|\bat most\b"
            r"|\bat least\b|\bno more than\b|\bwithout\b|\brequired?\b",
            re.I,
        ),
    ),
    (
        "Decisions",
        re.compile(
            r"决定|决策|改为|改用|采用|选择了|选用|就用|确定用|定下|就按你说的|就这么[定办]|"
            r"\bdecided?\b|\bwe'll use\b|\bswitch(ed)? to\b|\bchose\b|\bgoing with\b"
            r"|\bsettled on\b|\blet's use\b|\bwill use\b|\blet's do (?:that|it)\b",
            re.I,
        ),
    ),
    (
        "TODOs",
        re.compile(
            r"TODO|待办|下一步|接下来|记得|回头|稍后|之后再|明天要|还要|还需要|还没|尚未"
            r"|\bnext step|\bto-?do\b|\bremember to\b|\blater\b|\bfollow up\b|\bstill need"
            r"|\bhaven'?t\b[^.!?]*\byet\b|\bI'?ll\b|\bI will\b",
            re.I,
        ),
    ),
    (
        "Goal",
        re.compile(
            r"目标|想要|希望|需求|打算|计划|我要|我想|帮我|请你|请帮"
            r"|\bgoal\b|\bwant to\b|\bwould like\b|\bneed to\b|\baim\b|\bplan to\b"
            r"|\btrying to\b|\bplease\b|\bhelp me\b",
            re.I,
        ),
    ),
    (
        "Key Facts",
        re.compile(
            r"\d|喜欢|偏好|讨厌|住在|生日|名字|叫做|是我的|\bprefer|\bI (like|love|hate)\b"
            r"|\bfavou?rite\b|\blives? in\b|\bmy (name|sister|brother|wife|husband|mother"
            r"|father|friend)\b|\b[A-Z][a-z]+ [A-Z][a-z]+\b",
        ),
    ),
)


def heading_for(sentence: str) -> str:
    """The seed-003 heading a sentence belongs under (Background when no cue matches)."""
    for heading, cue in _CUES:
        if cue.search(sentence):
            return heading
    return "Background"


def is_summary_message(message: ChatMessage) -> bool:
    """An earlier rolling summary: named ``context_summary`` or titled like one."""
    return message.name == SUMMARY_NAME or message.content.lstrip().startswith(SUMMARY_TITLE)


@dataclass
class Summary:
    """Bullets per heading, in heading order."""

    sections: dict[str, list[str]] = field(default_factory=lambda: {h: [] for h in HEADINGS})

    def render(self) -> str:
        """The message content: the title, then every non-empty section."""
        parts = [SUMMARY_TITLE]
        for heading in HEADINGS:
            bullets = self.sections.get(heading) or []
            if bullets:
                parts.append(f"\n### {heading}\n" + "\n".join(f"- {b}" for b in bullets))
        return "\n".join(parts)

    def message(self) -> ChatMessage:
        """The summary as the assistant message it is sent as."""
        return ChatMessage("assistant", self.render(), name=SUMMARY_NAME)

    @property
    def bullets(self) -> list[tuple[str, str]]:
        """(heading, bullet) of every bullet, in order."""
        return [(h, b) for h in HEADINGS for b in self.sections.get(h) or []]


def parse_summary(content: str) -> Summary:
    """Sections of an earlier summary's content. Unknown headings and loose text are kept
    under Background, so nothing a previous summary said is silently lost."""
    summary = Summary()
    heading = "Background"
    known = {h.lower(): h for h in HEADINGS}
    for raw in content.splitlines():
        line = raw.strip()
        if not line or line == SUMMARY_TITLE:
            continue
        if line.startswith("#"):
            heading = known.get(line.lstrip("#").strip().lower(), "Background")
            continue
        text = line[2:].strip() if line.startswith(("- ", "* ")) else line
        if text:
            summary.sections[heading].append(text)
    return summary


@dataclass(frozen=True)
class Candidate:
    """A sentence that may go into the summary, and where it came from."""

    heading: str
    text: str
    score: float
    message_index: int | None  # None: carried over from the previous summary
    role: str = "assistant"
    form: Form = "statement"  # a person's request is a Goal, never a card


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_BULLET_CHARS else text[: MAX_BULLET_CHARS - 1] + "…"


@text_cache(max_entries=50_000, max_chars=2_000_000)
def sentence_score(sentence: str) -> float:
    """Rule-layer value of one sentence: its information and decision dimensions (0-10)."""
    rules = rule_score(ChatMessage("user", sentence))
    return max(rules.information, rules.decision)


@dataclass(frozen=True)
class _Part:
    """One sentence of a message: its text, heading and bonus as either role would file it."""

    text: str
    heading: str
    bonus: float
    form: Form
    concern: bool


@text_cache(max_entries=20_000, max_chars=4_000_000)
def _parts(content: str) -> tuple[_Part, ...]:
    """Every sentence of a message that is not a pleasantry, classified; cached because a
    conversation is summarised again at every turn."""
    found = []
    pieces = [content] if "```" in content else sentences(content)
    for piece in pieces:
        text = _clip(piece)
        form = form_of(text) if "```" not in text else "statement"
        if len(text) < MIN_SENTENCE_CHARS or form == "pleasantry":
            continue
        heading = heading_for(text)
        if form == "request" and heading == "TODOs" and not text.endswith(("?", "？")):
            form = "statement"  # 「记得提醒我周三带样机」: a TODO of the person's
        extra = sentence_score(text) / 10.0
        found.append(_Part(text, heading, extra, form, voices_concern(text)))
    return tuple(found)


def _filed(part: _Part, role: str) -> tuple[str, str, float, Form] | None:
    """(text, heading, bonus, form) of a sentence said by ``role``; None: not summarised.

    Questions are dropped. The person's request becomes the Goal, as an instruction; the
    assistant's requests are suggestions, kept like its statements. Only the person's
    words file under Goal: an assistant sentence with a goal cue is Background.
    """
    asks = part.form == "question" or part.text.endswith(("?", "？"))
    if part.form == "question" or (asks and role != "user"):
        return None
    if role == "user":
        if part.form == "request":
            return (
                as_instruction(part.text),
                "Goal",
                part.bonus + CUE_BONUS + PERSON_BONUS,
                "request",
            )
        bonus = part.bonus + PERSON_BONUS + (CONCERN_BONUS if part.concern else 0.0)
        heading = part.heading
        text = without_filler(part.text)
    else:
        bonus, text = part.bonus, part.text
        heading = "Background" if part.heading == "Goal" else part.heading
    if heading != "Background":
        bonus += CUE_BONUS
    return text, heading, bonus, "statement"


def candidates(
    messages: Sequence[tuple[int, ChatMessage, float]], previous: Summary | None
) -> list[Candidate]:
    """Every sentence worth summarising, with its heading and score.

    ``messages`` are (index, message, importance 0-10). A sentence's score is its message's
    importance, plus ``CUE_BONUS`` under a specific heading, plus ``PERSON_BONUS`` (and
    ``CONCERN_BONUS``) for the person's own words, plus a tenth of its own rule value
    (breaks ties towards the informative sentence of a message)."""
    found: list[Candidate] = []
    if previous is not None:
        for heading, bullet in previous.bullets:
            found.append(Candidate(heading, bullet, PREVIOUS_BULLET_SCORE, None))
    for index, message, importance in messages:
        if message.is_system:
            continue
        for part in _parts(message.content):
            filed = _filed(part, message.role)
            if filed is None:
                continue
            text, heading, extra, form = filed
            found.append(
                Candidate(heading, text, round(importance + extra, 4), index, message.role, form)
            )
    return found


def fit_summary(
    chosen: Sequence[Candidate], budget: int, estimator: TokenEstimator
) -> tuple[Summary, list[Candidate]] | None:
    """The best-scored candidates that fit ``budget`` tokens as one summary message,
    duplicates (by normalised text) removed; None when not even one bullet fits."""
    seen: set[str] = set()
    unique: list[Candidate] = []
    for candidate in chosen:
        key = _normalized(candidate.text)
        if key and key not in seen:
            seen.add(key)
            unique.append(candidate)
    # Ties go to the later statement: in a conversation it supersedes the earlier one.
    order = sorted(range(len(unique)), key=lambda i: (-unique[i].score, -i))
    empty = Summary().message()
    used = estimator.message(empty)
    if used >= budget:
        return None
    headings_used: set[str] = set()
    picked: set[int] = set()
    grams: dict[int, set[str]] = {}
    for i in order:
        candidate = unique[i]
        # Bullets and headings are separate runs of text, so their costs add up.
        cost = estimator.count(f"- {candidate.text}")
        if candidate.heading not in headings_used:
            cost += estimator.count(f"### {candidate.heading}")
        if used + cost > budget:
            continue
        grams[i] = _bigrams(candidate.text)
        if any(jaccard(grams[i], grams[j]) >= NEAR_DUPLICATE for j in picked):
            continue
        picked.add(i)
        used += cost
        headings_used.add(candidate.heading)
    kept = [unique[i] for i in sorted(picked)]
    # The estimate of the whole rendered message decides; drop the weakest until it fits.
    while kept:
        summary = _build(kept)
        if estimator.message(summary.message()) <= budget:
            return summary, kept
        weakest = min(range(len(kept)), key=lambda i: (kept[i].score, -i))
        kept.pop(weakest)
    return None


@text_cache(max_entries=50_000, max_chars=2_000_000)
def _normalized(text: str) -> str:
    return normalize_content(text)


# A set of bigrams costs some 70 bytes per character of its text: at most 1M characters.
@text_cache(max_entries=50_000, max_chars=1_000_000)
def _bigrams(text: str) -> set[str]:
    folded = _normalized(text)
    return {folded[i : i + 2] for i in range(max(1, len(folded) - 1))}


def _build(kept: Sequence[Candidate]) -> Summary:
    summary = Summary()
    for candidate in kept:
        summary.sections[candidate.heading].append(candidate.text)
    return summary
