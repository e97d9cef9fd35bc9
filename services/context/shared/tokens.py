"""Token estimation for context budgets.

Seed 001 §2.2 estimates "English about 1.3 x the word count, Chinese about 1.5 x the
character count". We count the three kinds of text separately so mixed text is not
double-counted:

- each CJK character (Han, kana, Hangul) costs 1.5 tokens;
- each run of Latin letters / digits (a word, a number) costs 1.3 tokens;
- each run of other visible symbols (punctuation of any script, emoji) costs 1 token;

the sum is rounded up. Whitespace is free. Against OpenAI's cl100k encoding this
over-estimates slightly on purpose: a context the service says fits must really fit.

Every chat message also costs ``MESSAGE_OVERHEAD_TOKENS`` for the role markup the
chat-completions format wraps it in (plus its ``name``, if any).

When the ``tiktoken`` package is installed *and* its encoding is already in the local
cache, ``TOKEN_ESTIMATOR=tiktoken`` (or ``auto``) counts with it instead; nothing is ever
downloaded at run time: a missing cache falls back to the heuristic with a warning.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final, Literal

from services.context.shared.messages import ChatMessage
from services.core.text_cache import text_cache

log = logging.getLogger(__name__)

CJK_TOKENS_PER_CHAR: Final = 1.5
TOKENS_PER_WORD: Final = 1.3
TOKENS_PER_SYMBOL_RUN: Final = 1.0
MESSAGE_OVERHEAD_TOKENS: Final = 4

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
_TEXT_RE = re.compile(rf"(?P<cjk>[{_CJK}])|(?P<word>[^\W_{_CJK}]+)|(?P<symbol>[^\s\w{_CJK}]+|_+)")

EstimatorName = Literal["heuristic", "tiktoken", "auto"]
TIKTOKEN_ENCODING: Final = "cl100k_base"
_TIKTOKEN_BLOB: Final = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


# Anything that counts the tokens of a text.
TokenCounter = Callable[[str], int]


# A conversation is estimated again at every turn; at most 4M characters of it kept.
@text_cache(max_entries=65_536, max_chars=4_000_000)
def heuristic_tokens(text: str) -> int:
    """Seed 001 §2.2 estimate of ``text`` (see the module docstring)."""
    cjk = words = symbols = 0
    for match in _TEXT_RE.finditer(text):
        if match.group("cjk"):
            cjk += 1
        elif match.group("word"):
            words += 1
        else:
            symbols += 1
    raw = cjk * CJK_TOKENS_PER_CHAR + words * TOKENS_PER_WORD + symbols * TOKENS_PER_SYMBOL_RUN
    # round() first: 10 words are 13.0 tokens, not 14 because of 13.000000000000002.
    return math.ceil(round(raw, 6))


@dataclass(frozen=True)
class TokenEstimator:
    """Counts text and chat messages with one counting function."""

    count: TokenCounter = heuristic_tokens
    name: str = "heuristic"

    def message(self, message: ChatMessage) -> int:
        """Tokens of one message including its role markup and name."""
        name = self.count(message.name) if message.name else 0
        return MESSAGE_OVERHEAD_TOKENS + name + self.count(message.content)

    def messages(self, messages: Iterable[ChatMessage]) -> int:
        """Tokens of a message list."""
        return sum(self.message(m) for m in messages)


HEURISTIC: Final = TokenEstimator()


def _tiktoken_cached() -> bool:
    # tiktoken's own cache layout (tiktoken/load.py): $TIKTOKEN_CACHE_DIR, else
    # $DATA_GYM_CACHE_DIR, else <tmp>/data-gym-cache, file named sha1(blob URL). Checked
    # first because get_encoding() would otherwise try to download the file.
    directory = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    base = Path(directory) if directory else Path(tempfile.gettempdir()) / "data-gym-cache"
    return (base / hashlib.sha1(_TIKTOKEN_BLOB.encode()).hexdigest()).is_file()


def _load_tiktoken() -> TokenCounter | None:
    try:
        import tiktoken  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    if not _tiktoken_cached():
        return None
    try:
        encoding = tiktoken.get_encoding(TIKTOKEN_ENCODING)
    except Exception as exc:  # a broken cache must not take the service down
        log.warning("tiktoken could not load %s (%s); using the heuristic", TIKTOKEN_ENCODING, exc)
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    return count


@lru_cache(maxsize=4)
def get_token_estimator(name: EstimatorName = "heuristic") -> TokenEstimator:
    """The estimator for the ``TOKEN_ESTIMATOR`` setting.

    ``auto`` uses tiktoken when it is installed and cached, else the heuristic;
    ``tiktoken`` does the same but logs a warning when it has to fall back.
    """
    if name == "heuristic":
        return HEURISTIC
    counter = _load_tiktoken()
    if counter is None:
        if name == "tiktoken":
            log.warning("TOKEN_ESTIMATOR=tiktoken but tiktoken or its cached encoding is missing")
        return HEURISTIC
    return TokenEstimator(count=counter, name="tiktoken")
