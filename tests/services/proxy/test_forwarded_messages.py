"""The frontend's messages through context assembly: its own forwarded untouched where the
assembler kept them, shortened only when plain text, tool exchanges never half-kept."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from services.context.assembly.assembler import AssembledContext, memory_block
from services.context.shared.messages import ChatMessage
from services.core.errors import InvalidInput
from services.proxy.conversation import conversation_of, person_of
from services.proxy.messages import (
    forwarded_messages,
    last_user_turn,
    message_text,
    to_chat_messages,
)

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
RAW: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "A long story " * 20, "name": "ada", "x_extra": 1},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "42"},
    {"role": "user", "content": [{"type": "text", "text": "Look"}, {"type": "image_url"}]},
]


def assembled(messages: list[ChatMessage]) -> AssembledContext:
    return AssembledContext(
        messages=messages,
        memories=[],
        dropped_messages=[],
        dropped_memories=[],
        removed_blocks=[],
        compressed={},
        summary=None,
        usage={},
        levels={},
        budget_tokens=0,
        total_tokens=0,
        original_history_tokens=0,
        history_tokens=0,
    )


def test_what_assembly_reads_is_each_messages_role_and_text() -> None:
    chat = to_chat_messages([*RAW, {"role": "function", "content": "x"}, {"role": "odd"}])
    assert [m.role for m in chat] == [
        "system", "user", "assistant", "tool", "user", "tool", "user"
    ]  # fmt: skip
    assert chat[2].content == json.dumps([CALL])  # the calls' tokens count
    assert chat[4].content == "Look"
    assert chat[1].name == "ada"
    assert message_text({"content": None}) == ""


def test_kept_messages_are_the_frontends_own_and_the_block_is_new() -> None:
    chat = to_chat_messages(RAW)
    block = memory_block(["- [fact] Ada keeps bees"])
    out = forwarded_messages(RAW, assembled([*chat[:4], block, chat[4]]))
    assert out == [*RAW[:4], {"role": "assistant", "content": block.content,
                              "name": "memory_context"}, RAW[4]]  # fmt: skip


def test_a_shortened_text_message_keeps_its_fields_and_structure_is_never_cut() -> None:
    chat = to_chat_messages(RAW)
    short = [chat[0], replace(chat[1], content="A long story"), *chat[2:4]]
    short.append(replace(chat[4], content="Lo"))
    out = forwarded_messages(RAW, assembled(short))
    assert out[1] == {**RAW[1], "content": "A long story"}
    assert out[4] == RAW[4]


@pytest.mark.parametrize("dropped", [2, 3])
def test_a_tool_exchange_goes_whole_or_not_at_all(dropped: int) -> None:
    chat = to_chat_messages(RAW)
    kept = [m for i, m in enumerate(chat) if i != dropped]
    assert forwarded_messages(RAW, assembled(kept)) == [RAW[0], RAW[1], RAW[4]]


def test_the_new_turn_is_the_last_message_when_the_person_wrote_it() -> None:
    assert last_user_turn(RAW) == "Look"
    assert last_user_turn(RAW[:4]) is None
    assert last_user_turn([{"role": "user", "content": "  "}]) is None
    assert last_user_turn([]) is None


def test_the_person_is_the_first_named_and_must_be_a_valid_id() -> None:
    assert person_of([("X-Jarvis-User", None), ("user", "ada")]) == "ada"
    assert person_of([("X-Jarvis-User", "bea"), ("user", "ada")]) == "bea"
    assert person_of([("user", None)]) is None
    for bad in ("a b", 7):
        with pytest.raises(InvalidInput, match="user"):
            person_of([("user", bad)])


def test_the_conversation_is_named_given_or_derived_from_the_first_user_message() -> None:
    first = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Plan"}]
    derived = conversation_of(None, None, {}, first)
    other_system = [{"role": "system", "content": "Be long."}, first[1]]
    assert conversation_of(None, None, {}, other_system) == derived
    assert conversation_of(None, None, {}, [*first, {"role": "user", "content": "Go"}]) == derived
    assert conversation_of("c1", "c2", {"chat_id": "c3"}, first) == "c1"
    assert conversation_of(None, "c2", {"chat_id": "c3"}, first) == "c2"
    assert conversation_of(None, None, {"metadata": {"chat_id": 9}, "chat_id": "c3"}, first) == "9"
    hashed = conversation_of(None, None, {"chat_id": "a b"}, first)
    assert hashed.startswith("chat-")
    assert hashed != derived
    with pytest.raises(InvalidInput, match="X-Jarvis-Conversation"):
        conversation_of("a b", None, {}, first)
