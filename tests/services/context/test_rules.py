"""The rule layer in English and Chinese: what a message is, not what it says exactly."""

from __future__ import annotations

import pytest

from services.context.compress import smart_compress
from services.context.message_scorer import MessageImportanceScorer
from services.context.messages import ChatMessage
from services.context.rules import DEFAULT_CONFIDENCE, is_noise, is_pleasantry, rule_score
from services.context.weights import resolve_task_type


@pytest.mark.parametrize(
    "text", ["好的", "很好，谢谢", "谢谢！", "OK, thanks!", "got it", "Thank you so much.", "嗯嗯"]
)
def test_pleasantries(text: str) -> None:
    assert is_pleasantry(text)
    score = rule_score(ChatMessage("user", text))
    assert score.rules == ["pleasantry"]
    assert score.confidence == 0.99
    assert (score.information, score.operation, score.decision) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("text", ["...", "。。。", "  ", "--"])
def test_noise(text: str) -> None:
    assert is_noise(text)
    assert rule_score(ChatMessage("assistant", text)).rules == ["noise"]


@pytest.mark.parametrize(
    ("role", "text", "rule", "operation"),
    [
        ("tool", "write_file(src/app.py)", "file_change", 10.0),
        ("assistant", "Calling edit_file on settings.toml", "file_change", 10.0),
        ("tool", 'run_terminal("npm test")', "command_run", 8.0),
        ("tool", "read_file(README.md) -> contents", "file_read", 5.0),
        ("tool", "list_files(src)", "search", 4.0),
        ("tool", "42 rows", "tool_output", 3.0),
        (
            "assistant",
            "I updated the config file for the staging server",
            "operation_described",
            6.0,
        ),
        ("assistant", "已经修改了配置文件里的端口", "operation_described", 6.0),
    ],
)
def test_operations(role: str, text: str, rule: str, operation: float) -> None:
    score = rule_score(ChatMessage(role, text))
    assert rule in score.rules
    assert score.operation == operation


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("The handler lives in api/routes/users.py", "file_path"),
        ("Set DATABASE_URL=postgres://db/app before starting", "config_key"),
        ("Run it with --max-workers 4", "config_key"),
        ("```python\ndef main():\n    pass\n```", "code"),
        ("Traceback (most recent call last): KeyError: 'id'", "error"),
        ("运行时报错：连接超时", "error"),
    ],
)
def test_information_rules(text: str, rule: str) -> None:
    score = rule_score(ChatMessage("assistant", text))
    assert rule in score.rules
    assert score.information >= 3.0


@pytest.mark.parametrize(
    ("role", "text", "decision", "rule"),
    [
        ("assistant", "I recommend we switch to PostgreSQL instead of MySQL", 9.0, "decision"),
        ("assistant", "We decided to drop the legacy endpoint", 9.0, "decision"),
        ("assistant", "决定改用 Redis 做缓存", 9.0, "decision"),
        ("user", "Please add rate limiting to the login endpoint", 7.0, "request"),
        ("user", "帮我把日志级别调成 DEBUG", 7.0, "request"),
        ("user", "Sounds good, go ahead", 3.0, "approval"),
    ],
)
def test_decisions_and_requests(role: str, text: str, decision: float, rule: str) -> None:
    score = rule_score(ChatMessage(role, text))
    assert rule in score.rules
    assert score.decision == decision


def test_unrecognised_text_has_the_seeds_low_confidence() -> None:
    score = rule_score(ChatMessage("assistant", "The sky was a strange colour"))
    assert score.rules == []
    assert score.confidence == DEFAULT_CONFIDENCE


def test_task_types_by_name_and_alias() -> None:
    assert resolve_task_type(None) == "default"
    assert resolve_task_type("Refactor") == "refactor"
    assert resolve_task_type("Bug调试") == "debugging"
    assert resolve_task_type("需求分析") == "requirements"
    with pytest.raises(ValueError, match="unknown task_type"):
        resolve_task_type("poetry")


ENGLISH = [
    ChatMessage("user", "Help me refactor the authentication module to support JWT tokens"),
    ChatMessage("assistant", "Sure, let me look at the code first..."),
    ChatMessage("tool", "read_file(auth/session.py) -> returns the session code"),
    ChatMessage("assistant", "It uses server sessions; I suggest we switch to JWT instead"),
    ChatMessage("user", "ok"),
    ChatMessage("tool", "edit_file(auth/session.py) -> replaced sessions with JWT"),
    ChatMessage("assistant", "Done, verifying now..."),
    ChatMessage("user", "thanks!"),
]


async def test_english_conversation_keeps_request_decision_and_edits(
    scorer: MessageImportanceScorer,
) -> None:
    task = scorer.task("Refactor authentication to use JWT")
    scores = await scorer.score(ENGLISH, task)
    result = smart_compress(ENGLISH, scores, target_count=5, preserve_recent=1)
    assert result.kept == [0, 2, 3, 5, 7]
    # "auth/" in a path is about authentication: relevance crosses the abbreviation.
    assert scores[2].dimensions["relevance"] > 0


async def test_no_task_context_is_neutral_and_less_confident(
    scorer: MessageImportanceScorer,
) -> None:
    scores = await scorer.score(ENGLISH, scorer.task(""))
    assert {s.dimensions["relevance"] for s in scores if "pleasantry" not in s.rules} == {5.0}
    assert max(s.confidence for s in scores) <= 0.6


async def test_dialogue_neighbours_share_relevance(scorer: MessageImportanceScorer) -> None:
    messages = [
        ChatMessage("user", "What did you do at the lake last weekend?", name="Ann"),
        ChatMessage("assistant", "We went kayaking all afternoon", name="Bo"),
        ChatMessage("tool", "weather: sunny"),
    ]
    scores = scorer.score_rules(messages, scorer.task("lake weekend"))
    asked, answered, tool = (s.dimensions["relevance"] for s in scores)
    assert asked == 10.0
    assert answered == pytest.approx(7.0)  # NEIGHBOR_SHARE of the question it answers
    assert tool == 0.0  # tool output stands on its own terms
