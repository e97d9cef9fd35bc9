"""docs/configuration.md is what the settings class says (docsgen/configuration.py)."""

from __future__ import annotations

from pathlib import Path

from docsgen import configuration
from services.core.settings import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_every_setting_says_what_it_means() -> None:
    undocumented = [name for name, field in Settings.model_fields.items() if not field.description]
    assert undocumented == []


def test_the_committed_page_is_what_the_settings_generate() -> None:
    # On a difference: `make docs` regenerates the page from services/core/settings.py.
    assert DOC.read_text(encoding="utf-8") == configuration.render()


def test_each_setting_has_one_row_with_its_default_and_bounds() -> None:
    page = configuration.render()
    for name in Settings.model_fields:
        assert page.count(f"| `{name.upper()}` |") == 1, name
    assert "| `DB_LOCK_TIMEOUT_MS` | `30000` |" in page
    assert "(≥ 1, ≤ 3600000)" in page
    assert "| `JARVIS_API_KEYS` | (none) |" in page
    assert '`{"lexical": 0.7, "phrase": 0.2,' in page


def test_an_edited_page_is_caught() -> None:
    edited = configuration.render().replace("| `BM25_K1` | `1.2` |", "| `BM25_K1` | `1.5` |")
    assert edited != configuration.render()
