"""The admin console in a real headless Chromium: log in, open a user, open a memory, see
its chart, rescore now; and /docs and /redoc rendering with every other host unreachable.

One module, one server (uvicorn on loopback, a migrated SQLite file), one browser session.
Screenshots go to ``$JARVIS_TEST_ARTIFACTS/console`` (default ``test-artifacts/``, not
committed). Needs Debian's ``chromium`` and ``chromium-driver`` (.ci/run installs them):
outside CI a machine without them skips with a message; with CI=true they must be there.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from api.app import create_app
from services.core.schema import upgrade
from services.core.settings import Settings
from tests.conftest import IN_CI
from tests.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("JARVIS_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "console"
ADMIN = "console-admin-key"
INSTALL = "apt-get install -y chromium chromium-driver"


def _browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    missing = [
        name for name, path in (("chromium", chromium), ("chromedriver", driver)) if not path
    ]
    if missing:
        message = f"no {' or '.join(missing)} on PATH: `{INSTALL}` to run the browser tests"
        if IN_CI:
            pytest.fail(f"CI=true: {message}")
        pytest.skip(message)
    assert chromium is not None
    assert driver is not None
    return chromium, driver


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app under uvicorn on loopback, with a few memories of one user."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('console') / 'console.db'}"
    upgrade(url)
    settings = Settings(
        _env_file=None,
        database_url=url,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_admin_keys=[ADMIN],
    )
    port = _free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + scaled(30)
    while not running.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped while starting"
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {ADMIN}"}
    with httpx.Client(base_url=base, headers=headers) as http:
        for text in [
            "我的生日是5月3日",
            "我下周要去杭州出差，很重要",
            "杭州的西湖很美",
            "I practise the piano every evening",
            "我的生日是5月4日",
        ]:
            assert http.post("/v1/users/ann/memories", json={"content": text}).status_code == 201
        http.post("/v1/users/ann/recall", json={"query": "杭州出差"}).raise_for_status()
        assert http.post("/admin/jobs/rescore").json()["status"] == "succeeded"
        http.post("/v1/users/bo/memories", json={"content": "I walk the dog"}).raise_for_status()
    try:
        yield base
    finally:
        running.should_exit = True
        thread.join(scaled(15))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver = _browser_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in [
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        # Every host but loopback is unreachable: a page that loads anything from a CDN
        # or a font service shows it.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ]:
        options.add_argument(argument)
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    session.set_page_load_timeout(scaled(30))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield session
    finally:
        session.quit()


def _wait(browser: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, scaled(20)).until(
        expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css))
    )


def _shot(browser: Any, name: str) -> None:
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def test_log_in_open_a_user_and_a_memory_see_the_chart_rescore(browser: Any, server: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/admin/console")
    assert browser.current_url.endswith("/admin/console/login")
    _wait(browser, "#key").send_keys(ADMIN)
    browser.find_element(By.ID, "login").click()
    users = _wait(browser, "#users")
    # The stylesheet came from the app: a level bar has its width and colour.
    bar = browser.find_element(By.CSS_SELECTOR, "#users .levels")
    assert bar.size["width"] == 160
    _shot(browser, "1-users")
    users.find_element(By.LINK_TEXT, "ann").click()

    memories = _wait(browser, "#memories")
    rows = memories.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 5
    assert rows[0].find_elements(By.CSS_SELECTOR, ".parts .seg")  # a bar per component
    _shot(browser, "2-user")
    memories.find_element(By.XPATH, "//tr[contains(., '杭州出差')]//a").click()

    chart = _wait(browser, "#score-chart svg")
    assert chart.size["width"] > 300
    assert chart.find_elements(By.CSS_SELECTOR, "polyline.line")
    assert chart.find_elements(By.CSS_SELECTOR, "circle.point")
    assert "not escalated" in browser.find_element(By.ID, "escalation").text
    _shot(browser, "3-memory")

    browser.get(f"{server}/admin/console/memories/1")
    chain = _wait(browser, "#chain").find_elements(By.TAG_NAME, "li")
    assert [item.text.split()[0] for item in chain] == ["#1", "#5"]  # 5月3日, then 5月4日

    browser.find_element(By.ID, "nav-jobs").click()
    before = len(_wait(browser, "#runs").find_elements(By.CSS_SELECTOR, "tbody tr"))
    browser.find_element(By.ID, "rescore-all").click()
    ran = _wait(browser, "#ran")
    assert "succeeded" in ran.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#runs tbody tr")) == before + 1
    _shot(browser, "4-jobs")


def test_the_api_docs_render_with_other_hosts_unreachable(browser: Any, server: str) -> None:
    browser.get(f"{server}/docs")
    assert "jarvis-memory" in _wait(browser, ".swagger-ui .info .title").text
    _shot(browser, "5-docs")
    browser.get(f"{server}/redoc")
    assert "jarvis-memory" in _wait(browser, "h1").text
    _shot(browser, "6-redoc")
