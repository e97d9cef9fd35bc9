"""Fact slots: which attribute of the person a statement sets, and to what value.

Seed 001 §3.4 (信息修正机制, 事实更新): a newer statement about the same thing replaces
the older one. "The same thing" is a *slot*, a short normalized key, and the statement's
*value* for it:

    「我住在北京」 → residence = 北京        "I moved to Shanghai" → residence = shanghai
    "my manager is Ann" → manager = ann      「我最喜欢的水果是芒果」 → favorite:水果 = 芒果
    "my dentist is Dr. Li" → dentist = dr li (the generic "my X is Y" / 「我的X是Y」 rule)

Rules, chosen to fire rarely rather than wrongly:

- Only first-person statements, matched at the start of a clause (clauses are split at
  sentence punctuation and commas), with at most a few adverbs in between ("now",
  "currently", 「现在」「已经」). So negations ("I don't live in…", 「我不住在…」),
  conditionals ("If I moved to…", 「如果我搬到…」), reported speech and questions (a
  clause ending in "?"/「？」 or starting with a question word) set no slot.
- The first clause that matches decides; one statement sets at most one slot.
- A transcript line "Name: text" (「名字：…」) is about the speaker, not the user: its
  slot is scoped by the speaker ("residence@caroline"), so two people talking in one
  memory store never supersede each other's facts.
- The value is the rest of the clause up to a conjunction, minus trailing particles and
  time words (「了」「啦」, "now", "last week"), lower-cased with inner spaces collapsed.
  Two statements with equal values agree (no correction); a statement whose value cannot
  be read ("I have a new manager", 「我换了新经理」) has the value "" and always
  differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SLOT_CHARS = 64

# Adverbs allowed between the subject and the verb.
_EN_ADV = r"(?:(?:now|currently|still|just|actually|finally|recently|also)\s+)*"
_ZH_ADV = r"(?:现在|目前|已经|刚刚|刚|终于|也|还|如今|最近)*"
_EN_HAVE = r"(?:'ve\s+|\s+have\s+)?"

# (slot, pattern): the pattern is matched at the start of a clause; group "v" is the
# value, group "k" (optional) completes the slot ("favorite:{k}", "pet:{k}").
_EN_RULES: tuple[tuple[str, str], ...] = (
    ("residence", rf"i\s+{_EN_ADV}live\s+in\s+(?P<v>.+)"),
    ("residence", rf"i(?:'m|\s+am)\s+{_EN_ADV}living\s+in\s+(?P<v>.+)"),
    ("residence", rf"i{_EN_HAVE}\s*{_EN_ADV}moved\s+(?:to|into)\s+(?P<v>.+)"),
    ("residence", rf"my\s+(?:new\s+)?(?:home|address)\s+is\s+{_EN_ADV}(?P<v>.+)"),
    ("manager", rf"my\s+(?:new\s+)?(?:manager|boss|supervisor)\s+is\s+{_EN_ADV}(?P<v>.+)"),
    ("manager", rf"i\s+{_EN_ADV}report\s+to\s+(?P<v>.+)"),
    ("manager", rf"i\s+{_EN_ADV}(?:have|got)\s+a\s+new\s+(?:manager|boss)(?P<v>)"),
    ("employer", rf"i\s+{_EN_ADV}work\s+(?:at|for)\s+(?P<v>.+)"),
    ("employer", rf"i{_EN_HAVE}\s*{_EN_ADV}(?:joined|started\s+(?:working\s+)?at)\s+(?P<v>.+)"),
    ("job", rf"i\s+{_EN_ADV}work\s+as\s+(?:an?\s+)?(?P<v>.+)"),
    ("job", rf"my\s+(?:new\s+)?job\s+is\s+{_EN_ADV}(?P<v>.+)"),
    ("age", rf"i(?:'m|\s+am)\s+{_EN_ADV}(?P<v>\d{{1,3}})(?:\s+years?\s+old)?$"),
    ("age", rf"i\s+{_EN_ADV}turned\s+(?P<v>\d{{1,3}})"),
    ("name", r"my\s+name\s+is\s+(?P<v>.+)"),
    ("phone", r"my\s+(?:new\s+)?(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?P<v>.+)"),
    ("email", r"my\s+(?:new\s+)?e-?mail(?:\s+address)?\s+is\s+(?P<v>.+)"),
    (
        "partner",
        r"my\s+(?:new\s+)?(?:girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?)"
        r"(?:'s\s+name)?\s+is\s+(?P<v>.+)",
    ),
    ("partner", rf"i(?:'m|\s+am)\s+{_EN_ADV}(?:dating|married\s+to)\s+(?P<v>.+)"),
    ("favorite:{k}", r"my\s+(?:new\s+)?favou?rite\s+(?P<k>[a-z]+(?:\s+[a-z]+)?)\s+is\s+(?P<v>.+)"),
    (
        "pet:{k}",
        r"my\s+(?P<k>dog|cat|puppy|kitten|rabbit|parrot)(?:'s\s+name)?\s+is\s+called\s+(?P<v>.+)",
    ),
    ("pet:{k}", r"my\s+(?P<k>dog|cat|puppy|kitten|rabbit|parrot)'s\s+name\s+is\s+(?P<v>.+)"),
    # Generic: "my X is (now) Y", X one or two words (not an opinion word, see below).
    ("{k}", rf"my\s+(?:new\s+)?(?P<k>[a-z]+(?:\s+[a-z]+)?)\s+is\s+{_EN_ADV}(?P<v>.+)"),
)

_ZH_RULES: tuple[tuple[str, str], ...] = (
    ("residence", rf"我{_ZH_ADV}住在(?P<v>.+)"),
    ("residence", r"我(?:现在|目前|如今)住(?!院|酒店|宾馆)(?P<v>.+)"),
    ("residence", rf"我{_ZH_ADV}(?:搬到|搬家到|搬去|搬回)(?:了)?(?P<v>.+)"),
    ("residence", rf"我家{_ZH_ADV}(?:在|搬到了?)(?P<v>.+)"),
    ("residence", r"我的?(?:新)?(?:地址|住址)是(?P<v>.+)"),
    ("manager", r"我的?(?:新)?(?:经理|老板|上司|领导|主管)(?:是|叫|换成了?)(?P<v>.+)"),
    (
        "manager",
        rf"我{_ZH_ADV}换了(?:个|一个|一位)?新(?:的)?(?:经理|老板|上司|领导|主管)"
        r"(?:[，, ]*(?:叫|是)?(?P<v>.*))",
    ),
    ("employer", rf"我{_ZH_ADV}在(?!找|想|考虑|家)(?P<v>.+?)(?:工作|上班|任职)了?$"),
    ("employer", rf"我{_ZH_ADV}(?:跳槽到|入职|加入)(?:了)?(?P<v>.+)"),
    ("job", r"我(?:现在)?的(?:新)?(?:工作|职业)是(?P<v>.+)"),
    ("age", rf"我{_ZH_ADV}(?:今年)?(?P<v>[0-9一二三四五六七八九十百]+)岁"),
    ("name", r"我叫(?!了|过|来|去|他|她|人|车)(?P<v>[\u4e00-\u9fffA-Za-z]{1,6})$"),
    ("name", r"我的名字(?:是|叫)(?P<v>.+)"),
    ("phone", r"我的?(?:新)?(?:手机号码?|电话(?:号码)?)(?:是|换成了?|改成了?)(?P<v>.+)"),
    ("email", r"我的?(?:新)?邮箱(?:地址)?(?:是|换成了?|改成了?)(?P<v>.+)"),
    ("partner", r"我的?(?:新)?(?:女朋友|男朋友|对象|老婆|老公|妻子|丈夫)(?:是|叫)(?P<v>.+)"),
    ("favorite:{k}", r"我最喜欢的(?P<k>[\u4e00-\u9fff]{1,6})是(?P<v>.+)"),
    ("pet:{k}", r"我(?:的|家的?)(?P<k>狗|猫|小狗|小猫|兔子|鹦鹉)(?:叫|的名字是)(?P<v>.+)"),
    # Generic: 「我的X是Y」, X one to eight characters.
    ("{k}", r"我的(?P<k>[\u4e00-\u9fffA-Za-z0-9]{1,8}?)(?:现在)?(?:是|换成了?|改成了?)(?P<v>.+)"),
)

# "my X is …" where X names an opinion or a plan, not an attribute that has one value.
_GENERIC_EXCLUDED = frozenset(
    [
        "point",
        "guess",
        "question",
        "plan",
        "idea",
        "goal",
        "hope",
        "dream",
        "advice",
        "answer",
        "problem",
        "issue",
        "concern",
        "worry",
        "fear",
        "feeling",
        "thought",
        "bet",
        "opinion",
        "view",
        "take",
        "favorite",
        "favourite",
        "pleasure",
        "bad",
        "fault",
        "mistake",
        "turn",
        "treat",
        "day",
        "week",
        "life",
        "heart",
        "mind",
        "god",
        "gosh",
        "goodness",
        "lord",
        # Groups and passions: "my family is awesome", "my art is about healing".
        "family",
        "friends",
        "kids",
        "children",
        "parents",
        "art",
        "passion",
        "motivation",
        "inspiration",
        "story",
        "way",
    ]
)
_GENERIC_EXCLUDED_ZH = frozenset(
    [
        "想法",
        "意思",
        "问题",
        "梦想",
        "目标",
        "计划",
        "建议",
        "感觉",
        "希望",
        "理想",
        "心情",
        "错",
        "天",
        "看法",
        "观点",
        "担心",
        "建议是",
    ]
)

_PET_KINDS = {"puppy": "dog", "kitten": "cat", "狗": "dog", "小狗": "dog", "猫": "cat"}
_PET_KINDS |= {"小猫": "cat", "兔子": "rabbit", "鹦鹉": "parrot"}

_CLAUSES = re.compile(r"(?:[!?;。！？；\n，,]|\.(?=\s|$))+")
_QUESTION = re.compile(r"[?？]\s*$|^(?:do|does|did|is|are|am|what|where|who|when|how)\b|吗$")
_SPEAKER = re.compile(
    r"^\s*(?P<name>[A-Z][\w'\-]*(?: [A-Z][\w'\-]*){0,2}|(?!我)[\u4e00-\u9fff]{1,8})\s*[:：]\s*"
)
_EN_CUT = re.compile(
    r"\s+(?:and|but|because|since|so|which|who|where|when|with|after|before|for)\s+.*$"
)
_EN_TRAILING = re.compile(
    r"(?:\s+(?:now|too|anymore|again|already|today|yesterday|recently|"
    r"last\s+(?:week|month|year)|this\s+(?:week|month|year)|these\s+days|"
    r"(?:\d+|a|one|two|three|a\s+few)\s+(?:years?|months?|weeks?|days?)\s+ago))+$"
)
_ZH_CUT = re.compile(r"(?:，|,|、|但是|因为|所以|然后|而且).*$")
_ZH_TRAILING = re.compile(r"(?:了|啦|呢|吧|哦|啊|呀|的|去|啦|上周|上个月|去年|今年)+$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_NOT_VALUE = re.compile(r"[^\w@+\-.\u4e00-\u9fff ]+")
# "Dr. Li": the dot of a title does not end the sentence.
_ABBREVIATION = re.compile(r"\b(dr|mr|mrs|ms|st|prof|jr)\.", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_GENERIC_BAD_VALUE = re.compile(
    r"^(?:not|no|so|very|really|too|quite|pretty|such|always|never|like|\w+ing|\w+ed)\b"
    r"|^(?:不|没|很|太|非常|挺|有点|真|好|最|越来越)"
)

_COMPILED = tuple(
    (slot, re.compile(pattern, re.IGNORECASE)) for slot, pattern in (*_ZH_RULES, *_EN_RULES)
)


@dataclass(frozen=True)
class Fact:
    """What a statement sets: a slot key and its normalized value ("" when unreadable)."""

    slot: str
    value: str


def extract_fact(content: str) -> Fact | None:
    """The slot and value a statement sets, or None (see the module docstring)."""
    text = content.strip()
    speaker = ""
    found = _SPEAKER.match(text)
    if found and found.group("name") != "I":
        speaker, text = found.group("name").lower(), text[found.end() :]
    for clause in _split(_ABBREVIATION.sub(r"\1", text)):
        fact = _clause_fact(clause)
        if fact is not None:
            slot = f"{fact.slot}@{speaker}" if speaker else fact.slot
            return Fact(slot[:MAX_SLOT_CHARS], fact.value)
    return None


def _split(text: str) -> list[str]:
    """Clauses, each with its own question mark kept for the question check."""
    clauses: list[str] = []
    start = 0
    for sep in _CLAUSES.finditer(text):
        clauses.append(text[start : sep.end()].strip())
        start = sep.end()
    clauses.append(text[start:].strip())
    return [c for c in clauses if c]


def _clause_fact(clause: str) -> Fact | None:
    if _QUESTION.search(clause):
        return None
    body = _CLAUSES.sub("", clause).strip()
    for slot, pattern in _COMPILED:
        match = pattern.match(body)
        if match is None:
            continue
        key = match.groupdict().get("k")
        if key is not None:
            key = _SPACES.sub(" ", key.strip().lower())
            if slot == "{k}" and (key in _GENERIC_EXCLUDED or key in _GENERIC_EXCLUDED_ZH):
                continue
            if slot == "{k}" and set(key.split()) & _GENERIC_EXCLUDED:
                continue
            key = _PET_KINDS.get(key, key)
        value = _value(match.group("v") or "")
        if slot == "{k}" and (not value or _GENERIC_BAD_VALUE.match(value)):
            continue  # "my sister is so happy", 「我的工作很忙」: a state, not a value
        return Fact(slot.format(k=key) if key is not None else slot, value)
    return None


def _value(raw: str) -> str:
    """The value part: up to a conjunction, minus particles and time words, normalized."""
    value = _ZH_CUT.sub("", raw.strip())
    value = _EN_CUT.sub("", value)
    value = _NOT_VALUE.sub(" ", value.lower())
    value = _SPACES.sub(" ", value).strip(" .-")
    value = _EN_TRAILING.sub("", value)
    value = _ZH_TRAILING.sub("", value)
    return _ARTICLE.sub("", value).strip()
