"""Synthetic but realistic memories: mixed Chinese and English, from a fixed seed.

Every text is MIN_CHARS–MAX_CHARS characters, built from one to four clauses in Chinese,
English or both. Topics come from a vocabulary of TOPICS_ZH + TOPICS_EN drawn with Zipf
weights ``w(rank) = 1 / (rank + 1) ** ZIPF_EXPONENT``, so a few topics are shared by many
memories (as in real chat, and as the impact component expects) and most are rare. A
share EMOTION_RATE of the statements gets an emotion phrase (急, 很重要, 担心, urgent,
worried, …, some negated: 不急, not worried) and a share REPEAT_RATE repeats a recent
statement word for word, which the service merges. The shares that result (lexicon
words also occur in templates and topics) are measured and reported per tenant.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

ZIPF_EXPONENT = 1.05
MIN_CHARS, MAX_CHARS = 10, 200
REPEAT_RATE = 0.04
EMOTION_RATE = 0.35


def words(text: str, sep: str | None = None) -> tuple[str, ...]:
    """The items of a word list written as one string (keeps the vocabularies compact)."""
    return tuple(w.strip() for w in text.split(sep) if w.strip())


TOPICS_ZH = words(
    "季度报告 项目进度 牙医 护照 签证 房租 体检 健身房 咖啡 妈妈 生日 "
    "面试 航班 酒店 会议 预算 代码评审 数据库 女儿 儿子 学校 钢琴课 "
    "家长会 保险 信用卡 贷款 装修 搬家 快递 外卖 高铁票 年假 绩效 加班 "
    "老板 同事 客户 合同 发票 报销 发布会 周报 需求文档 服务器 备份 密码 "
    "手机 电脑 耳机 自行车 驾照 停车位 物业 水电费 宽带 猫粮 宠物医院 "
    "疫苗 感冒药 血压 跑步 瑜伽 游泳 马拉松 菜谱 火锅 奶茶 超市 菜市场 "
    "周末 春节 中秋 婚礼 爷爷 奶奶 表哥 朋友聚会 读书会 英语课 考试 论文 "
    "导师 实验 课题 基金 股票 理财 旅行 机票 行李 相机 演唱会 电影 话剧 "
    "展览 花园 阳台 书法 露营 滑雪 "
)
TOPICS_EN = words(
    "dentist passport visa rent gym coffee birthday interview flight hotel meeting budget "
    "deadline report invoice contract client manager roadmap release sprint backlog bug "
    "database server backup password laptop phone headphones bicycle garage insurance "
    "mortgage loan taxes bank salary bonus promotion resume conference slides demo "
    "newsletter podcast guitar piano violin marathon yoga swimming hiking camping garden "
    "groceries recipe pizza sushi vegan allergy doctor pharmacy vaccine therapy sleep "
    "school homework teacher tuition exam thesis lab grant research paper library museum "
    "concert movie theater festival wedding anniversary holiday airport train luggage "
    "camera painting photography chess soccer tennis basketball kitten puppy neighbor "
    "landlord plumber "
)
PEOPLE_ZH = words("张伟 李娜 王芳 刘洋 陈静 杨帆 赵磊 黄敏 周杰 吴倩 小林 老王 ")
PEOPLE_EN = words("Ann Tom Maria David Priya Ken Sofia Lucas Emma Omar Grace Leo ")
PLACES_ZH = words("公司 家里 医院 机场 学校 银行 咖啡馆 图书馆 健身房 楼下 ")
PLACES_EN = words(
    "the office|home|the clinic|downtown|the airport|the library|the station|",
    "|",
)
WHEN_ZH = words("明天 后天 下周一 下周三 下周五 周末 月底 今晚 下个月 年底 三天后 ")
WHEN_EN = words(
    "tomorrow|next Monday|on Friday|this weekend|by the end of the month|tonight|",
    "|",
)
EMOTION_ZH = words(
    "很急 急 很重要 担心 有点担心 困扰 想解决 紧急 焦虑 压力很大 无所谓 着急 不急 不担心 "
)
EMOTION_EN = words(
    "urgent|worried|very important|critical|anxious|a bit stressed|not worried|"
    "really excited|frustrated|asap|don't care|",
    "|",
)

TOPICS = TOPICS_ZH + TOPICS_EN

# Clause templates per memory type: {t} topic, {u} second topic, {p} person, {w} when,
# {l} place, {n} number, {h} hour.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "todo": (
        "{w}要处理{t}的事情",
        "记得{w}去{l}办{t}",
        "{w}之前把{t}交给{p}",
        "remember to sort out the {t} {w}",
        "need to call {p} about the {t} {w}",
        "{w}和{p}确认{t}，大概{h}点",
    ),
    "fact": (
        "{p}住在{l}附近，负责{t}",
        "{t}的费用是{n}元",
        "{p} works on the {t} and the {u}",
        "the {t} costs about {n} dollars",
        "我的{t}编号是{n}",
        "{p}说{t}和{u}有关系",
    ),
    "preference": (
        "我喜欢在{l}聊{t}",
        "I prefer {t} over {u}",
        "{p}不喜欢{t}，更喜欢{u}",
        "周末最喜欢{t}，其次是{u}",
    ),
    "goal": (
        "今年想把{t}做好，目标{n}分",
        "I want to get better at {t} this year",
        "计划在{w}完成{t}和{u}",
    ),
    "event": (
        "{w}在{l}有{t}，{p}也会来",
        "met {p} at {l} to talk about {t}",
        "上次{t}花了{n}分钟",
        "{p}的{t}在{w}",
    ),
    "decision": (
        "决定{w}开始{t}",
        "we decided to move the {t} to {w}",
        "{p}和我决定先做{t}再做{u}",
    ),
    "constraint": (
        "{t}不能晚于{w}",
        "the {t} must be done before the {u}",
        "{p}对{t}过敏",
    ),
}
TYPES = tuple(TEMPLATES)
TYPE_WEIGHTS = (30, 20, 12, 8, 15, 8, 7)


def zipf_weights(n: int) -> list[float]:
    """Cumulative Zipf weights ``1 / (rank + 1) ** ZIPF_EXPONENT`` for ranks 0..n-1."""
    return list(itertools.accumulate(1.0 / (r + 1) ** ZIPF_EXPONENT for r in range(n)))


class Generator:
    """Deterministic statements and queries for one ``random.Random(seed)``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        # Interleave the languages so both own popular and rare topics.
        self.topics = [t for pair in zip(TOPICS_ZH, TOPICS_EN, strict=True) for t in pair]
        self.cum = zipf_weights(len(self.topics))

    def topic(self) -> str:
        """One topic, Zipf-distributed."""
        return self.rng.choices(self.topics, cum_weights=self.cum)[0]

    def clause(self, memory_type: str) -> str:
        """One clause of the given type with its slots filled."""
        r = self.rng
        template = r.choice(TEMPLATES[memory_type])
        english = template.isascii()
        first = self.topic()
        second = self.topic()
        while second == first:
            second = self.topic()
        return template.format(
            t=first,
            u=second,
            p=r.choice(PEOPLE_EN if english else PEOPLE_ZH + PEOPLE_EN),
            w=r.choice(WHEN_EN if english else WHEN_ZH),
            l=r.choice(PLACES_EN if english else PLACES_ZH),
            n=r.randint(2, 99999),
            h=r.randint(1, 12),
        )

    def emotion(self, english: bool) -> str:
        """An emotion phrase in the clause's language."""
        r = self.rng
        if english:
            return r.choice(("I'm {}", "this is {}", "feeling {}")).format(r.choice(EMOTION_EN))
        return r.choice(("{}", "真的{}", "这件事{}")).format(r.choice(EMOTION_ZH))

    def text(self) -> tuple[str, str]:
        """(content, memory_type): 1–4 clauses, cut to MIN_CHARS..MAX_CHARS."""
        r = self.rng
        memory_type = r.choices(TYPES, weights=TYPE_WEIGHTS)[0]
        target = min(MAX_CHARS, int(r.lognormvariate(3.6, 0.6)) + MIN_CHARS)
        parts = [self.clause(memory_type)]
        while len("，".join(parts)) < target and len(parts) < 4:
            parts.append(self.clause(r.choice(TYPES)))
        if r.random() < EMOTION_RATE:
            parts.insert(r.randrange(len(parts) + 1), self.emotion(parts[0].isascii()))
        sep = ", " if parts[0].isascii() else "，"
        content = sep.join(parts)
        while len(content) > MAX_CHARS and len(parts) > 1:
            parts.pop()
            content = sep.join(parts)
        if len(content) < MIN_CHARS:
            content += sep + self.clause(memory_type)
        return content[:MAX_CHARS], memory_type

    def stream(self) -> Iterator[tuple[str, str]]:
        """Endless (content, memory_type) pairs; some repeat a recent one word for word."""
        said: list[tuple[str, str]] = []
        while True:
            if said and self.rng.random() < REPEAT_RATE:
                yield self.rng.choice(said[-500:])
            else:
                said.append(self.text())
                yield said[-1]

    def query(self) -> str:
        """A recall query from the same vocabulary: one or two topics, sometimes a person."""
        r = self.rng
        words = [self.topic() for _ in range(r.choice((1, 1, 2)))]
        if r.random() < 0.2:
            words.append(r.choice(PEOPLE_ZH + PEOPLE_EN))
        if all(w.isascii() for w in words):
            return r.choice(("{}", "what about the {}", "when is my {}")).format(" ".join(words))
        return r.choice(("{}", "{}什么时候", "关于{}的事")).format("".join(words))
