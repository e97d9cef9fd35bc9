"""Clean writes from POST /v1/users/{id}/context, through the real app on SQLite
and PostgreSQL: memory cards hold only what the person stated; the summary's Goal is the
person's request, its Background stated context; a mixed conversation keeps its early
concern."""

from __future__ import annotations

import httpx

from services.context.rolling_summary.extractive import parse_summary
from tests.api.helpers import Json, body, list_all

# A conversation that once wrote pleasantries into memory, with more turns after it so
# that it is summarised.
EN: list[Json] = [
    {"role": "user", "content": "Hi, I'm planning my week and I need some help."},
    {"role": "assistant", "content": "Of course! What do you have coming up this week?"},
    {
        "role": "user",
        "content": "The council tax payment is overdue and I must pay it by Monday. "
        "I also have the physio appointment for my knee on Wednesday at 4pm.",
    },
    {
        "role": "assistant",
        "content": "You should set up a direct debit so it never becomes overdue again. "
        "Would you like me to add the physio appointment to your calendar?",
    },
    {"role": "user", "content": "Right."},
    {
        "role": "assistant",
        "content": "You must never skip a warm-up before your long runs, especially with a "
        "sore knee.",
    },
    {"role": "user", "content": "Also, can you remind me what I need to pay before tomorrow?"},
    {"role": "assistant", "content": "You need to pay the council tax by Monday."},
    {"role": "user", "content": "Yes please."},
    {"role": "assistant", "content": "Do you want a training plan for the half marathon?"},
    {"role": "user", "content": "I decided to move my long run to Saturday morning this week."},
    {"role": "assistant", "content": "Got it. Anything else?"},
    {"role": "user", "content": "No, that's all for now."},
]
EN_PERSON = {
    "The council tax payment is overdue and I must pay it by Monday.",
    "I also have the physio appointment for my knee on Wednesday at 4pm.",
    "I decided to move my long run to Saturday morning this week.",
}
ZH: list[Json] = [
    {"role": "user", "content": "你好，帮我理一下这周的事情。"},
    {"role": "assistant", "content": "好的，你这周有哪些安排？"},
    {"role": "user", "content": "我妈下周二上午九点在瑞金医院复查，我得请假陪她去。"},
    {
        "role": "assistant",
        "content": "建议你提前一天把病历和医保卡准备好。你需要我帮你写请假邮件吗？",
    },
    {"role": "user", "content": "好的。"},
    {"role": "assistant", "content": "你必须提前跟周总监说请假的事，不然他可能不批。"},
    {"role": "user", "content": "嗯，我决定明天就跟周总监请假。"},
    {"role": "assistant", "content": "要不要我顺便提醒你车险4月2日到期？"},
    {"role": "user", "content": "对，谢谢。"},
    {"role": "assistant", "content": "不客气，祝你妈妈复查顺利。"},
    {"role": "user", "content": "再见。"},
]
MIXED: list[Json] = [
    {"role": "user", "content": "周末想放松一下，but I have so much to do."},
    {"role": "assistant", "content": "Let's sort it out. 你周末有哪些事？"},
    {"role": "user", "content": "清明回成都的高铁票还没买，急！"},
    {
        "role": "assistant",
        "content": "You should book it today, tickets sell out fast. 要不要我提醒你？",
    },
    {"role": "user", "content": "好的。"},
    {"role": "assistant", "content": "你也可以考虑坐飞机，时间更短。The flight is only two hours."},
    {"role": "user", "content": "I prefer the train, 我不喜欢赶飞机。"},
    {"role": "assistant", "content": "Makes sense. Shall I look up the timetable for you?"},
    {"role": "user", "content": "周六上午有 yoga class，下午想带豆豆去打疫苗。"},
    {"role": "assistant", "content": "记得带上豆豆的疫苗本。Have a relaxing weekend!"},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "不客气，周末愉快！"},
    {"role": "user", "content": "周日晚上我再跟你确认一下。"},
]


async def _context(client: httpx.AsyncClient, user: str, messages: list[Json]) -> Json:
    out: Json = body(
        await client.post(
            f"/v1/users/{user}/context",
            json={
                "messages": messages,
                "budget_tokens": 200,
                "preserve_recent": 2,
                "extract_cards": True,
            },
        ),
        200,
    )
    return out


def _summary(out: Json) -> dict[str, list[str]]:
    [message] = [m for m in out["messages"] if m.get("name") == "context_summary"]
    return parse_summary(message["content"]).sections


def _sentences(messages: list[Json], role: str) -> str:
    return " ".join(m["content"] for m in messages if m["role"] == role)


async def test_cards_never_come_from_assistant_turns(client: httpx.AsyncClient) -> None:
    out = await _context(client, "sophie", MIXED)
    cards = {c["content"] for c in out["summary"]["cards"]}
    assert {m["content"] for m in await list_all(client, "sophie")} == cards
    assert cards
    # 「记得带上豆豆的疫苗本。」 is the assistant's advice, not the person's TODO.
    assert not any(card in _sentences(MIXED, "assistant") for card in cards)
    assert all(card in _sentences(MIXED, "user") for card in cards)


async def test_cards_are_never_requests_questions_or_pleasantries(
    client: httpx.AsyncClient,
) -> None:
    out = await _context(client, "emma", EN)
    assert out["summary"]["method"] == "extractive"
    cards = {c["content"] for c in out["summary"]["cards"]}
    assert {m["content"] for m in await list_all(client, "emma")} == cards
    # Not "Also, can you remind me …?", not "Yes please.": the person's statements only.
    assert cards <= EN_PERSON
    assert "I decided to move my long run to Saturday morning this week." in cards


async def test_the_goal_is_the_persons_request_not_a_question_verbatim(
    client: httpx.AsyncClient,
) -> None:
    sections = _summary(await _context(client, "emma", EN))
    assert "Remind me what I need to pay before tomorrow" in sections["Goal"]
    assert all(b not in _sentences(EN, "assistant") for b in sections["Goal"])
    everything = [b for bullets in sections.values() for b in bullets]
    assert not any(b.endswith(("?", "？")) for b in everything)
    assert not any(b in ("Right.", "Yes please.") for b in everything)


async def test_background_is_stated_context_never_an_acknowledgement(
    client: httpx.AsyncClient,
) -> None:
    out = await _context(client, "liwei", ZH)
    sections = _summary(out)
    everything = [b for bullets in sections.values() for b in bullets]
    assert not any(b in ("好的。", "对，谢谢。") or b.endswith("？") for b in everything)
    assert sections["Goal"] == ["帮我理一下这周的事情。"]
    # The decision the person made is carded without its 「嗯，」; 「你必须…」 never is.
    cards = {c["content"]: c["memory_type"] for c in out["summary"]["cards"]}
    assert cards["我决定明天就跟周总监请假。"] == "decision"
    assert all(card in _sentences(ZH, "user") for card in cards)


async def test_a_mixed_conversation_keeps_its_early_concern(client: httpx.AsyncClient) -> None:
    out = await _context(client, "sophie", MIXED)
    everything = [b for bullets in _summary(out).values() for b in bullets]
    assert "清明回成都的高铁票还没买，急！" in everything
    assert "清明回成都的高铁票还没买，急！" in {c["content"] for c in out["summary"]["cards"]}
