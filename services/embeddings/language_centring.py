"""Language-mean centring: take out what every Chinese (or English) text has in common.

A multilingual encoder places texts of one language near each other whatever they say, so
a Chinese query's nearest memories are Chinese ones before they are relevant ones. Each
vector is centred by subtracting the mean vector of its language, measured once when the
model loads on calibration sentences of our own (services/embeddings/data/
calibration_{zh,en}.txt: everyday statements written for this project, in no evaluation
set), separately for queries and passages (E5 encodes them with different prefixes):

    v' = v − (w · mean_zh + (1 − w) · mean_en),   w = the text's Chinese share

where the Chinese share is CJK characters / (CJK characters + Latin words) (services/text/
language.py), so a mixed text gets a mixed mean. Vectors are normalised again afterwards
(services/embeddings/service.py). The gain is measured by ``python -m evals bilingual``
(docs/eval/).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Protocol

from services.text.language import chinese_share


class Encoder(Protocol):
    """Anything with ``encode(texts, query) -> rows`` (the bundled engine's wrapper)."""

    def encode(self, texts: list[str], query: bool) -> list[list[float]]:
        """One vector per text, with the query or the passage prefix."""
        ...


def calibration_sentences(language: str) -> list[str]:
    """The packaged calibration sentences of ``zh`` or ``en`` (comments left out)."""
    text = (
        resources.files("services.embeddings")
        .joinpath(f"data/calibration_{language}.txt")
        .read_text(encoding="utf-8")
    )
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def _mean(rows: Sequence[Sequence[float]]) -> list[float]:
    return [sum(column) / len(rows) for column in zip(*rows, strict=True)]


@dataclass(frozen=True)
class LanguageMeans:
    """Mean vector per (language, query or passage)."""

    zh_query: list[float]
    en_query: list[float]
    zh_passage: list[float]
    en_passage: list[float]

    @classmethod
    def measure(cls, encode: Encoder) -> LanguageMeans:
        """Embed the calibration sentences both ways and average them (CPU: a thread's job)."""
        zh, en = calibration_sentences("zh"), calibration_sentences("en")
        return cls(
            zh_query=_mean(encode.encode(zh, True)),
            en_query=_mean(encode.encode(en, True)),
            zh_passage=_mean(encode.encode(zh, False)),
            en_passage=_mean(encode.encode(en, False)),
        )


def centred(row: Sequence[float], text: str, means: LanguageMeans, query: bool) -> list[float]:
    """``row`` minus the mean of ``text``'s language mix (not normalised)."""
    share = chinese_share(text)
    zh, en = (means.zh_query, means.en_query) if query else (means.zh_passage, means.en_passage)
    return [v - (share * z + (1.0 - share) * e) for v, z, e in zip(row, zh, en, strict=True)]
