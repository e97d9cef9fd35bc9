"""The rule layer in English and Chinese: what a message is, not what it says exactly."""

from __future__ import annotations

import pytest

from services.context.importance.compress import smart_compress
from services.context.importance.message_scorer import MessageImportanceScorer
from services.context.importance.rules import (
    DEFAULT_CONFIDENCE,
    is_noise,
    is_pleasantry,
    rule_score,
)
from services.context.importance.weights import resolve_task_type
from services.context.shared.messages import ChatMessage


@pytest.mark.parametrize(
    "text", ["好的", "很好，谢谢", "谢谢！", "OK, thanks!", "got it", "Thank you so much.", "嗯嗯"]
)
def test_pleasantries(text: str) -> None:
    assert is_pleasantry(text)
    score = rule_score(ChatMessage("user", text))
    assert score.rules == ["pleasantry"]
    assert score.confidence == 0.99
    assert (score.information, score.operation, score.decision) == (0.0, 0.0, 0.0)


# Seed 000's RuleBasedScorer.RULE_PATTERNS, every pattern, in its Chinese and in English:
# (role, text, rule, the seed's category, score, confidence).
SEED_RULES = [
    # 核心需求: 帮我, 请, 需要, 要求 — from the user only.
    ("user", "帮我重构认证系统", "request", "核心需求", 9.0, 0.9),
    ("user", "请把日志级别调成 DEBUG", "request", "核心需求", 9.0, 0.9),
    ("user", "这里需要支持 JWT", "request", "核心需求", 9.0, 0.9),
    ("user", "要求兼容 Python 3.11", "request", "核心需求", 9.0, 0.9),
    ("user", "Please add rate limiting to the login endpoint", "request", "核心需求", 9.0, 0.9),
    ("user", "Can you help me refactor the session code?", "request", "核心需求", 9.0, 0.9),
    # 文件创建: 创建.*文件, write_file, 新建.
    ("assistant", "创建config.yaml文件", "file_creation", "文件创建", 8.5, 0.95),
    ("tool", "write_file(src/app.py)", "file_creation", "文件创建", 8.5, 0.95),
    ("assistant", "新建一个目录", "file_creation", "文件创建", 8.5, 0.95),
    (
        "assistant",
        "I created a new file for the retry settings",
        "file_creation",
        "文件创建",
        8.5,
        0.95,
    ),
    # 重要修改: 修改.*配置, edit_file.*config, 更新.*py.
    ("assistant", "修改了config.yaml的配置", "important_modification", "重要修改", 8.0, 0.85),
    ("tool", "edit_file(config.py)", "important_modification", "重要修改", 8.0, 0.85),
    ("assistant", "更新了main.py", "important_modification", "重要修改", 8.0, 0.85),
    (
        "assistant",
        "I updated main.py to read the port",
        "important_modification",
        "重要修改",
        8.0,
        0.85,
    ),
    (
        "assistant",
        "Changed the config so the cache uses Redis",
        "important_modification",
        "重要修改",
        8.0,
        0.85,
    ),
    # 探索操作: 查看, read_file, list_files.
    ("assistant", "查看日志", "exploration", "探索操作", 6.0, 0.8),
    ("tool", "read_file(notes)", "exploration", "探索操作", 6.0, 0.8),
    ("tool", "list_files(src)", "exploration", "探索操作", 6.0, 0.8),
    ("assistant", "I looked at the logs from last night", "exploration", "探索操作", 6.0, 0.8),
    # 寒暄: ^好的$, ^谢谢$, ^明白$, ^收到$.
    ("user", "好的", "pleasantry", "寒暄", 1.0, 0.99),
    ("user", "谢谢", "pleasantry", "寒暄", 1.0, 0.99),
    ("assistant", "明白", "pleasantry", "寒暄", 1.0, 0.99),
    ("assistant", "收到", "pleasantry", "寒暄", 1.0, 0.99),
    ("user", "Thanks!", "pleasantry", "寒暄", 1.0, 0.99),
    ("assistant", "Got it.", "pleasantry", "寒暄", 1.0, 0.99),
    # 纯噪音: ^...$, ^。。。$.
    ("assistant", "...", "noise", "纯噪音", 0.5, 0.95),
    ("assistant", "。。。", "noise", "纯噪音", 0.5, 0.95),
    # No rule: the seed's default, 5.0 at confidence 0.3.
    ("assistant", "天空是一种奇怪的颜色", "default", "无匹配", 5.0, 0.3),
    ("assistant", "The sky was a strange colour", "default", "无匹配", 5.0, 0.3),
]


@pytest.mark.parametrize(("role", "text", "rule", "category", "score", "confidence"), SEED_RULES)
def test_every_seed_rule_with_its_score_and_confidence(
    role: str, text: str, rule: str, category: str, score: float, confidence: float
) -> None:
    found = rule_score(ChatMessage(role, text))
    assert found.kind.name == rule
    assert found.kind.category == category
    assert (found.score, found.confidence) == (score, confidence)


def test_a_request_is_the_users() -> None:
    # The seed's 核心需求 has ``"role": "user"``: the assistant saying 请 requests nothing.
    assert rule_score(ChatMessage("assistant", "请稍等，我来处理")).kind.name != "request"


@pytest.mark.parametrize(
    "text",
    [
        "I want to help people like me",  # about the person, not an instruction
        "I went to a pottery class yesterday",  # "class" is not code
        "My grandma passed away last week",  # no test passed
        "Who's your favorite team/player?",  # not a path
        "[image: a photo of a beach]",  # not a key: value setting
        "I'll go to Paris next month",  # a plan, not narration
    ],
)
def test_everyday_english_is_not_mistaken_for_a_rule(text: str) -> None:
    assert rule_score(ChatMessage("user", text)).kind.name == "default"


@pytest.mark.parametrize("text", ["...", "。。。", "  ", "--"])
def test_noise(text: str) -> None:
    assert is_noise(text)
    assert rule_score(ChatMessage("assistant", text)).rules == ["noise"]


@pytest.mark.parametrize(
    ("role", "text", "rule", "operation"),
    [
        ("tool", "write_file(src/app.py)", "file_creation", 10.0),
        ("assistant", "Calling edit_file on settings.toml", "important_modification", 10.0),
        ("tool", "delete_file(old/legacy.py)", "important_modification", 10.0),
        ("tool", 'run_terminal("npm test")', "command_run", 8.0),
        ("tool", "read_file(README.md) -> contents", "exploration", 5.0),
        ("tool", "list_files(src)", "exploration", 4.0),
        ("tool", "42 rows", "tool_output", 3.0),
        (
            "assistant",
            "I updated the config file for the staging server",
            "operation_described",
            6.0,
        ),
        ("assistant", "已经修改了配置文件里的端口", "important_modification", 6.0),
        ("assistant", "部署了新的脚本到服务器", "operation_described", 6.0),
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
