"""Load and check the people of ``evals/people`` (their README says how they are written).

A person is loaded into :class:`Person`: sessions of turns (each turn at its own instant,
the session's ``at`` plus ``TURN_SECONDS`` per turn before it) and labelled questions.
:func:`problems` lists what breaks the labelling rules; the loader refuses a file with any.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo

from services.core.settings import Settings
from services.text.analysis import TextAnalyzer, term_kind

PEOPLE_DIR: Final = Path(__file__).resolve().parent
SPLIT_FILE: Final = PEOPLE_DIR / "split.json"
TURN_SECONDS: Final = 40
KINDS: Final = ("fact", "time", "urgency", "feeling", "no_answer")
Role = Literal["user", "assistant"]
Language = Literal["zh", "en", "mixed"]
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Turn:
    """One message of a session, said at ``at``."""

    id: str
    role: Role
    text: str
    at: datetime
    session: str


@dataclass(frozen=True)
class Question:
    """A question and its labels; ``acceptable`` includes ``answers``."""

    id: str
    text: str
    kind: str
    answers: frozenset[str]
    acceptable: frozenset[str]
    paraphrase: bool
    cross_lingual: bool
    corrected: bool
    ignored_suggestion: bool

    @property
    def answerable(self) -> bool:
        return self.kind != "no_answer"


@dataclass(frozen=True)
class Person:
    """One person's sessions and questions."""

    person: str
    name: str
    language: Language
    timezone: str
    now: datetime
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    @property
    def user_turns(self) -> tuple[Turn, ...]:
        return tuple(t for t in self.turns if t.role == "user")


def _turns(raw: dict[str, Any]) -> list[Turn]:
    turns = []
    for session in raw["sessions"]:
        start = datetime.fromisoformat(session["at"])
        for i, t in enumerate(session["turns"]):
            at = start + timedelta(seconds=TURN_SECONDS * i)
            turns.append(Turn(t["id"], t["role"], t["text"], at, session["id"]))
    return turns


def _question(q: dict[str, Any]) -> Question:
    return Question(
        q["id"],
        q["text"],
        q["kind"],
        frozenset(q.get("answers", ())),
        frozenset(q.get("acceptable", ())) | frozenset(q.get("answers", ())),
        bool(q.get("paraphrase", False)),
        bool(q.get("cross_lingual", False)),
        bool(q.get("corrected", False)),
        bool(q.get("ignored_suggestion", False)),
    )


def parse(raw: dict[str, Any]) -> Person:
    """A person from its JSON (unchecked: see :func:`problems`)."""
    return Person(
        raw["person"],
        raw["name"],
        raw["language"],
        raw["timezone"],
        datetime.fromisoformat(raw["now"]),
        tuple(_turns(raw)),
        tuple(_question(q) for q in raw["questions"]),
    )


def content_words(analyzer: TextAnalyzer, text: str) -> set[str]:
    """The words and Chinese character pairs a question could match a turn by."""
    return {t for t in analyzer.query_terms(text) if term_kind(t) in ("word", "bigram")}


def is_chinese(text: str) -> bool:
    """Mostly Chinese: at least a third of its letters are Han characters."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(bool(_CJK.match(c)) for c in letters) * 3 >= len(letters)


def problems(raw: dict[str, Any], analyzer: TextAnalyzer) -> list[str]:
    """Every way the file breaks the README's rules (empty when it keeps them)."""
    found: list[str] = []
    person = parse(raw)
    ids = [t.id for t in person.turns]
    if len(ids) != len(set(ids)):
        found.append("turn ids repeat")
    try:
        ZoneInfo(person.timezone)
    except Exception:
        found.append(f"unknown time zone {person.timezone}")
    if person.language not in ("zh", "en", "mixed"):
        found.append(f"language {person.language}")
    by_id = {t.id: t for t in person.turns}
    last = max(t.at for t in person.turns)
    if person.now <= last:
        found.append("now is not after the last turn")
    for t in person.turns:
        if t.role not in ("user", "assistant") or not t.text.strip():
            found.append(f"{t.id}: bad role or empty text")
    qids = [q.id for q in person.questions]
    if len(qids) != len(set(qids)):
        found.append("question ids repeat")
    for q in person.questions:
        found.extend(_question_problems(q, by_id, analyzer))
    return found


def _question_problems(q: Question, by_id: dict[str, Turn], analyzer: TextAnalyzer) -> list[str]:
    found = []
    if q.kind not in KINDS:
        found.append(f"{q.id}: kind {q.kind}")
    unknown = [i for i in q.acceptable if i not in by_id]
    if unknown:
        return [f"{q.id}: unknown turns {sorted(unknown)}"]
    if any(by_id[i].role != "user" for i in q.acceptable):
        found.append(f"{q.id}: an assistant turn is labelled acceptable")
    if q.kind == "no_answer" and q.answers:
        found.append(f"{q.id}: no_answer with answers")
    if q.kind != "no_answer" and not q.answers:
        found.append(f"{q.id}: no answers")
    if q.ignored_suggestion and q.kind != "no_answer":
        found.append(f"{q.id}: ignored_suggestion must be no_answer")
    if q.answers and q.paraphrase:
        asked = content_words(analyzer, q.text)
        for i in sorted(q.answers):
            shared = asked & content_words(analyzer, by_id[i].text)
            if shared:
                found.append(f"{q.id}: paraphrase shares {sorted(shared)} with {i}")
    if q.answers:
        other = all(is_chinese(by_id[i].text) != is_chinese(q.text) for i in q.answers)
        if q.cross_lingual != other:
            found.append(f"{q.id}: cross_lingual is {q.cross_lingual}, languages say {other}")
    return found


def load(path: Path, analyzer: TextAnalyzer | None = None) -> Person:
    """A checked person; ValueError naming every problem otherwise."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    wrong = problems(raw, analyzer or TextAnalyzer(Settings()))
    if wrong:
        raise ValueError(f"{path.name}: " + "; ".join(wrong))
    return parse(raw)


def people_files(directory: Path = PEOPLE_DIR) -> list[Path]:
    """Every person's file, by name."""
    return sorted(p for p in directory.glob("*.json") if p.name != SPLIT_FILE.name)


def split(directory: Path = PEOPLE_DIR) -> dict[str, list[str]]:
    """``{"fit": [...], "test": [...]}``: people by part."""
    parts: dict[str, list[str]] = json.loads((directory / SPLIT_FILE.name).read_text())
    return parts


def summary(people: Iterable[Person]) -> dict[str, int]:
    """Counts the README's targets are stated in."""
    qs = [q for p in people for q in p.questions]
    return {
        "questions": len(qs),
        "no_answer": sum(not q.answerable for q in qs),
        "paraphrase": sum(q.paraphrase for q in qs),
        "cross_lingual": sum(q.cross_lingual for q in qs),
        "corrected": sum(q.corrected for q in qs),
        "ignored_suggestion": sum(q.ignored_suggestion for q in qs),
    }
