"""docs/person-export.schema.json from the export's line models
(services/access/person_document.py): the JSON Schema of one line of a person's export."""

from __future__ import annotations

import json

from services.access.person_document import FORMAT, FORMAT_VERSION, json_schema


def render() -> str:
    """The schema file's text: one line's schema, named after the format and version."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{FORMAT} version {FORMAT_VERSION}: one line of a person's export",
        "description": "Each line of GET /v1/users/{user_id}/export is one of these objects, "
        "told apart by kind (docs/api.md, Export and import).",
        **json_schema(),
    }
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
