"""The client's langchain extra against the real server, both databases: the retriever's
documents carry what recall answered, and the chat-message history keeps a conversation's
turns as memories, in order, apart from other conversations and persons."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from jarvis_memory_client import AsyncJarvisMemory, JarvisMemory
from jarvis_memory_client.langchain import JarvisChatMessageHistory, JarvisMemoryRetriever
from tests.clients.test_client_readme import CLIENT, example, run
from tests.live_server import LiveServer
from tests.timing import scaled


def test_the_retriever_returns_documents_with_the_recall_s_numbers(live: LiveServer) -> None:
    user = "lc-retriever"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        ann = memory.remember(user, "My sister Ann lives in Lisbon", memory_type="fact")
        memory.remember(user, "I play the guitar on Sundays", memory_type="preference")
        retriever = JarvisMemoryRetriever(client=memory, user_id=user, top_k=1, track=False)
        [document] = retriever.invoke("Where does Ann live?")
        hit = memory.recall(user, "Where does Ann live?", top_k=1, track=False)["results"][0]
    assert document.page_content == "My sister Ann lives in Lisbon"
    assert document.id == str(ann["id"])
    meta = document.metadata
    assert (meta["id"], meta["role"], meta["memory_type"]) == (ann["id"], "user", "fact")
    # Recency moves between the two recalls; what the query found does not.
    assert meta["score"] == pytest.approx(hit["score"], rel=1e-3)
    assert meta["confidence"] == pytest.approx(hit["confidence"])
    assert hit["evidence"] is not None
    assert meta["evidence"]["query_dependent"] == hit["evidence"]["query_dependent"]
    assert meta["evidence"]["query_dependent"]["terms"]


async def test_the_retriever_recalls_asynchronously(live: LiveServer) -> None:
    user = "lc-retriever-async"
    async with AsyncJarvisMemory(live.url, api_key=live.service_key) as memory:
        await memory.remember(user, "Bob's dentist appointment is on Friday", memory_type="event")
        retriever = JarvisMemoryRetriever(async_client=memory, user_id=user)
        documents = await retriever.ainvoke("dentist")
        with pytest.raises(ValueError, match="ainvoke"):
            retriever.invoke("dentist")
    assert [d.page_content for d in documents] == ["Bob's dentist appointment is on Friday"]
    assert documents[0].metadata["confidence"] is not None


async def test_a_sync_retriever_answers_ainvoke_in_an_executor(live: LiveServer) -> None:
    user = "lc-retriever-executor"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        memory.remember(user, "The boiler is serviced every October")
        retriever = JarvisMemoryRetriever(client=memory, user_id=user)
        documents = await retriever.ainvoke("When is the boiler serviced?")
    assert [d.page_content for d in documents] == ["The boiler is serviced every October"]


def test_a_retriever_needs_a_client() -> None:
    with pytest.raises(ValueError, match="client"):
        JarvisMemoryRetriever(user_id="nobody")


def test_the_history_keeps_a_conversation_s_turns_in_order(live: LiveServer) -> None:
    user = "lc-history"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        chat = JarvisChatMessageHistory(user, "chat-1", client=memory)
        other = JarvisChatMessageHistory(user, "chat-2", client=memory)
        stranger = JarvisChatMessageHistory(f"{user}-other", "chat-1", client=memory)
        chat.add_messages([HumanMessage("My flight to Oslo leaves at 7"), AIMessage("Noted.")])
        other.add_user_message("Book a table for two")
        stranger.add_user_message("I am someone else")
        chat.add_messages([HumanMessage("Remind me to pack"), AIMessage(""), AIMessage("Sure.")])
        memory.remember(user, "A statement of no conversation")

        turns = chat.messages
        assert [(type(m), m.content) for m in turns] == [
            (HumanMessage, "My flight to Oslo leaves at 7"),
            (AIMessage, "Noted."),
            (HumanMessage, "Remind me to pack"),
            (AIMessage, "Sure."),  # the empty AI turn had nothing to remember
        ]
        stored = [memory.get_memory(user, int(str(m.id))) for m in turns]
        assert [(s["role"], s["conversation_id"]) for s in stored] == [
            ("user", "chat-1"),
            ("assistant", "chat-1"),
            ("user", "chat-1"),
            ("assistant", "chat-1"),
        ]
        hits = memory.recall(user, "When does my flight to Oslo leave?", top_k=1)["results"]
        assert hits[0]["memory"]["content"] == "My flight to Oslo leaves at 7"

        chat.clear()
        assert chat.messages == []
        assert [m.content for m in other.messages] == ["Book a table for two"]
        assert [m.content for m in stranger.messages] == ["I am someone else"]
        left = [m["content"] for m in memory.iter_memories(user)]
        assert sorted(left) == ["A statement of no conversation", "Book a table for two"]


def test_the_history_refuses_what_is_not_a_turn_and_stores_nothing(live: LiveServer) -> None:
    user = "lc-history-system"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        chat = JarvisChatMessageHistory(user, "chat", client=memory)
        with pytest.raises(ValueError, match="'system'"):
            chat.add_messages([HumanMessage("Hello there"), SystemMessage("Be brief")])
        assert chat.messages == []


def test_a_repeated_turn_is_read_back_once_where_it_was_first_said(live: LiveServer) -> None:
    user = "lc-history-repeat"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        chat = JarvisChatMessageHistory(user, "chat", client=memory)
        chat.add_messages([HumanMessage("Thanks a lot"), AIMessage("You're welcome.")])
        chat.add_messages([HumanMessage("Thanks a lot"), AIMessage("Anytime.")])
        assert [m.content for m in chat.messages] == [
            "Thanks a lot",
            "You're welcome.",
            "Anytime.",
        ]
        [said] = [m for m in memory.iter_memories(user) if m["role"] == "user"]
        assert said["mention_count"] == 2


async def test_the_history_works_asynchronously(live: LiveServer) -> None:
    user = "lc-history-async"
    async with AsyncJarvisMemory(live.url, api_key=live.service_key) as memory:
        chat = JarvisChatMessageHistory(user, "chat", async_client=memory)
        await chat.aadd_messages([HumanMessage("I moved to Porto"), AIMessage("Congrats!")])
        assert [m.content for m in await chat.aget_messages()] == ["I moved to Porto", "Congrats!"]
        with pytest.raises(ValueError, match="async"):
            chat.add_user_message("sync call")
        await chat.aclear()
        assert await chat.aget_messages() == []


def test_the_base_client_does_not_import_langchain() -> None:
    code = (
        "import sys, jarvis_memory_client\n"
        "assert not [m for m in sys.modules if m.startswith('langchain')], 'imported'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(CLIENT)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, timeout=scaled(60), check=False, capture_output=True
    )
    assert done.returncode == 0, done.stderr


def test_the_readme_s_langchain_example_runs(live: LiveServer) -> None:
    lines = run(example("client-langchain-example"), live).splitlines()
    assert lines[0] == "My sister Ann lives in Lisbon"
    assert lines[1:] == ["human: Where does Ann live?", "ai: In Lisbon."]
