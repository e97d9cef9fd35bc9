"""The question sets of ``python -m evals bilingual``: MemoryBank and our own.

MemoryBank (Zhong et al. 2023) holds parallel Chinese and English chat histories and
"probing questions" without answers. evals/bilingual/memorybank_labels.json
names, for 28 of those questions, the turns that answer them (labelled by hand; the
dataset is read from its folder, never copied). Because the two languages parallel each
other turn for turn, the labels give four sets: Chinese questions over the Chinese
histories, English over English, and the two cross-lingual pairings. One turn (the user's
message and the assistant's answer) is one memory, written on its day.

evals/bilingual/cross_lingual.json is a set of our own: one bilingual
person's 36 statements and 32 questions, each asked in the other language than the
statement that answers it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from services.core.errors import InvalidInput

LANGUAGES = {"zh": "cn", "en": "en"}  # our code → the dataset's folder name
MEMORYBANK_NOW = datetime(2023, 5, 7, 12, tzinfo=UTC)  # the day after the last session
CROSS_LINGUAL_NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@dataclass(frozen=True)
class Statement:
    """One memory to write: ``key`` is what a question's evidence refers to."""

    key: str
    content: str
    created_at: datetime


@dataclass(frozen=True)
class Probe:
    """A question and the keys of the statements that answer it."""

    text: str
    evidence: frozenset[str]


@dataclass(frozen=True)
class History:
    """One person's statements (``key`` names them for reuse across sets) and when to ask."""

    key: str
    statements: tuple[Statement, ...]
    now: datetime


@dataclass(frozen=True)
class QuestionSet:
    """Questions asked of histories, one list of probes per history."""

    name: str
    description: str
    asked: tuple[tuple[History, tuple[Probe, ...]], ...]

    @property
    def questions(self) -> int:
        return sum(len(probes) for _, probes in self.asked)


def _packaged(name: str) -> Any:
    text = resources.files("evals").joinpath(f"bilingual/{name}").read_text("utf-8")
    return json.loads(text)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise InvalidInput(f"no such MemoryBank file: {path}")
    return json.loads(path.read_text(encoding="utf-8"))


def _read_jsonl(path: Path) -> list[Any]:
    if not path.is_file():
        raise InvalidInput(f"no such MemoryBank file: {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _histories(bank: dict[str, Any], language: str, count: int) -> list[History]:
    """The first ``count`` users' turns as statements keyed ``<date>#<position>``."""
    histories = []
    for number, user in enumerate(list(bank.values())[:count]):
        statements = tuple(
            Statement(
                f"{date}#{position}",
                f"{turn['query']}\n{turn['response']}",
                datetime.fromisoformat(date).replace(hour=20, minute=position, tzinfo=UTC),
            )
            for date, turns in user["history"].items()
            for position, turn in enumerate(turns)
        )
        histories.append(History(f"memorybank-{language}-{number}", statements, MEMORYBANK_NOW))
    return histories


def memorybank_sets(folder: Path) -> list[QuestionSet]:
    """The four MemoryBank sets (zh, en, en→zh, zh→en) from the dataset in ``folder``."""
    labels = _packaged("memorybank_labels.json")
    users: list[str] = labels["users"]
    banks = {
        code: _read_json(folder / name / f"memory_bank_{name}.json")
        for code, name in LANGUAGES.items()
    }
    questions: dict[str, list[list[str]]] = {}
    for code, name in LANGUAGES.items():
        lines = _read_jsonl(folder / name / f"probing_questions_{name}.jsonl")
        by_user = {k.strip(): v for line in lines for k, v in line.items()}
        names = [n.strip() for n in list(banks[code])[: len(users)]]
        questions[code] = [by_user[n] for n in names]
    if [n.strip() for n in list(banks["zh"])[: len(users)]] != users:
        raise InvalidInput(f"{folder}: the Chinese users are not the labelled ones {users}")
    histories = {code: _histories(banks[code], code, len(users)) for code in LANGUAGES}

    def pairing(history_language: str, question_language: str) -> tuple[Any, ...]:
        asked = []
        for number, history in enumerate(histories[history_language]):
            probes = tuple(
                Probe(
                    questions[question_language][number][label["question"]],
                    frozenset(f"{date}#{position}" for date, position in label["evidence"]),
                )
                for label in labels["labels"]
                if label["user"] == number
            )
            asked.append((history, probes))
        return tuple(asked)

    return [
        QuestionSet("memorybank-zh", "Chinese questions, Chinese histories", pairing("zh", "zh")),
        QuestionSet("memorybank-en", "English questions, English histories", pairing("en", "en")),
        QuestionSet(
            "memorybank-en→zh", "English questions, Chinese histories", pairing("zh", "en")
        ),
        QuestionSet(
            "memorybank-zh→en", "Chinese questions, English histories", pairing("en", "zh")
        ),
    ]


def cross_lingual_set() -> QuestionSet:
    """Our own bilingual person: every question in the other language than its answer."""
    data = _packaged("cross_lingual.json")
    statements = tuple(
        Statement(key, text, CROSS_LINGUAL_NOW - timedelta(days=len(data["statements"]) - n))
        for n, (key, text) in enumerate(data["statements"].items())
    )
    history = History("cross-lingual", statements, CROSS_LINGUAL_NOW)
    probes = tuple(Probe(q["text"], frozenset([q["answer"]])) for q in data["questions"])
    return QuestionSet(
        "cross-lingual",
        "our own: English questions of Chinese memories and Chinese of English ones",
        ((history, probes),),
    )
