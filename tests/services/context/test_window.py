"""The sliding window's triggers and the knowledge cache, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.context.assembly.knowledge_cache import CacheKey, KnowledgeCache, query_key
from services.context.assembly.recalled_summary import clip, extractive
from services.context.assembly.window import asks_for_new_topic, headroom_needed, window_start
from services.context.shared.messages import ChatMessage


@pytest.mark.parametrize(
    "text",
    [
        "我们聊点别的吧",
        "换个话题：你周末干嘛？",
        "不聊这个了，说说电影",
        "Let's talk about something else.",
        "Can we change the subject?",
        "New topic: my trip to Lisbon",
    ],
)
def test_asking_for_a_new_topic(text: str) -> None:
    assert asks_for_new_topic(text)


@pytest.mark.parametrize(
    "text", ["这个话题很有意思", "Tell me more about this topic", "我们接着聊 Redis 的配置"]
)
def test_staying_on_the_topic(text: str) -> None:
    assert not asks_for_new_topic(text)


def test_the_latest_start_wins_and_only_a_user_asks() -> None:
    messages = [
        ChatMessage("user", "换个话题"),
        ChatMessage("assistant", "好，换个话题吧"),  # the assistant agreeing starts nothing
        ChatMessage("user", "说说天气", topic_change=True),
        ChatMessage("user", "还有明天呢？"),
    ]
    found = window_start(messages, range(len(messages)))
    assert found is not None
    assert (found.index, found.trigger) == (2, "marked")
    assert window_start(messages[:2], [0, 1]) is not None
    assert window_start(messages[3:], [0]) is None


def test_headroom_is_the_larger_of_the_share_and_the_tokens() -> None:
    assert headroom_needed(100_000, 0.10, 2000) == 10_000
    assert headroom_needed(4000, 0.10, 2000) == 2000
    assert headroom_needed(4001, 0.10, 0) == 401


def test_the_cache_expires_and_forgets_older_versions() -> None:
    cache: KnowledgeCache[str] = KnowledgeCache(ttl_seconds=300, max_entries=2)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    key = CacheKey("alice", 1, query_key("Green tea?"), 5, "auto")
    cache.put(key, "v1", now)
    assert cache.get(CacheKey("alice", 1, query_key("green  TEA"), 5, "auto"), now) == "v1"
    assert cache.get(key, now + timedelta(seconds=299)) == "v1"
    assert cache.get(key, now + timedelta(seconds=300)) is None
    cache.put(key, "v1", now)
    cache.put(CacheKey("alice", 2, key.query, 5, "auto"), "v2", now)
    assert cache.get(key, now) is None  # a newer write version makes it unreachable
    assert len(cache) == 1
    off: KnowledgeCache[str] = KnowledgeCache(ttl_seconds=0, max_entries=10)
    off.put(key, "v", now)
    assert not off.enabled
    assert off.get(key, now) is None


def test_summaries_stay_within_200_characters() -> None:
    long = "第一句话很长很长。" * 40
    assert len(clip(long)) <= 200
    assert clip(long).endswith("。")
    texts = ["Alice drinks green tea every morning.", "Bob plays chess. " * 30]
    found = extractive(texts, "what tea does Alice drink")
    assert found.startswith("Alice drinks green tea every morning.")
    assert len(found) <= 200
