"""Our TF-IDF keyword extraction against jieba.analyse's, and what it keeps out of memory."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from bench.data import Generator
from services.text import _jieba

SENTENCES = [
    "这个项目的截止日期是下周五，项目经理要求我们必须按时交付报告",
    "My cats love sleeping on the sofa, and the cat is black.",
    "今天和妈妈去医院复查，医生说恢复得不错，我很开心 happy",
    "the of is and to in that",
    "c++ 和 Python 哪个更适合写 jieba 分词的服务？",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def jieba_analyse() -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        import jieba.analyse  # type: ignore[import-untyped, unused-ignore]
    return jieba.analyse


def test_same_keywords_in_the_same_order_as_jieba_analyse(jieba_analyse: object) -> None:
    texts = [*SENTENCES, *(Generator(7).text()[0] for _ in range(400))]
    for text in texts:
        for top_k in (3, 15):
            expected = jieba_analyse.extract_tags(text, topK=top_k)  # type: ignore[attr-defined]
            assert _jieba.extract_tags(text, top_k) == expected, text


def test_topic_extraction_leaves_jieba_posseg_unloaded() -> None:
    # jieba.posseg's word → tag table is ~40 MiB the server has no use for.
    script = (
        "import sys\n"
        "from services.text import TopicExtractor\n"
        "assert TopicExtractor().extract('项目经理要求按时交付报告')\n"
        "print(sorted(m for m in sys.modules if m.startswith('jieba.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded = done.stdout.strip()
    assert "jieba.posseg" not in loaded, loaded
    assert "jieba.analyse" not in loaded, loaded
