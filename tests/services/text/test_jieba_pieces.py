"""jieba gets text in bounded pieces: its HMM is quadratic in an unbroken run."""

from __future__ import annotations

import jieba

from services.text import _jieba
from services.text._jieba import MAX_PIECE_CHARS, pieces


def test_pieces_are_bounded_cover_the_text_and_cut_after_punctuation() -> None:
    text = ("我们今天下午一起去公园散步，然后吃饭。" * 30) + "长" * 1000
    parts = pieces(text)
    assert "".join(parts) == text
    assert all(len(p) <= MAX_PIECE_CHARS for p in parts)
    assert parts[0].endswith(("，", "。"))  # a whole word is never cut where it can be helped
    assert pieces("短句") == ["短句"]


def test_text_shorter_than_a_piece_segments_exactly_as_jieba_does() -> None:
    run = "我们今天下午一起去公园散步然后去看电影"
    assert _jieba.cut_for_search(run) == list(jieba.cut_for_search(run, HMM=True))


def test_a_long_run_of_unknown_characters_is_cut_into_pieces_before_the_hmm() -> None:
    """8,000 rare characters with no punctuation took 1.1-1.6 s, 200,000 would take hours;
    what is checked here is that jieba never sees more than a piece at once."""
    seen: list[int] = []
    original = jieba.cut_for_search

    def spy(text: str, HMM: bool = True) -> object:  # noqa: N803 (jieba's name)
        seen.append(len(text))
        return original(text, HMM=HMM)

    jieba.cut_for_search = spy
    try:
        tokens = _jieba.cut_for_search(
            "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(2000))
        )
    finally:
        jieba.cut_for_search = original
    assert tokens
    assert max(seen) <= MAX_PIECE_CHARS
    assert sum(seen) == 2000
