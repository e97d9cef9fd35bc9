"""Rebuild users' inverted indexes with the current analyzer.

Postings are computed at write time, so a change to the analysis (stemmer, stopwords,
n-grams) reaches old memories only through a reindex: ``jarvis-memory reindex [--user U]``.
Each batch of memories is analysed outside any transaction, then written in one short
unit of work (delete postings, insert new ones, set lengths), so recalls and writes keep
answering; the user's document frequencies and total length are recounted in SQL at the
end. Scores, topics and links are left alone: they do not depend on the postings.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from services.core.db import Database
from services.core.progress import NO_PROGRESS, Progress
from services.core.validation import check_user_id
from services.repositories.reindex import ReindexRepository
from services.repositories.search import Postings, SearchRepository
from services.text.analysis import TextAnalyzer

USERS_PER_PAGE = 500


@dataclass(frozen=True)
class ReindexResult:
    """How much was rewritten."""

    users: int
    memories: int


async def reindex(
    db: Database,
    analyzer: TextAnalyzer,
    user_id: str | None = None,
    batch_size: int = 500,
    progress: Progress = NO_PROGRESS,
) -> ReindexResult:
    """Reindex one user, or every user; ``progress`` counts memories."""
    if user_id is not None:
        check_user_id(user_id)
    async with db.reader() as session:
        progress.start(await ReindexRepository(session).count(user_id))
    if user_id is not None:
        return ReindexResult(1, await _reindex_user(db, analyzer, user_id, batch_size, progress))
    users = memories = 0
    after: str | None = None
    while True:
        async with db.unit_of_work() as session:
            page = await ReindexRepository(session).user_ids(after, USERS_PER_PAGE)
        if not page:
            return ReindexResult(users, memories)
        for uid in page:
            memories += await _reindex_user(db, analyzer, uid, batch_size, progress)
        users += len(page)
        after = page[-1]


def _terms(analyzer: TextAnalyzer, contents: list[str]) -> list[Counter[str]]:
    return [analyzer.terms(c) for c in contents]


async def _reindex_user(
    db: Database, analyzer: TextAnalyzer, user_id: str, batch_size: int, progress: Progress
) -> int:
    done, after = 0, 0
    while True:
        async with db.reader() as session:
            batch = await ReindexRepository(session).contents(user_id, after, batch_size)
        if not batch:
            async with db.unit_of_work() as session:
                repo = ReindexRepository(session)
                await repo.lock_user(user_id)
                await repo.refresh_frequencies(user_id)
                await repo.refresh_total_length(user_id)
            return done
        terms = await asyncio.to_thread(_terms, analyzer, [c for _, c in batch])
        async with db.unit_of_work() as session:
            done += await _rewrite(session, analyzer, user_id, batch, terms)
        progress.advance(len(batch))
        after = batch[-1][0]


async def _rewrite(
    session: AsyncSession,
    analyzer: TextAnalyzer,
    user_id: str,
    batch: list[tuple[int, str]],
    terms: list[Counter[str]],
) -> int:
    """Rewrite a batch's postings and lengths under the user's row; how many memories.

    The batch was analysed before the row was taken, so that the user's writes wait for
    three bulk statements, not for the analysis of the whole batch. What an edit or a
    delete changed meanwhile is read again under the row: a deleted memory is skipped and
    an edited one analysed again.
    """
    repo = ReindexRepository(session)
    await repo.lock_user(user_id)
    current = dict(await repo.contents_of(user_id, [memory_id for memory_id, _ in batch]))
    postings = []
    for (memory_id, analysed), counts in zip(batch, terms, strict=True):
        content = current.get(memory_id)
        if content is None:
            continue
        if content != analysed:
            counts = analyzer.terms(content)
        postings.append(Postings(memory_id, counts, sum(counts.values())))
    await repo.drop_postings(user_id, [p.memory_id for p in postings])
    await SearchRepository(session).index_many(user_id, postings)
    await repo.set_doc_lengths(user_id, {p.memory_id: p.doc_length for p in postings})
    return len(postings)
