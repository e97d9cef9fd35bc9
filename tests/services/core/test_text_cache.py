"""Per-text caches are bounded in characters as well as entries."""

from __future__ import annotations

from services.core.text_cache import TextCache, text_cache


def test_the_least_recently_used_go_first_when_characters_run_over() -> None:
    calls: list[str] = []

    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    cache = TextCache(upper, max_entries=100, max_chars=30)
    keys = [f"k{i:02d}" for i in range(10)]  # ten of 3 characters: 30 in all
    for key in keys:
        assert cache(key) == key.upper()
    cache(keys[0])  # used again: keys[1] is now the oldest
    assert (len(cache), cache.chars) == (10, 30)
    cache("new")  # 33 > 30: keys[1] goes
    assert (len(cache), cache.chars) == (10, 30)
    calls.clear()
    cache(keys[0])
    cache(keys[1])
    assert calls == [keys[1]]


def test_a_text_over_a_tenth_of_the_budget_is_computed_and_not_kept() -> None:
    @text_cache(max_entries=10, max_chars=100)
    def length(text: str) -> int:
        return len(text)

    assert length("x" * 11) == 11
    assert (len(length), length.chars) == (0, 0)
    assert length("x" * 10) == 10
    assert len(length) == 1


def test_entries_are_bounded_too_and_keys_may_be_sized_by_a_function() -> None:
    cache: TextCache[tuple[str, int], str] = TextCache(
        lambda pair: pair[0], max_entries=2, max_chars=1000, size=lambda p: p[1]
    )
    for key in [("a", 5), ("b", 5), ("c", 5)]:
        cache(key)
    assert (len(cache), cache.chars) == (2, 10)
