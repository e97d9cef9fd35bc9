"""Which language a text is in, as far as recall needs to know: Chinese, English or a mix.

    chinese_share(text) = CJK characters / (CJK characters + Latin words)

0.5 for a text with neither (a date, a number). Two texts are in other languages when
their shares differ by at least ``OTHER_LANGUAGE_GAP``: then they share no word a lexical
index could match (names and numbers aside), and only a semantic source can tie them.
"""

from __future__ import annotations

import re
from typing import Final

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")

# Half the scale: 「我在Google工作」 (0.8) is Chinese beside "Where do I work?" (0), and
# a text of digits alone (0.5) is in neither language's other.
OTHER_LANGUAGE_GAP: Final = 0.5


def chinese_share(text: str) -> float:
    """CJK characters / (CJK characters + Latin words); 0.5 for a text with neither."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 0.5


def other_language(share: float, other: float) -> bool:
    """Texts with these Chinese shares are in different languages."""
    return abs(share - other) >= OTHER_LANGUAGE_GAP
