"""The README documents every setting (a new one cannot be added silently)."""

from __future__ import annotations

from pathlib import Path

from services.core.settings import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [name.upper() for name in Settings.model_fields if name.upper() not in text]
    assert missing == []
