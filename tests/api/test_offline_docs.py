"""``/docs`` and ``/redoc`` work with the network off: every URL they load is the app's."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser

import httpx
import pytest

from api.app import create_app
from services.core.settings import Settings

# Attributes that make a browser fetch something (ReDoc reads its spec from spec-url).
_FETCHING = {"src", "href", "spec-url"}
# A quoted URL in an inline script (Swagger UI's `url: '/openapi.json'`).
_SCRIPT_URL = re.compile(r"""['"]((?:https?:)?//[^'"]+|/[^'"]*)['"]""")


class _Urls(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in _FETCHING and value]
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.urls += _SCRIPT_URL.findall(data)


@pytest.fixture(scope="module")
async def http() -> AsyncIterator[httpx.AsyncClient]:
    # The pages and their assets touch no database: no lifespan needed.
    app = create_app(Settings(_env_file=None, scheduler_enabled=False, database_url="sqlite://"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("/docs", {"/static/docs/swagger-ui-bundle.js", "/static/docs/swagger-ui.css"}),
        ("/redoc", {"/static/docs/redoc.standalone.js"}),
    ],
)
async def test_every_asset_of_the_page_is_served_by_the_app(
    http: httpx.AsyncClient, page: str, expected: set[str]
) -> None:
    answer = await http.get(page)
    assert answer.status_code == 200
    assert "http://" not in answer.text
    assert "https://" not in answer.text
    parser = _Urls()
    parser.feed(answer.text)
    urls = set(parser.urls)
    assert expected | {"/openapi.json", "/static/docs/favicon.png"} <= urls
    for url in sorted(urls):
        assert url.startswith("/"), f"{page} loads {url} from afar"
        assert not url.startswith("//"), f"{page} loads {url} from afar"
        fetched = await http.get(url)
        assert fetched.status_code == 200, f"{page}: {url} answered {fetched.status_code}"
        assert len(fetched.content) > 0
