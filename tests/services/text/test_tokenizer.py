"""Tokenizer, normalisation and hashing."""

from __future__ import annotations

import hashlib
import logging
import threading

import pytest

from services.text import Tokenizer, content_hash, get_tokenizer, normalize_content


class TestNormalizeContent:
    def test_chinese_punctuation_is_dropped(self) -> None:
        assert normalize_content("我很担心考试！") == normalize_content("我很担心考试")
        assert normalize_content("我很担心考试！") == "我很担心考试"

    def test_cjk_punctuation_between_words_is_deleted(self) -> None:
        text = "“你好”，世界。【重要】《书》（注）、；：…‘引’？"
        assert normalize_content(text) == "你好世界重要书注引"

    def test_case_whitespace_and_ascii_punctuation(self) -> None:
        assert normalize_content("  Hello,\t\n  WORLD!!  ") == "hello world"
        assert normalize_content("Hello world") == normalize_content("hello   WORLD.")

    def test_nfkc_folds_full_width(self) -> None:
        assert normalize_content("ＡＢＣ　１２３") == "abc 123"

    def test_different_content_stays_different(self) -> None:
        assert normalize_content("我很担心考试") != normalize_content("我不担心考试")

    def test_content_hash_is_sha256_of_normalized(self) -> None:
        expected = hashlib.sha256("我很担心考试".encode()).hexdigest()
        assert content_hash("  我很担心考试！") == expected
        assert content_hash("Hello, World") == content_hash("hello world")
        assert content_hash("a") != content_hash("b")


class TestTokenize:
    def test_chinese_stopwords_dropped_single_content_chars_kept(
        self, tokenizer: Tokenizer
    ) -> None:
        assert tokenizer.tokenize("我的猫很可爱") == ["猫", "可爱"]
        tokens = tokenizer.tokenize("这个问题很急")
        assert tokens == ["问题", "急"]

    def test_search_mode_yields_sub_words(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("项目经理") == ["项目", "经理", "项目经理"]

    def test_punctuation_splits_runs_and_is_dropped(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("急需解决！！") == ["急需", "解决", "急需解决"]
        assert "！" not in tokenizer.tokenize("猫！狗")

    def test_english_stopwords_removed_and_stemmed(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("The runs were running") == ["run", "run"]
        assert tokenizer.tokenize("My memories of cats") == ["memori", "cat"]

    def test_apostrophes_split_and_fragments_dropped(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("I don't like John's dogs") == ["like", "john", "dog"]

    def test_numbers_kept_and_duplicates_kept(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("2024 cat cats CAT") == ["2024", "cat", "cat", "cat"]

    def test_mixed_text(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("我在学Python编程") == ["学", "python", "编程"]

    def test_empty(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.tokenize("") == []
        assert tokenizer.tokenize("  ，。!? ") == []

    def test_custom_stopwords(self, tokenizer: Tokenizer) -> None:
        custom = Tokenizer(stopwords_zh=frozenset({"猫"}), stopwords_en=frozenset({"Cat"}))
        assert custom.tokenize("猫 cat dog") == ["dog"]
        assert custom.tokenize("的") == ["的"]

    def test_default_stopword_files_loaded(self, tokenizer: Tokenizer) -> None:
        assert {"的", "了", "是", "我们", "吗", "一个"} <= tokenizer.stopwords_zh
        assert {"the", "and", "don", "t", "ourselves"} <= tokenizer.stopwords_en
        assert "急" not in tokenizer.stopwords_zh
        assert len(tokenizer.stopwords_zh) >= 150
        assert len(tokenizer.stopwords_en) >= 170

    def test_thread_safe_reads(self, tokenizer: Tokenizer) -> None:
        text = "Running memories 项目经理说明天交付"
        expected = tokenizer.tokenize(text)
        results: list[list[str]] = []

        def work() -> None:
            for _ in range(20):
                results.append(tokenizer.tokenize(text))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(results) == 80
        assert all(r == expected for r in results)


class TestCjkNgrams:
    def test_bigrams(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.cjk_ngrams("项目经理") == ["项目", "目经", "经理"]

    def test_runs_broken_by_punctuation_and_latin(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.cjk_ngrams("我a项目，经理x猫") == ["项目", "经理"]

    def test_trigrams_and_short_runs(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.cjk_ngrams("项目经理", n=3) == ["项目经", "目经理"]
        assert tokenizer.cjk_ngrams("猫", n=2) == []
        assert tokenizer.cjk_ngrams("hello") == []

    def test_duplicates_kept(self, tokenizer: Tokenizer) -> None:
        assert tokenizer.cjk_ngrams("猫猫猫") == ["猫猫", "猫猫"]

    def test_invalid_n(self, tokenizer: Tokenizer) -> None:
        with pytest.raises(ValueError, match="n must be"):
            tokenizer.cjk_ngrams("项目", n=0)


def test_get_tokenizer_is_singleton() -> None:
    assert get_tokenizer() is get_tokenizer()


def test_warm_silences_jieba(tokenizer: Tokenizer) -> None:
    tokenizer.warm()
    assert logging.getLogger("jieba").level == logging.WARNING
