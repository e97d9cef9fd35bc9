"""What the bench process and the server it starts agree on: settings and clock.

Kept apart from the scenarios so that the server subprocess (bench/server_main.py)
imports nothing the real server would not, and its RSS is the service's own.
"""

from __future__ import annotations

from datetime import UTC, datetime

from services.core.settings import Settings

# The service clock during the whole run: data is a year of statements up to this instant.
NOW = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def bench_settings(database_url: str = "sqlite://", *, scheduler: bool = False) -> Settings:
    """The service's settings from the environment, minus .env, auth and (unless
    ``scheduler``) the scheduler.

    A tracked recall counts every hit it returns: by default it counts only the hits it
    is nearly sure of (RECALL_COUNT_MIN_CONFIDENCE), which the bench's generated queries
    seldom are, and the bench measures the write path a tracked recall (or a frontend's
    POST …/memories/used) takes at its worst, as it did when every recalled hit was counted.

    The scheduler is on only for a server whose step needs the embedding backfill
    (bench/flood.py); elsewhere a job would run in the middle of a measurement.
    """
    return Settings(
        _env_file=None,
        scheduler_enabled=scheduler,
        database_url=database_url,
        jarvis_api_keys=[],
        jarvis_admin_keys=[],
        recall_count_min_confidence=0.0,
    )


class BenchClock:
    """The service clock: fixed, moved only by the bench."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
