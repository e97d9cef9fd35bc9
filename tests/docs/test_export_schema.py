"""docs/person-export.schema.json is what the export's line models say, and every line of
a real export is valid under it."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import jsonschema  # type: ignore[import-untyped]  # installed with schemathesis

from docsgen import export_schema
from tests.api.helpers import remember

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "person-export.schema.json"


def test_the_committed_schema_is_what_the_format_generates() -> None:
    # On a difference: `make docs` regenerates it from services/access/person_document.py.
    assert SCHEMA.read_text(encoding="utf-8") == export_schema.render()


async def test_every_line_of_an_export_is_valid_under_the_schema(
    client: httpx.AsyncClient,
) -> None:
    first = await remember(client, "ann", "I drink green tea every morning", metadata={"a": 1})
    second = await remember(client, "ann", "Dentist appointment next Tuesday at 9")
    link = f"/v1/users/ann/memories/{first['id']}/links"
    assert (await client.post(link, json={"target_id": second["id"]})).status_code == 201
    lines = (await client.get("/v1/users/ann/export")).text.splitlines()
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    kinds = set()
    for line in lines:
        value = json.loads(line)
        validator.validate(value)
        kinds.add(value["kind"])
    assert kinds == {"header", "person", "memory", "link", "end"}
