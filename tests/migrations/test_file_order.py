"""Migration files sort in upgrade order, so a listing of migrations/versions/ reads as
the schema's history: each name starts with its place in the down_revision chain."""

from __future__ import annotations

import re
from pathlib import Path

from alembic.script import ScriptDirectory

from tests.db_backends import alembic_config

_NUMBERED = re.compile(r"^(\d{4})_(\w+?)_")


def test_file_names_sort_in_upgrade_order() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    upgrade_order = list(reversed(list(script.walk_revisions())))
    names = [Path(rev.path).name for rev in upgrade_order]
    assert names == sorted(names), "rename the files so they sort as they upgrade"
    for place, (rev, name) in enumerate(zip(upgrade_order, names, strict=True), start=1):
        match = _NUMBERED.match(name)
        assert match, f"{name}: expected NNNN_<revision>_<slug>.py (make revision does it)"
        assert int(match.group(1)) == place, f"{name}: is number {place} in the chain"
        assert match.group(2) == rev.revision, f"{name}: names another revision"
