"""Scheduled rescoring: SQL matches the pure scorer, time moves scores, runs are recorded."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from models import UserMemory
from services.remembering.memory_service import MemoryService
from services.scoring.jobs import run_rescore
from services.scoring.rescoring import RescoringService
from services.scoring.scheduler import build_scheduler
from services.scoring.scorer import ImportanceScorer
from tests.conftest import FakeClock
from tests.factories import Services


async def test_sql_scores_equal_the_pure_scorer(services: Services, clock: FakeClock) -> None:
    created = [
        await services.add(
            "u", "Deadline is urgent, I'm worried", created_at=clock.now - timedelta(days=40)
        ),
        await services.add("u", "我很担心项目进度"),
        await services.add("u", "Bought milk"),
        await services.add("u", "项目进度需要每周汇报"),
    ]
    await services.recall("u", "项目")
    clock.advance(days=10, hours=5)
    run = await run_rescore(services.db, services.settings, clock)
    assert run.status == "succeeded"
    assert run.rows == len(created)
    scorer = ImportanceScorer(services.settings)
    for memory in created:
        stored = await services.get("u", memory.id)
        expected = scorer.breakdown(stored, clock.now)
        assert stored.importance_score == pytest.approx(expected.score, abs=1e-6)
        assert stored.frequency_score == pytest.approx(expected.frequency, abs=1e-6)
        assert stored.recency_score == pytest.approx(expected.recency, abs=1e-6)
        assert stored.impact_score == pytest.approx(expected.impact, abs=1e-6)
        assert stored.importance_level == expected.level
        assert stored.scored_at == clock.now


async def test_scores_fall_as_time_passes(services: Services, clock: FakeClock) -> None:
    memory = await services.add("u", "Bought a new lamp")
    assert memory.recency_score == pytest.approx(1.0)
    clock.advance(days=60)
    await run_rescore(services.db, services.settings, clock)
    later = await services.get("u", memory.id)
    assert later.recency_score == pytest.approx(0.25)
    assert later.importance_score < memory.importance_score
    async with services.db.unit_of_work() as session:
        history = await MemoryService(session, services.settings, services.analyzer, clock).history(
            later
        )
    assert [h.reason for h in history][:2] == ["rescore", "write"]


async def test_crossing_into_high_escalates(services: Services, clock: FakeClock) -> None:
    memory = await services.add("u", "护照快过期了，很急")
    for _ in range(2):
        await services.recall("u", "护照快过期了")  # confident enough to count
    high = await services.get("u", memory.id)
    assert high.importance_level == "high"
    assert high.escalated_at is not None
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, clock)
        assert [m.id for m in await service.escalations("u")] == [memory.id]
        await service.acknowledge_escalation("u", memory.id)
        assert await service.escalations("u") == []
        assert len(await service.escalations("u", include_acknowledged=True)) == 1
    # Months later the memory is no longer high and leaves the escalations.
    clock.advance(days=120)
    run = await run_rescore(services.db, services.settings, clock, user_id="u")
    faded = await services.get("u", memory.id)
    assert faded.importance_level != "high"
    assert faded.escalated_at is None
    assert run.escalations == 0


async def test_rescoring_counts_new_escalations(services: Services, clock: FakeClock) -> None:
    a = await services.add("u", "Rent is due, urgent")
    b = await services.add("u", "Rent is due, urgent, call landlord")
    # Force both below high, then let the job lift them back.
    async with services.db.unit_of_work() as session:
        for memory_id in (a.id, b.id):
            stored = await MemoryService(session, services.settings, services.analyzer, clock).get(
                "u", memory_id
            )
            stored.importance_level = "low"
            stored.frequency_count = 3
    run = await run_rescore(services.db, services.settings, clock)
    assert run.escalations == 2


async def test_batches_cover_every_row(services: Services, clock: FakeClock) -> None:
    settings = services.settings.model_copy(update={"rescore_batch_size": 2})
    for i in range(5):
        await services.add("u", f"note number {i} about topic {i}")
    await services.add("other", "someone else's note")
    run = await run_rescore(services.db, settings, clock, user_id="u")
    assert run.rows == 5
    assert run.user_id == "u"


async def test_empty_database_run(services: Services, clock: FakeClock) -> None:
    run = await run_rescore(services.db, services.settings, clock, user_id="nobody")
    assert (run.status, run.rows) == ("succeeded", 0)


async def test_failed_run_records_its_error(
    services: Services, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    await services.add("u", "something")

    async def broken(*_args: object, **_kw: object) -> tuple[int, int]:
        raise RuntimeError("disk on fire")

    # Simulates a database failure mid-run; everything around it is real.
    monkeypatch.setattr(RescoringService, "rescore_range", broken)
    run = await run_rescore(services.db, services.settings, clock, trigger="admin")
    assert run.status == "failed"
    assert run.error == "RuntimeError: disk on fire"
    assert run.finished_at is not None


async def test_scheduler_runs_the_rescore_job(services: Services, clock: FakeClock) -> None:
    await services.add("u", "a memory to rescore")
    scheduler = build_scheduler(services.db, services.settings, clock)
    job = scheduler.get_job("rescore")
    assert job is not None
    assert job.trigger.interval == timedelta(seconds=services.settings.rescore_interval)
    assert job.max_instances == 1
    assert job.coalesce is True
    run = await job.func(*job.args, **job.kwargs)
    assert (run.status, run.trigger, run.rows) == ("succeeded", "schedule", 1)


async def test_link_counts_are_recounted_only_when_asked(
    services: Services, clock: FakeClock
) -> None:
    first = await services.add("u", "我们的项目进度很慢")
    second = await services.add("u", "项目进度需要每周汇报")
    assert (await services.get("u", second.id)).associated_count == 1
    async with services.db.unit_of_work() as session:
        # A manual edit of the database that no write path would make.
        await session.execute(
            update(UserMemory).where(UserMemory.id == first.id).values(associated_count=7)
        )
    await run_rescore(services.db, services.settings, clock)
    assert (await services.get("u", first.id)).associated_count == 7
    repair = services.settings.model_copy(update={"rescore_recount_links": True})
    await run_rescore(services.db, repair, clock)
    assert (await services.get("u", first.id)).associated_count == 1


async def test_tracked_scores_follow_each_settings_statements(
    services: Services, clock: FakeClock
) -> None:
    # The id-rescoring statements are built once per scoring settings
    # (scoring_sql.ids_rescoring): two settings in one process must not share them.
    memory = await services.add("u", "项目进度需要每周汇报")
    recency_only = services.settings.model_copy(
        update={
            "weight_frequency": 0.0,
            "weight_recency": 1.0,
            "weight_emotion": 0.0,
            "weight_impact": 0.0,
        }
    )
    clock.advance(days=30)
    for settings in (services.settings, recency_only, services.settings):
        scoped = Services(services.db, settings, services.analyzer, clock)
        hits = await scoped.recall("u", "项目进度")
        assert [h.memory.id for h in hits] == [memory.id]
        stored = await scoped.get("u", memory.id)
        expected = ImportanceScorer(settings).breakdown(stored, clock.now)
        assert stored.importance_score == pytest.approx(expected.score, abs=1e-6)
        assert stored.scored_at == clock.now
        clock.advance(days=1)
    assert recency_only.weight_recency != services.settings.weight_recency
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, clock)
        history = await service.history(stored)
    # The reason is bound at execution too: the add's row says "write", the recalls' "recall".
    reasons = [h.reason for h in history]
    assert reasons[0] == "recall"
    assert reasons[-1] == "write"
    assert set(reasons) == {"recall", "write"}
