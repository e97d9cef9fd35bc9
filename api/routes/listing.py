"""The listing query shared by the user's and the admin's memory listings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Depends, Query

from api.presenters import memory_out
from api.schemas.common import Level, MemoryType
from api.schemas.memories import MemoryPageOut
from services.remembering.memory_service import MemoryService


@dataclass(frozen=True)
class ListQuery:
    """Order, page size, keyset cursor and filters of a memory listing."""

    order: Literal["importance", "recent"]
    limit: int
    cursor: str | None
    types: list[MemoryType]
    level: Level | None
    include_superseded: bool


async def list_query(
    order: Literal["importance", "recent"] = "importance",
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[
        str | None,
        Query(pattern=r"^[A-Za-z0-9_-]{1,512}$", description="next_cursor of the previous page"),
    ] = None,
    type: Annotated[list[MemoryType] | None, Query()] = None,
    level: Level | None = None,
    include_superseded: bool = False,
) -> ListQuery:
    """Query parameters ``order``, ``limit``, ``cursor``, ``type`` (repeatable), ``level``,
    ``include_superseded`` (memories a newer fact replaced; left out by default)."""
    return ListQuery(order, limit, cursor, type or [], level, include_superseded)


ListQueryDep = Annotated[ListQuery, Depends(list_query)]


async def list_page(
    user_id: str, service: MemoryService, query: ListQuery, *, include_superseded: bool = False
) -> MemoryPageOut:
    """One page of a user's memories; ``include_superseded`` overrides the query's."""
    page = await service.list_page(
        user_id,
        order=query.order,
        limit=query.limit,
        cursor=query.cursor,
        types=query.types,
        level=query.level,
        include_superseded=include_superseded or query.include_superseded,
    )
    return MemoryPageOut(items=[memory_out(m) for m in page.items], next_cursor=page.next_cursor)
