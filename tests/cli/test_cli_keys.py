"""``jarvis-memory keys``: made, listed and revoked from the CLI, honoured by a running
app on the same database at once, on both backends."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.cli.main import main
from services.core.db import Database
from services.core.settings import Settings
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database
from tests.timing import lifespan


async def _keys(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, ["keys", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("backend", BACKENDS)
async def test_create_use_list_and_revoke(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert await asyncio.to_thread(main, ["migrate"]) == 0
        capsys.readouterr()
        code, secret, err = await _keys(
            capsys, "create", "--name", "acme app", "--scope", "prefix:acme:"
        )
        secret = secret.strip()
        assert code == 0
        assert secret.startswith("jmk_")
        assert "shown only now" in err
        code, out, _ = await _keys(capsys, "create", "--name", "ops", "--admin", "--json")
        ops = json.loads(out)
        assert (ops["scope"], ops["admin"], ops["secret"][:12]) == ("all", True, ops["hint"])

        settings = Settings(
            _env_file=None,
            database_url=url,
            scheduler_enabled=False,
            freeze_startup_heap=False,
            jarvis_auth_required=True,
        )
        db = Database.from_settings(settings)
        app = create_app(settings, db=db)
        try:
            async with (
                lifespan(app),
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app), base_url="http://t"
                ) as http,
            ):
                headers = {"Authorization": f"Bearer {secret}"}
                mine = await http.get("/v1/users/acme:ann/memories", headers=headers)
                assert mine.status_code == 200, mine.text
                other = await http.get("/v1/users/globex:bob/memories", headers=headers)
                assert other.status_code == 403
                admin = await http.get("/admin/users", headers=headers)
                assert admin.status_code == 403

                code, out, _ = await _keys(capsys, "list", "--json")
                listed = json.loads(out)
                assert [(k["name"], k["scope"], k["admin"]) for k in listed] == [
                    ("acme app", "prefix:acme:", False),
                    ("ops", "all", True),
                ]
                assert secret not in out
                assert ops["secret"] not in out
                code, out, _ = await _keys(capsys, "revoke", str(listed[0]["id"]), "--json")
                assert json.loads(out)["revoked_at"] is not None

                # The running app refuses it from the next request on.
                again = await http.get("/v1/users/acme:ann/memories", headers=headers)
                assert again.status_code == 401
                assert again.json()["error"]["message"] == "this key was revoked"
        finally:
            await db.dispose()
        code, _, err = await _keys(capsys, "revoke", "999")
        assert code == 2
        assert "key_not_found" in err
        code, _, err = await _keys(capsys, "create", "--name", "x", "--scope", "prefix:a/b")
        assert code == 2
        assert "invalid_input" in err
