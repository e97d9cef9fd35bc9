"""The rule layer of seed 000's hybrid scorer ("RuleBasedScorer"), in Chinese and English.

Rules look at what a message *is* (a tool call, a file path, a decision, a request, a
pleasantry), never at a particular conversation's wording. Each rule that fires names a
:class:`~services.context.importance.rule_kinds.RuleKind`: the seed's score for such a message and
the seed's confidence. The strongest kind that fired decides the message's rule score and
confidence (the seed takes its one matching rule); a message no rule recognises gets the
seed's default, 5.0 with confidence 0.3. Below the LLM threshold (0.7) the optional LLM
layer is asked as well.

Every seed rule is here with its patterns, in Chinese as the seed writes them and in
English: 核心需求 (a user's 帮我/请/需要/要求, "please", "help me"), 文件创建 (创建…文件,
新建, write_file, "created a file"), 重要修改 (修改…配置, 更新….py, edit_file on a config,
"updated main.py"), 探索操作 (查看, read_file, list_files, "looked at"), 寒暄 and 纯噪音.

The rules also fill three of the five dimensions (information, operation, decision, each
0-10), which explain a score and refine it within its band; task relevance and recency
depend on the task and the position and are computed by the scorer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from services.context.importance.rule_kinds import DEFAULT, KINDS, RuleKind
from services.context.shared.messages import ChatMessage

DEFAULT_CONFIDENCE: Final = DEFAULT.confidence  # seed: no rule matched → 5.0, confidence 0.3
# A file name's characters: Latin only, so 「创建config.yaml文件」 finds config.yaml (Python's
# \w and \b count CJK characters as word characters, so \b never fires between them).
_NAME = "[A-Za-z0-9_-]"
_END = "(?![A-Za-z0-9_])"
APPROVAL_MAX_CHARS: Final = 40

# -- operation record (操作记录) -------------------------------------------------------
_MODIFY_TOOLS = (
    "write_file|edit_file|create_file|delete_file|remove_file|apply_patch|str_replace"
    "|replace_in_file|move_file|rename_file|insert_code|update_file|patch_file"
)
_RUN_TOOLS = "run_terminal|run_command|execute_command|run_shell|run_tests|shell|bash|exec"
_READ_TOOLS = "read_file|open_file|view_file|cat_file|get_file"
_SEARCH_TOOLS = "search_code|search_files|grep|find_files|list_files|list_dir|glob|codebase_search"
_CREATE_TOOL = re.compile(r"\b(write_file|create_file)\b", re.I)
_TOOL_CALL = re.compile(
    rf"\b(?P<modify>{_MODIFY_TOOLS})\b|\b(?P<run>{_RUN_TOOLS})\s*\("
    rf"|\b(?P<read>{_READ_TOOLS})\b|\b(?P<search>{_SEARCH_TOOLS})\b",
    re.I,
)
# Strongest first: (kind, operation dimension, rule kind).
_TOOL_KINDS = (
    ("create", 10.0, "file_creation"),
    ("modify", 10.0, "important_modification"),
    ("run", 8.0, "command_run"),
    ("read", 5.0, "exploration"),
    ("search", 4.0, "exploration"),
    ("other", 3.0, "tool_output"),  # any other tool answer
)
# Seed 文件创建: 创建.*文件, write_file, 新建 (a directory, a branch, a file: something new).
_FILE_CREATION = re.compile(
    r"创建[^。！？!?\n]{0,20}文件|新建|新增了?[^。！？!?\n]{0,6}文件"
    r"|\b(creat(e|ed|ing)|add(ed)?|wr[io]te)\s+(a\s+|an\s+|the\s+)?new\s+file\b"
    r"|\bcreat(e|ed|ing)\s+(a\s+|the\s+)?(file|director(y|ies)|folder)\b|\bnew file\b",
    re.I,
)
# Seed 重要修改: 修改.*配置, edit_file.*config, 更新.*py.
_IMPORTANT_MODIFICATION = re.compile(
    rf"修改[^。！？!?\n]{{0,20}}配置|更新[^。！？!?\n]{{0,30}}\.py{_END}"
    rf"|改了?[^。！？!?\n]{{0,10}}(配置|{_NAME}+\.py{_END})"
    rf"|\b(updat|modifi|chang|edit)(e|ed|ing)\b[^.!?\n]{{0,40}}"
    rf"(\bconfig\w*|\bsettings\b|{_NAME}+\.(py|ya?ml|toml|ini|cfg|conf|env|json){_END})",
    re.I,
)
# Seed 探索操作: 查看, read_file, list_files.
_EXPLORATION = re.compile(
    r"查看|查阅|浏览|\binspect(ed|ing)?\b|\b(look(ed|ing)?|check(ed|ing)?) (at |into |through )?"
    r"(the |this |that )?(logs?|files?|code|config\w*|output|source|repo\w*|docs?)\b",
    re.I,
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
# A path: one that ends in a file name, starts at a root, or has two separators or more
# (so "and/or" and "team/player" are not paths).
_PATH = re.compile(
    rf"(?<![A-Za-z0-9_/])(?:[A-Za-z0-9_.-]+/)+{_NAME}+\.[A-Za-z0-9]+{_END}"
    rf"|(?<![A-Za-z0-9_/.])(?:~|\.{{1,2}})?/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*"
    rf"|(?<![A-Za-z0-9_/])[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+){{2,}}"
    rf"|(?<![A-Za-z0-9_/.]){_NAME}+\.(?:{_EXTENSIONS}){_END}|\b[A-Z]:\\[\w\\.-]+"
)
_CONFIG_KEY = re.compile(
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # ENV_VAR style keys
    r"|(?<![\w-])--[a-z][\w-]+"  # command-line flags
    r"|\b[a-z][\w.]*\s*=\s*[\w\"'./:-]+"  # key=value
    # key: value where the value looks like one (a number, a boolean, a path),
    # so prose such as "note: I'll be late" or "[image: a photo of …]" is no config.
    r"|\b[a-z][\w.-]*:\s*(?:\d|true\b|false\b|null\b|/|https?:)"
    r"|https?://\S+|\bport\s*\d+|端口\s*\d+",
)
_CONFIG_WORD = re.compile(r"配置|参数|环境变量|密钥|\bconfig\w*|\bsettings?\b|\benv\b", re.I)
# Code, not English that uses the same words ("class yesterday", "let me", "return home").
_CODE = re.compile(
    r"```|^\s*(def|class)\s+\w+\s*[(:]|^\s*(import|from)\s+[\w.]+|\bfunction\s*\w*\s*\("
    r"|\b(const|let|var)\s+\w+\s*=|\blambda\s+\w*\s*:|\b(async|await)\s+\w+\("
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
    r"通过|成功|已生效|已完成|已修复|搞定|\bpassed\b(?!\s+away)|\bsucceeded\b|\bit works\b"
    r"|\bworks now\b|\bfixed\b|\bresolved\b|\bdeployed\b",
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
    r"|\bopt(ed)? for\b|\badopt(ed|ing)? (the|a|an|this|that) (new )?(approach|pattern|strategy"
    r"|framework|library|tool|design)\b|\barchitecture\b|\breplace\w* \w+ with\b",
    re.I,
)
# An instruction to the assistant (seed 核心需求: 帮我, 请, 需要, 要求). English "I need" or
# "I want to" tells about the person ("I want to help people") and is not one.
_REQUEST = re.compile(
    r"帮我|帮忙|请|需要|要求|务必|麻烦|可以帮|记得|别忘了"
    r"|\bhelp me\b|\bplease\b|\bi need you to\b|\bi want you to\b|\bmake sure (to|you|that)\b"
    r"|\bcould you\b|\bcan you\b|\bwould you\b|\bremember to\b|\bdon'?t forget\b",
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
# The assistant saying what it is doing ("I'll go to Paris" is a plan, not narration).
_NARRATION = re.compile(
    r"^(我先|让我|稍等|我来|我看看)|正在|\blet me (check|see|look|try|think|verify|run|fix|find)\b"
    r"|\bworking on (it|this|that)\b|\bchecking\b",
    re.I,
)


@dataclass
class RuleScore:
    """The deciding rule kind, the rule-layer dimensions (0-10) and the rules that fired."""

    information: float = 0.0
    operation: float = 0.0
    decision: float = 0.0
    kind: RuleKind = DEFAULT
    rules: list[str] = field(default_factory=list)
    is_request: bool = False  # a user instruction: defines the task (seed "核心需求")

    @property
    def score(self) -> float:
        """The seed-scale score of the strongest rule that fired (5.0 when none)."""
        return self.kind.score

    @property
    def confidence(self) -> float:
        """The deciding rule's confidence (the seed's 0.3 when none fired)."""
        return self.kind.confidence

    def fire(self, rule: str) -> None:
        """Record a matched rule; the strongest kind (then the surest) decides."""
        if rule not in self.rules:
            self.rules.append(rule)
        kind = KINDS[rule]
        current = self.kind
        if current is DEFAULT or (kind.score, kind.confidence) > (
            current.score,
            current.confidence,
        ):
            self.kind = kind


def is_pleasantry(text: str) -> bool:
    """Nothing but thanks / acknowledgements / filler (「好的」「很好，谢谢」"ok thanks!")."""
    return not _FILLER.sub("", _PLEASANTRY_WORDS.sub("", text))


def is_noise(text: str) -> bool:
    """Empty or only punctuation and symbols (「...」「。。。」)."""
    return not _FILLER.sub("", text)


def _operation(message: ChatMessage, text: str, score: RuleScore) -> None:
    called = f"{message.name or ''} {text}"
    kinds = {
        name
        for match in _TOOL_CALL.finditer(called)
        for name, value in match.groupdict().items()
        if value
    }
    if "modify" in kinds and _CREATE_TOOL.search(called):
        kinds.add("create")
    for kind, value, rule in _TOOL_KINDS:
        if kind in kinds or (kind == "other" and message.role == "tool"):
            score.operation = value
            score.fire(rule)
            break
    described = (
        ("file_creation", _FILE_CREATION),
        ("important_modification", _IMPORTANT_MODIFICATION),
        ("exploration", _EXPLORATION),
        ("operation_described", _TEXT_OPERATION),
    )
    for rule, pattern in described:
        if pattern.search(text):
            score.fire(rule)
            if rule != "exploration":
                score.operation = max(score.operation, 6.0)  # an operation told in words


def _information(message: ChatMessage, text: str, score: RuleScore) -> None:
    value = 0.0
    paths = len(_PATH.findall(text))
    if paths:
        value += 4.0 + min(2.0, paths - 1.0)
        score.fire("file_path")
    if _CONFIG_KEY.search(text):
        value += 3.0
        score.fire("config_key")
    elif _CONFIG_WORD.search(text):
        value += 1.5
    if _CODE.search(text):
        value += 3.0
        score.fire("code")
    if _ERROR.search(text):
        value += 3.0
        score.fire("error")
    if message.role == "tool" and _TOOL_RESULT.search(text):
        value += 2.0  # the call came back with something to read
    if _OUTCOME.search(text):
        value += 2.0
        score.fire("outcome")
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
        score.fire("decision")
    if message.role == "user" and _REQUEST.search(text):
        score.decision = max(score.decision, 7.0)
        score.is_request = True
        score.fire("request")
    elif _REQUEST.search(text):
        score.decision = max(score.decision, 4.0)  # a need someone found, not yet decided
    short = len(text) <= APPROVAL_MAX_CHARS  # a confirmation says little else
    if score.decision == 0.0 and message.role == "user" and short and _APPROVAL.search(text):
        score.decision = 3.0  # approving what was proposed; the proposal holds the content
        score.fire("approval")


def rule_score(message: ChatMessage) -> RuleScore:
    """The rule kind of one message (its seed-scale score and confidence) and its
    information, operation and decision dimensions."""
    text = message.content.strip()
    score = RuleScore()
    if is_noise(text):
        score.fire("noise")
        return score
    if is_pleasantry(text):
        score.fire("pleasantry")
        return score
    _operation(message, text, score)
    _information(message, text, score)
    _decision(message, text, score)
    if _NARRATION.search(text) and not score.rules:
        score.information = max(0.0, score.information - 1.0)
        score.fire("narration")
    return score
