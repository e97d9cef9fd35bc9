"""The rule layer of seed 000's hybrid scorer ("RuleBasedScorer"), in Chinese and English.

Rules look at what a message *is* (a tool call, a file path, a decision, a request, a
pleasantry), never at a particular conversation's wording. They fill three of the five
dimensions (information, operation, decision, each 0-10); task relevance and recency
depend on the task and the position and are computed by the scorer.

Each rule that fires carries the seed's confidence for it; a message's confidence is the
highest of its rules, and a message no rule recognises gets the seed's 0.3. Below the
LLM threshold (0.7) the optional LLM layer is asked instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from services.context.messages import ChatMessage

DEFAULT_CONFIDENCE: Final = 0.3  # seed: no rule matched → score 5, confidence 0.3

# -- operation record (操作记录) -------------------------------------------------------
_MODIFY_TOOLS = (
    "write_file|edit_file|create_file|delete_file|remove_file|apply_patch|str_replace"
    "|replace_in_file|move_file|rename_file|insert_code|update_file|patch_file"
)
_RUN_TOOLS = "run_terminal|run_command|execute_command|run_shell|run_tests|shell|bash|exec"
_READ_TOOLS = "read_file|open_file|view_file|cat_file|get_file"
_SEARCH_TOOLS = "search_code|search_files|grep|find_files|list_files|list_dir|glob|codebase_search"
_TOOL_CALL = re.compile(
    rf"\b(?P<modify>{_MODIFY_TOOLS})\b|\b(?P<run>{_RUN_TOOLS})\s*\("
    rf"|\b(?P<read>{_READ_TOOLS})\b|\b(?P<search>{_SEARCH_TOOLS})\b",
    re.I,
)
# Strongest first: (kind, operation score, rule name, the seed's confidence).
_TOOL_KINDS = (
    ("modify", 10.0, "file_change", 0.95),
    ("run", 8.0, "command_run", 0.9),
    ("read", 5.0, "file_read", 0.8),
    ("search", 4.0, "search", 0.8),
    ("other", 3.0, "tool_output", 0.6),  # any other tool answer
)
_TEXT_OPERATION = re.compile(
    r"(创建|新建|删除|修改|更新|重命名|替换|写入|部署|安装|提交|迁移)了?[^，。,.!！?？]{0,12}"
    r"(文件|配置|代码|函数|方法|类|模块|表|接口|脚本|依赖|目录)"
    r"|\b(created|modified|updated|deleted|removed|renamed|wrote|edited|installed|deployed"
    r"|committed|migrated)\b[^.!?]{0,30}\b(files?|config\w*|code|functions?|class(es)?"
    r"|modules?|tables?|endpoints?|scripts?|dependenc\w+|director\w+)\b",
    re.I,
)

# -- information value (信息价值) ------------------------------------------------------
_EXTENSIONS = (
    "py|pyi|js|mjs|ts|tsx|jsx|json|ya?ml|toml|ini|cfg|conf|env|md|rst|txt|sql|sh|go|rs"
    "|java|kt|c|cc|cpp|h|hpp|rb|php|css|scss|html|xml|lock|proto|graphql|vue|swift|cs"
)
_PATH = re.compile(
    rf"(?<![\w/])(?:[\w.-]+/)+[\w.-]+|(?<![\w/.])[\w-]+\.(?:{_EXTENSIONS})\b|\b[A-Z]:\\[\w\\.-]+"
)
_CONFIG_KEY = re.compile(
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # ENV_VAR style keys
    r"|(?<![\w-])--[a-z][\w-]+"  # command-line flags
    r"|\b[a-z][\w.]*\s*[=:]\s*[\w\"'./:-]+"  # key=value, key: value
    r"|https?://\S+|\bport\s*\d+|端口\s*\d+",
)
_CONFIG_WORD = re.compile(r"配置|参数|环境变量|密钥|\bconfig\w*|\bsettings?\b|\benv\b", re.I)
_CODE = re.compile(
    r"```|\b(def|class|function|import|return|const|let|var|async|await|lambda)\b\s*[\w({]"
    r"|[\w)\]]\s*=>|\w+\([^()\n]*\)\s*[:{]|;\s*$",
    re.M,
)
_ERROR = re.compile(
    r"traceback|exception|\berror\b|\bfailed\b|\bfailure\b|stack ?trace|\b[45]\d\d\b"
    r"|报错|异常|错误|失败|崩溃",
    re.I,
)
_TOOL_RESULT = re.compile(r"→|->|=>\s*\S|返回|输出|结果|\boutput\b|\bresult\b|\breturned\b", re.I)
_OUTCOME = re.compile(
    r"通过|成功|已生效|已完成|已修复|搞定|\bpassed\b|\bsucceeded\b|\bworks\b|\bfixed\b"
    r"|\bresolved\b|\bdeployed\b",
    re.I,
)
_NUMBER = re.compile(r"\d")
# When something happened or will: dates are what people ask about later.
_TIME = re.compile(
    r"昨天|前天|今天|明天|上周|下周|上个月|下个月|去年|明年|周[一二三四五六日末]|星期|\d+\s*[年月日号点]"
    r"|\b(yesterday|today|tomorrow|tonight|last|next|ago|since|weekend|morning|evening"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march"
    r"|april|may|june|july|august|september|october|november|december|\d{4})\b",
    re.I,
)
# Someone telling what they did, have or plan: a fact about them, not a reaction.
_SELF_DISCLOSURE = re.compile(
    r"我(?:们)?(?:[^，。！？,.!?]{0,6})(?:了|过|在|要|想|打算|计划|刚|最近|正在|有|是)"
    r"|\b(i|we)('ve| have| had| was| am|'m| will|'ll)?\s+(just |recently |finally |also )?"
    r"(went|started|got|made|won|bought|moved|visited|took|joined|finished|learned|found"
    r"|tried|saw|met|lost|adopted|decided|began|built|wrote|planned|plan|signed|have|own)\b",
    re.I,
)
# A capitalised word that does not start a sentence: a name, a place, a product.
_PROPER_NOUN = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+")
_LATIN_IDENTIFIER = re.compile(r"(?<![A-Za-z])[A-Za-z][\w-]*[A-Za-z0-9]")

# -- decision point (决策节点) ---------------------------------------------------------
_DECISION = re.compile(
    r"决定|决策|改为|改成|改用|换成|建议|采用|选用|选择|就用|确定用|最终方案|方案是|不再使用|弃用|架构"
    r"|\bdecid\w*|\bdecision\b|\bswitch(ed)? to\b|\binstead of\b|\brecommend\w*|\bsuggest\w*"
    r"|\bpropos\w*|\blet'?s use\b|\bgo with\b|\bwe('ll| will) use\b|\bchoose\b|\bchose\b"
    r"|\bopt(ed)? for\b|\badopt\w*|\barchitecture\b|\breplace\w* \w+ with\b",
    re.I,
)
_REQUEST = re.compile(
    r"帮我|帮忙|请|需要|要求|必须|务必|希望|想要|麻烦|可以帮|记得|别忘了"
    r"|\bhelp me\b|\bplease\b|\bi need\b|\bwe need\b|\bi want\b|\bmust\b|\bshould\b"
    r"|\bmake sure\b|\bcould you\b|\bcan you\b|\bwould you\b|\bremember to\b|\bdon'?t forget\b",
    re.I,
)
_APPROVAL = re.compile(
    r"那就|就这样|同意|可以的|行吧|没问题|go ahead|sounds good|do it|let'?s do|approved|agreed",
    re.I,
)

# -- pleasantries and noise ------------------------------------------------------------
_PLEASANTRY_WORDS = re.compile(
    r"好的|好吧|好|很好|非常好|太好了|不错|谢谢|多谢|感谢|谢了|辛苦了|明白了?|收到|了解|知道了|嗯+|哦+|行"
    r"|\b(ok(ay)?|thanks?( you)?( so much| a lot)?|thx|got it|sure|great|cool|nice|perfect"
    r"|awesome|understood|noted|yes|yep|alright|all right|good|fine|welcome|bye)\b",
    re.I,
)
_FILLER = re.compile(r"[\s\W_]+")
_NARRATION = re.compile(
    r"^(我先|让我|正在|稍等|我来|我看看|我会|接下来)|正在|\blet me\b|\bi'?ll\b|\bi will\b"
    r"|\bworking on\b|\bchecking\b|\blooking into\b",
    re.I,
)


@dataclass
class RuleScore:
    """Rule-layer dimensions (0-10), the confidence and the rules that fired."""

    information: float = 0.0
    operation: float = 0.0
    decision: float = 0.0
    confidence: float = DEFAULT_CONFIDENCE
    rules: list[str] = field(default_factory=list)
    is_request: bool = False  # a user instruction: defines the task (seed "核心需求")

    def fire(self, rule: str, confidence: float) -> None:
        """Record a matched rule; the message's confidence is the highest of its rules."""
        self.rules.append(rule)
        self.confidence = max(self.confidence, confidence)


def is_pleasantry(text: str) -> bool:
    """Nothing but thanks / acknowledgements / filler (「好的」「很好，谢谢」"ok thanks!")."""
    return not _FILLER.sub("", _PLEASANTRY_WORDS.sub("", text))


def is_noise(text: str) -> bool:
    """Empty or only punctuation and symbols (「...」「。。。」)."""
    return not _FILLER.sub("", text)


def _operation(message: ChatMessage, text: str, score: RuleScore) -> None:
    kinds = {
        name
        for match in _TOOL_CALL.finditer(f"{message.name or ''} {text}")
        for name, value in match.groupdict().items()
        if value
    }
    for kind, value, rule, confidence in _TOOL_KINDS:
        if kind in kinds or (kind == "other" and message.role == "tool"):
            score.operation = value
            score.fire(rule, confidence)
            break
    if score.operation < 6.0 and _TEXT_OPERATION.search(text):
        score.operation = 6.0
        score.fire("operation_described", 0.75)


def _information(message: ChatMessage, text: str, score: RuleScore) -> None:
    value = 0.0
    paths = len(_PATH.findall(text))
    if paths:
        value += 4.0 + min(2.0, paths - 1.0)
        score.fire("file_path", 0.85)
    if _CONFIG_KEY.search(text):
        value += 3.0
        score.fire("config_key", 0.85)
    elif _CONFIG_WORD.search(text):
        value += 1.5
    if _CODE.search(text):
        value += 3.0
        score.fire("code", 0.8)
    if _ERROR.search(text):
        value += 3.0
        score.fire("error", 0.75)
    if message.role == "tool" and _TOOL_RESULT.search(text):
        value += 2.0  # the call came back with something to read
    if _OUTCOME.search(text):
        value += 2.0
        score.fire("outcome", 0.75)
    if _NUMBER.search(text):
        value += 1.0
    if _TIME.search(text):
        value += 1.5
    if _SELF_DISCLOSURE.search(text):
        value += 2.0
    value += min(2.0, 0.5 * len(_PROPER_NOUN.findall(text)))
    # Technical terms written in Latin letters inside Chinese text (JWT, session, Redis).
    if re.search(r"[\u4e00-\u9fff]", text):
        value += min(2.0, 0.5 * len(_LATIN_IDENTIFIER.findall(text)))
    score.information = min(10.0, value)


def _decision(message: ChatMessage, text: str, score: RuleScore) -> None:
    if _DECISION.search(text):
        score.decision = 9.0
        score.fire("decision", 0.85)
    if message.role == "user" and _REQUEST.search(text):
        score.decision = max(score.decision, 7.0)
        score.is_request = True
        score.fire("request", 0.9)
    elif _REQUEST.search(text):
        score.decision = max(score.decision, 4.0)  # a need someone found, not yet decided
    if score.decision == 0.0 and message.role == "user" and _APPROVAL.search(text):
        score.decision = 3.0  # approving what was proposed; the proposal holds the content
        score.fire("approval", 0.8)


def rule_score(message: ChatMessage) -> RuleScore:
    """Information, operation and decision of one message by rules, with confidence."""
    text = message.content.strip()
    score = RuleScore()
    if is_noise(text):
        score.fire("noise", 0.95)
        return score
    if is_pleasantry(text):
        score.fire("pleasantry", 0.99)
        return score
    _operation(message, text, score)
    _information(message, text, score)
    _decision(message, text, score)
    if _NARRATION.search(text) and not score.rules:
        score.information = max(0.0, score.information - 1.0)
        score.fire("narration", 0.6)
    return score
