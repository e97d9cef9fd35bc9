"""The sliding window's triggers and the reconstruction around a summary (seed 001 §4,
seed 003 §1), through the real app on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import AppFactory
from tests.api.helpers import Json, body, remember

SYSTEM = {"role": "system", "content": "You are Jarvis. 回答简洁。"}


def cooking(turns: int) -> list[Json]:
    out: list[Json] = []
    for i in range(turns):
        out.append({"role": "user", "content": f"红烧肉第{i}步要放多少糖？我们决定少放一点。"})
        out.append({"role": "assistant", "content": f"第{i}步：放 {10 + i} 克冰糖，小火慢炖。"})
    return out


async def assemble(client: httpx.AsyncClient, user: str, **fields: Any) -> Json:
    result: Json = body(await client.post(f"/v1/users/{user}/context", json=fields), 200)
    return result


def names(out: Json) -> list[str | None]:
    return [m.get("name") for m in out["messages"]]


@pytest.mark.parametrize(
    "switch", ["我们聊点别的吧，周末去哪里玩？", "Let's talk about something else: weekend plans?"]
)
async def test_asking_for_a_new_topic_summarises_the_old_window(
    client: httpx.AsyncClient, switch: str
) -> None:
    messages = [SYSTEM, *cooking(4), {"role": "user", "content": switch}]
    # A budget the whole conversation fits in easily: only the instruction summarises.
    out = await assemble(client, "dana", messages=messages, budget_tokens=20_000)
    start = len(messages) - 1
    assert out["window"] == {"trigger": "instruction", "start": start}
    assert out["summary"]["summarized"] == list(range(1, start))
    assert names(out) == [None, "context_summary", None]
    assert out["messages"][-1]["content"] == switch
    assert out["total_tokens"] <= 20_000
    # The next turn goes on in the new window: the old one stays folded.
    follow = [
        *messages,
        {"role": "assistant", "content": "去郊外爬山怎么样？"},
        {"role": "user", "content": "好主意，哪座山？"},
    ]
    later = await assemble(client, "dana", messages=follow, budget_tokens=20_000)
    assert later["window"] == {"trigger": "instruction", "start": start}
    assert [m["content"] for m in later["messages"][2:]] == [m["content"] for m in follow[start:]]


async def test_a_marked_topic_change_starts_a_window(client: httpx.AsyncClient) -> None:
    messages = [
        SYSTEM,
        *cooking(3),
        {"role": "user", "content": "明天的会议几点开始？", "topic_change": True},
        {"role": "assistant", "content": "上午十点。"},
        {"role": "user", "content": "在哪个会议室？"},
    ]
    out = await assemble(client, "dana", messages=messages, budget_tokens=20_000)
    assert out["window"] == {"trigger": "marked", "start": 7}
    assert out["summary"]["summarized"] == list(range(1, 7))
    assert [m["content"] for m in out["messages"][2:]] == [m["content"] for m in messages[7:]]
    assert out["messages"][2]["topic_change"] is True


async def test_no_trigger_no_summary(client: httpx.AsyncClient) -> None:
    messages = [SYSTEM, *cooking(3), {"role": "user", "content": "那第三步呢？"}]
    out = await assemble(client, "dana", messages=messages, budget_tokens=20_000)
    assert out["window"] is None
    assert out["summary"] is None
    assert len(out["messages"]) == len(messages)


async def test_too_little_headroom_summarises(app_with: AppFactory) -> None:
    # Seed 003: summarise when less than 10% of the budget, or 2,000 tokens, would be left
    # for the next turn, though the history is well under 80% of its share.
    messages = [SYSTEM, *cooking(30), {"role": "user", "content": "最后一步是什么？"}]
    seed = await app_with()
    out = await assemble(seed, "erin", messages=messages, budget_tokens=3000)
    assert out["window"]["trigger"] == "headroom"
    assert out["summary"] is not None
    assert out["window"]["start"] is None
    # The share alone (300 of 3,000 tokens) leaves enough: the history goes as it is.
    share_only = await app_with(context_headroom_tokens=0)
    kept = await assemble(share_only, "erin", messages=messages, budget_tokens=3000)
    assert kept["window"] is None
    assert kept["summary"] is None
    assert kept["total_tokens"] < 0.9 * 3000


async def test_a_summary_brings_the_key_user_information(client: httpx.AsyncClient) -> None:
    home = await remember(client, "fay", "我住在北京")
    work = await remember(client, "fay", "我在字节跳动工作")
    await remember(client, "fay", "我搬到上海了")  # supersedes 我住在北京
    stale = {"role": "assistant", "name": "user_profile", "content": "## Key User Information\n- x"}
    messages = [SYSTEM, stale, *cooking(4), {"role": "user", "content": "换个话题，聊聊电影吧"}]
    out = await assemble(client, "fay", messages=messages, budget_tokens=20_000)
    assert out["window"]["trigger"] == "instruction"
    assert 1 in out["removed_memory_blocks"]  # the old block is replaced, not stacked
    assert names(out)[:3] == [None, "context_summary", "user_profile"]
    profile = out["messages"][2]["content"]
    assert profile.startswith("## Key User Information\n")
    assert "residence: 我搬到上海了" in profile
    assert "employer: 我在字节跳动工作" in profile
    assert "北京" not in profile  # superseded: not a current fact
    assert home["id"] not in out["profile_memories"]
    assert work["id"] in out["profile_memories"]
    assert out["total_tokens"] <= 20_000


async def test_no_summary_no_profile(client: httpx.AsyncClient) -> None:
    await remember(client, "fay", "我在字节跳动工作")
    out = await assemble(
        client, "fay", messages=[SYSTEM, {"role": "user", "content": "hi"}], budget_tokens=20_000
    )
    assert "user_profile" not in names(out)
    assert out["profile_memories"] == []
