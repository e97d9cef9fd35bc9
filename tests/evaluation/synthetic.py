"""A tiny LoCoMo-shaped conversation (never the real dataset: tests must not need it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SAMPLE: dict[str, Any] = {
    "sample_id": "conv-t1",
    "conversation": {
        "speaker_a": "Alice",
        "speaker_b": "Bob",
        "session_1_date_time": "10:05 am on 1 March, 2023",
        "session_1": [
            {"speaker": "Alice", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit."},
            {"speaker": "Bob", "dia_id": "D1:2", "text": "Wonderful! Which breed?"},
            {"speaker": "Alice", "dia_id": "D1:3", "text": "Biscuit is a golden retriever."},
            {
                "speaker": "Bob",
                "dia_id": "D1:4",
                "text": "I started learning the violin.",
                "img_url": ["https://example.invalid/violin.jpg"],
                "blip_caption": "a photo of a violin on a wooden table",
            },
        ],
        "session_2_date_time": "4:30 pm on 12 April, 2023",
        "session_2": [
            {"speaker": "Alice", "dia_id": "D2:1", "text": "I ran my first marathon in Boston."},
            {"speaker": "Bob", "dia_id": "D2:2", "text": "Congratulations on the marathon!"},
            # Said again: merges into D1:1's memory (same normalised content).
            {"speaker": "Alice", "dia_id": "D2:3", "text": "I adopted a puppy named Biscuit!"},
            {"speaker": "Bob", "dia_id": "D2:4", "text": "My violin teacher lives in Vienna."},
        ],
        # conv-26 has dates for sessions that have no turns.
        "session_3_date_time": "9:00 am on 1 May, 2023",
    },
    "qa": [
        {
            # Malformed: two ids in one string, one with a leading zero.
            "question": "Where does the violin teacher live?",
            "answer": "Vienna",
            "evidence": ["D2:04; D1:4"],
            "category": 1,
        },
        {
            # The evidence turn merged into D1:1's memory.
            "question": "What name did the puppy get?",
            "answer": "Biscuit",
            "evidence": ["D2:3"],
            "category": 4,
        },
        {
            # D9:9 names no turn; D1:3 shares no word with the question.
            "question": "Where was the first marathon?",
            "answer": "Boston",
            "evidence": ["D2:1", "D1:3", "D9:9"],
            "category": 2,
        },
        {"question": "Unanswerable?", "adversarial_answer": "x", "evidence": ["D"], "category": 5},
        {"question": "No evidence?", "answer": "x", "evidence": [], "category": 3},
    ],
}


def write_sample(tmp_path: Path, copies: int = 1) -> Path:
    """A LoCoMo file holding the sample ``copies`` times (conv-t1, conv-t2, …)."""
    path = tmp_path / "locomo_tiny.json"
    samples = [{**SAMPLE, "sample_id": f"conv-t{i + 1}"} for i in range(copies)]
    path.write_text(json.dumps(samples), encoding="utf-8")
    return path
