"""Print the service's OpenAPI document, which the TypeScript client's types are made from.

Run by ``npm run schema`` (and checked by ``npm run check:schema``) with the project's
virtualenv: the document is the app's own, as ``create_app`` builds it, so it does not
depend on a running server or on the environment's settings.
"""

from __future__ import annotations

import json
import sys

from api.app import create_app
from services.core.settings import Settings


def main() -> None:
    """Write the document to stdout as indented JSON."""
    app = create_app(Settings(_env_file=None))
    sys.stdout.write(json.dumps(app.openapi(), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
