"""The personal-assistant scenarios of ``python -m evals scenarios``.

``evals/scenarios/`` holds one JSON file per person (their statements, one
memory each, with the instant a chat frontend would have written it, and the questions
asked of them, each labelled with its answer statements and every statement that is an
acceptable result) and ``conversations.json`` (``/context`` conversations whose user
messages are labelled with the statements worth a memory card). Its README.md says how
they were written and labelled.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

SCENARIO_DIR: Final = Path(__file__).resolve().parent / "scenarios"
CONVERSATIONS_FILE: Final = "conversations.json"
QUESTION_KINDS: Final = ("fact", "time", "urgency", "feeling", "no_answer")
Language = Literal["zh", "en", "mixed"]

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def language_of(text: str) -> Language:
    """zh: Chinese characters only; en: none; mixed: Chinese and Latin words both."""
    chinese, latin = bool(_CJK.search(text)), bool(_LATIN_WORD.search(text))
    if chinese and latin:
        return "mixed"
    return "zh" if chinese else "en"


@dataclass(frozen=True)
class Statement:
    """One thing the person said, stored as one memory."""

    id: str
    text: str
    at: datetime


@dataclass(frozen=True)
class ScenarioQuestion:
    """A question and its labels; ``acceptable`` includes ``answers``."""

    id: str
    text: str
    kind: str
    answers: frozenset[str]
    acceptable: frozenset[str]
    cross_lingual: bool
    language: Language

    @property
    def answerable(self) -> bool:
        """Whether the store holds an answer (no_answer questions have none)."""
        return bool(self.answers)


@dataclass(frozen=True)
class Person:
    """One person's store and questions; questions are asked at ``now``."""

    id: str
    name: str
    language: str
    now: datetime
    statements: tuple[Statement, ...]
    questions: tuple[ScenarioQuestion, ...]


@dataclass(frozen=True)
class LabelledMessage:
    """A conversation message; ``card_worthy`` are verbatim parts of a user message."""

    role: str
    content: str
    card_worthy: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScenarioConversation:
    """A ``/context`` conversation with its card labels."""

    id: str
    person: str
    language: str
    messages: tuple[LabelledMessage, ...]


def _question(raw: dict[str, Any], known: set[str]) -> ScenarioQuestion:
    answers = frozenset(str(a) for a in raw["answers"])
    acceptable = frozenset(str(a) for a in raw["acceptable"]) | answers
    unknown = acceptable - known
    if unknown:
        raise ValueError(f"question {raw['id']} names unknown statements {sorted(unknown)}")
    kind = str(raw["kind"])
    if kind not in QUESTION_KINDS or (kind == "no_answer") == bool(answers):
        raise ValueError(f"question {raw['id']}: kind {kind!r} does not fit its answers")
    text = str(raw["text"])
    return ScenarioQuestion(
        str(raw["id"]),
        text,
        kind,
        answers,
        acceptable,
        bool(raw.get("cross_lingual", False)),
        language_of(text),
    )


def parse_person(raw: dict[str, Any]) -> Person:
    """One person's file; every label must name a statement of that person."""
    statements = tuple(
        Statement(str(m["id"]), str(m["text"]), datetime.fromisoformat(str(m["at"])))
        for m in raw["memories"]
    )
    known = {s.id for s in statements}
    if len(known) != len(statements):
        raise ValueError(f"{raw['person']}: statement ids repeat")
    return Person(
        str(raw["person"]),
        str(raw["name"]),
        str(raw["language"]),
        datetime.fromisoformat(str(raw["now"])),
        statements,
        tuple(_question(q, known) for q in raw["questions"]),
    )


def parse_conversation(raw: dict[str, Any]) -> ScenarioConversation:
    """One conversation; a card-worthy label must be part of its user message."""
    messages = []
    for m in raw["messages"]:
        worthy = tuple(str(w) for w in m.get("card_worthy", ()))
        if any(w not in m["content"] for w in worthy) or (worthy and m["role"] != "user"):
            raise ValueError(f"conversation {raw['id']}: a card label is not in a user message")
        messages.append(LabelledMessage(str(m["role"]), str(m["content"]), worthy))
    return ScenarioConversation(
        str(raw["id"]), str(raw["person"]), str(raw["language"]), tuple(messages)
    )


def load_people(directory: Path = SCENARIO_DIR) -> list[Person]:
    """Every person of the folder, by file name."""
    return [
        parse_person(json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(directory.glob("*.json"))
        if path.name != CONVERSATIONS_FILE
    ]


def load_conversations(directory: Path = SCENARIO_DIR) -> list[ScenarioConversation]:
    """The ``/context`` conversations of the folder."""
    raw = json.loads((directory / CONVERSATIONS_FILE).read_text(encoding="utf-8"))
    return [parse_conversation(c) for c in raw["conversations"]]
