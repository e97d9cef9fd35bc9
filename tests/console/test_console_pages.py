"""The admin console's pages over HTTP, on both backends: login, guard, content, rescore."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import httpx
import pytest

from api.app import create_app
from api.console.chart import ScorePoint, score_chart
from services.core.db import Database
from services.core.settings import Settings
from tests.conftest import FakeClock
from tests.timing import lifespan

ADMIN, SERVICE = "adm-key", "svc-key"
FORM = {"content-type": "application/x-www-form-urlencoded"}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"link", "script", "img"}:
            self.urls += [v for k, v in attrs if k in {"href", "src"} and v]


@pytest.fixture
async def console(db: Database, clock: FakeClock) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_api_keys=[SERVICE],
        jarvis_admin_keys=[ADMIN],
    )
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        yield http


async def _log_in(http: httpx.AsyncClient) -> None:
    answer = await http.post("/admin/console/login", content=f"key={ADMIN}", headers=FORM)
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"]
    assert ADMIN not in cookie  # an HMAC of the key, never the key
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie


async def test_the_console_wants_an_admin_key(console: httpx.AsyncClient) -> None:
    away = await console.get("/admin/console/jobs")
    assert (away.status_code, away.headers["location"]) == (303, "/admin/console/login")
    wrong = await console.post("/admin/console/login", content="key=svc-key", headers=FORM)
    assert wrong.status_code == 401
    assert "not an admin key" in wrong.text
    service = await console.get("/admin/console", headers={"Authorization": f"Bearer {SERVICE}"})
    assert service.status_code == 403
    forged = await console.get("/admin/console", headers={"Cookie": "jarvis_console=" + "0" * 64})
    assert forged.status_code == 303
    bearer = await console.get("/admin/console", headers={"Authorization": f"Bearer {ADMIN}"})
    assert bearer.status_code == 200
    await _log_in(console)
    assert (await console.get("/admin/console/jobs")).status_code == 200
    out = await console.post("/admin/console/logout")
    assert out.status_code == 303
    assert (await console.get("/admin/console/jobs")).status_code == 303


async def test_users_memories_one_memory_and_rescore(
    console: httpx.AsyncClient, clock: FakeClock
) -> None:
    headers = {"Authorization": f"Bearer {ADMIN}"}
    ids = {}
    for text in ["我的生日是5月3日", "我下周要去杭州出差，很重要", "杭州的西湖很美"]:
        added = await console.post(
            "/v1/users/ann/memories", json={"content": text}, headers=headers
        )
        ids[text] = added.json()["id"]
        clock.advance(days=1)
    corrected = await console.post(
        "/v1/users/ann/memories", json={"content": "我的生日是5月4日"}, headers=headers
    )
    new_birthday = corrected.json()["id"]
    await _log_in(console)
    clock.advance(days=3)
    assert (await console.post("/admin/console/jobs/rescore", headers=FORM)).status_code == 303

    users = (await console.get("/admin/console")).text
    assert '<a href="/admin/console/users/ann">ann</a>' in users
    assert re.search(r'<td class="num">4</td>', users)

    listing = await console.get("/admin/console/users/ann")
    shown = [int(i) for i in re.findall(r'/admin/console/memories/(\d+)">', listing.text)]
    api = await console.get(
        "/admin/users/ann/memories", params={"order": "importance"}, headers=headers
    )
    assert shown == [m["id"] for m in api.json()["items"]]  # most important first
    assert len(re.findall(r'class="parts"', listing.text)) == 4  # a bar per memory
    recent = await console.get("/admin/console/users/ann", params={"order": "recent"})
    newest = re.search(r'/admin/console/memories/(\d+)">', recent.text)
    assert newest is not None
    assert int(newest.group(1)) == new_birthday

    page = await console.get(f"/admin/console/memories/{ids['我的生日是5月3日']}")
    assert page.status_code == 200
    chart = re.search(r"<svg.*?</svg>", page.text, re.S)
    assert chart is not None
    drawn = ET.fromstring(chart.group(0))
    ns = "{http://www.w3.org/2000/svg}"
    history_rows = len(re.findall(r"<tr><td>\d{4}-", page.text))
    assert history_rows >= 1
    points = drawn.findall(f"{ns}circle")
    assert len(points) >= history_rows
    chain = re.search(r'<ol id="chain">(.*?)</ol>', page.text, re.S)
    assert chain is not None
    assert f"/admin/console/memories/{new_birthday}" in chain.group(1)
    assert "not escalated" in page.text

    runs = await console.get("/admin/console/jobs")
    assert "rescore" in runs.text
    ran = await console.post("/admin/console/jobs/rescore", content="user_id=ann", headers=FORM)
    assert ran.status_code == 303
    shown_run = await console.get(ran.headers["location"])
    assert re.search(
        r'<tr class="ran" id="ran">\s*<td class="num">\d+</td><td>rescore</td>'
        r"<td>admin</td><td>ann</td>",
        shown_run.text,
    )
    bad = await console.post("/admin/console/jobs/rescore", content="user_id=a b", headers=FORM)
    assert bad.status_code == 422
    assert (await console.get("/admin/console/memories/999999")).status_code == 404

    for html in (users, listing.text, page.text, runs.text):
        parser = _Links()
        parser.feed(html)
        assert parser.urls, "the stylesheet"
        for url in parser.urls:
            assert url.startswith("/admin/console/static/")
            assert (await console.get(url)).status_code == 200


def test_the_chart_places_scores_by_time_and_value() -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    points = [
        ScorePoint(start, 0.2, "low"),
        ScorePoint(start + timedelta(days=2), 1.0, "high"),
        ScorePoint(start + timedelta(days=1), 0.5, "medium"),
    ]
    drawn = ET.fromstring(str(score_chart(points, medium=0.4, high=0.7)))
    ns = "{http://www.w3.org/2000/svg}"
    line = drawn.find(f"{ns}polyline")
    assert line is not None
    xy = [tuple(map(float, p.split(","))) for p in line.attrib["points"].split()]
    assert [x for x, _ in xy] == sorted(x for x, _ in xy)  # in time order
    assert xy[0][1] > xy[1][1] > xy[2][1]  # 0.2 lowest on screen, 1.0 at the top
    assert xy[1][0] == pytest.approx((xy[0][0] + xy[2][0]) / 2)  # day 1 of 0..2
    empty = str(score_chart([], medium=0.4, high=0.7))
    assert "no scores yet" in empty


async def test_a_person_is_erased_from_their_page_once_confirmed(
    console: httpx.AsyncClient,
) -> None:
    headers = {"Authorization": f"Bearer {ADMIN}"}
    await console.post("/v1/users/ann/memories", json={"content": "PIN ZQXJ7781"}, headers=headers)
    await _log_in(console)
    page = (await console.get("/admin/console/users/ann")).text
    assert 'id="erase-user"' in page
    wrong = await console.post(
        "/admin/console/users/ann/erase", content="confirm=bob", headers=FORM
    )
    assert wrong.status_code == 303
    assert wrong.headers["location"].endswith("/users/ann?unconfirmed=1")
    assert 'id="erase-unconfirmed"' in (await console.get(wrong.headers["location"])).text
    still = await console.get("/v1/users/ann/memories", headers=headers)
    assert len(still.json()["items"]) == 1
    done = await console.post("/admin/console/users/ann/erase", content="confirm=ann", headers=FORM)
    assert done.status_code == 303
    users = (await console.get(done.headers["location"])).text
    assert 'id="erased"' in users
    assert "/admin/console/users/ann" not in users
    gone = await console.get("/v1/users/ann/memories", headers=headers)
    assert gone.json()["items"] == []
