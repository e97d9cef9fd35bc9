"""Dynamic compression levels (seed 001 §3.2-§3.3) for items that must fit a token target.

The required compression rate is the share of tokens that has to go::

    rate = max(0, 1 − target / total)

and chooses the level (seed 001 §3.2's table):

| level   | rate      | what happens to an item below the preserve threshold |
|---------|-----------|-------------------------------------------------------|
| light   | < 0.3     | whitespace collapsed, repeated sentences removed      |
| medium  | 0.3 – 0.6 | extractive: the best sentences, half the text         |
| heavy   | 0.6 – 0.8 | core point: the best sentences, a quarter of the text |
| extreme | ≥ 0.8     | keywords only                                         |

Items whose importance reaches the preserve threshold stay intact (lightly compressed when
the rate is above 0.5, as the seed's ``compressLightly``). If the items still do not fit,
the most important are kept while they fit and the rest dropped: lowest importance goes
first (seed §3.3 step 5). Nothing returned is ever over the target.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

Level = Literal["none", "light", "medium", "heavy", "extreme"]
LEVELS: Final[tuple[Level, ...]] = ("none", "light", "medium", "heavy", "extreme")
# Upper bounds of the rate for each level (seed 001 §3.3's thresholds).
LIGHT_BELOW: Final = 0.3
MEDIUM_BELOW: Final = 0.6
HEAVY_BELOW: Final = 0.8
# Above this rate even preserved items are lightly compressed (seed ``rate > 0.5``).
PRESERVED_LIGHT_ABOVE: Final = 0.5
# Share of an item's sentences (by tokens) extractive levels keep.
KEEP_SHARE: Final[dict[Level, float]] = {"medium": 0.5, "heavy": 0.25}
KEYWORDS: Final = 8
ELLIPSIS: Final = " … "

_SPACES = re.compile(r"[ \t\u3000]+")


def required_rate(total_tokens: int, target_tokens: int) -> float:
    """The share of ``total_tokens`` that must go to fit ``target_tokens`` (0 if it fits)."""
    if total_tokens <= 0:
        return 0.0
    return round(max(0.0, 1.0 - target_tokens / total_tokens), 4)


def level_for(rate: float) -> Level:
    """The seed's level for a required compression rate."""
    if rate <= 0:
        return "none"
    if rate < LIGHT_BELOW:
        return "light"
    if rate < MEDIUM_BELOW:
        return "medium"
    if rate < HEAVY_BELOW:
        return "heavy"
    return "extreme"


def sentences(text: str) -> list[str]:
    """Sentences of Chinese or English text, delimiters kept, blanks dropped."""
    parts: list[str] = []
    for line in text.splitlines():
        # Chinese punctuation first; an English ". " splits what is left.
        for chunk in re.split(r"(?<=[。！？!?；;])", line):
            for piece in re.split(r"(?<=\.)\s+", chunk):
                if piece.strip():
                    parts.append(piece.strip())
    return parts


def _light(text: str) -> str:
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in sentences(_SPACES.sub(" ", text)):
        key = sentence.lower()
        if key not in seen:
            seen.add(key)
            kept.append(sentence)
    return " ".join(kept)


@dataclass(frozen=True)
class Item:
    """Something to fit: a memory or a message, with its importance on 0-1."""

    key: int
    text: str
    importance: float
    # Drop order when still over budget (lowest first); the importance when None.
    priority: float | None = None

    @property
    def rank(self) -> float:
        """What decides the drop order."""
        return self.importance if self.priority is None else self.priority


@dataclass(frozen=True)
class FittedItem:
    """An item as it goes into the context; ``level`` is how it was compressed."""

    key: int
    text: str
    tokens: int
    level: Level


@dataclass(frozen=True)
class Fitted:
    """Items kept (in their input order), the keys dropped, the rate and the level."""

    kept: list[FittedItem]
    dropped: list[int]
    rate: float
    level: Level

    @property
    def tokens(self) -> int:
        """Tokens of everything kept."""
        return sum(i.tokens for i in self.kept)


class LevelCompressor:
    """Shortens texts by level; sentence scores and keywords come from the caller."""

    def __init__(
        self,
        cost: Callable[[str], int],
        sentence_score: Callable[[str], float],
        keywords: Callable[[str], list[str]],
    ) -> None:
        self.cost = cost
        self._score = sentence_score
        self._keywords = keywords

    def shorten(self, text: str, level: Level) -> str:
        """``text`` compressed to ``level`` (unchanged for ``none``)."""
        if level == "none":
            return text
        if level == "light":
            return _light(text)
        if level == "extreme":
            words = self._keywords(text)[:KEYWORDS]
            return ", ".join(words) if words else _light(text)[:40]
        return self._extract(_light(text), KEEP_SHARE[level])

    def _extract(self, text: str, share: float) -> str:
        parts = sentences(text)
        if len(parts) <= 1:
            return text
        budget = max(1, int(self.cost(text) * share))
        order = sorted(range(len(parts)), key=lambda i: (-self._score(parts[i]), i))
        chosen: set[int] = set()
        used = 0
        for index in order:
            cost = self.cost(parts[index])
            if chosen and used + cost > budget:
                continue
            chosen.add(index)
            used += cost
        out: list[str] = []
        for index in range(len(parts)):
            if index in chosen:
                out.append(parts[index])
            elif out and out[-1] != ELLIPSIS.strip():
                out.append(ELLIPSIS.strip())
        return " ".join(out)

    def fit(self, items: Sequence[Item], target_tokens: int, preserve_threshold: float) -> Fitted:
        """Fit ``items`` into ``target_tokens``; see the module docstring."""
        costs = [self.cost(i.text) for i in items]
        rate = required_rate(sum(costs), target_tokens)
        level = level_for(rate)
        fitted: list[FittedItem] = []
        for item, cost in zip(items, costs, strict=True):
            if level == "none":
                fitted.append(FittedItem(item.key, item.text, cost, "none"))
                continue
            applied: Level = level
            if item.importance >= preserve_threshold:
                applied = "light" if rate > PRESERVED_LIGHT_ABOVE else "none"
            text = self.shorten(item.text, applied)
            tokens = self.cost(text)
            if tokens >= cost:  # compression that saves nothing keeps the original
                text, tokens, applied = item.text, cost, "none"
            fitted.append(FittedItem(item.key, text, tokens, applied))
        if sum(f.tokens for f in fitted) <= target_tokens:
            return Fitted(fitted, [], rate, level)
        # Still over: keep the most important while they fit (seed §3.3 step 5).
        order = sorted(range(len(items)), key=lambda i: (-items[i].rank, i))
        keep: set[int] = set()
        used = 0
        for index in order:
            if used + fitted[index].tokens <= target_tokens:
                keep.add(index)
                used += fitted[index].tokens
        return Fitted(
            [f for i, f in enumerate(fitted) if i in keep],
            [items[i].key for i in range(len(items)) if i not in keep],
            rate,
            level,
        )
