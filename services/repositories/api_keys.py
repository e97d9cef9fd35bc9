"""SQL for the ``api_keys`` table."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from models import ApiKey


class ApiKeyRepository:
    """Reads and writes ``api_keys``."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, key: ApiKey) -> ApiKey:
        self.session.add(key)
        await self.session.flush()
        return key

    async def by_hash(self, secret_hash: str) -> ApiKey | None:
        stmt = select(ApiKey).where(ApiKey.secret_hash == secret_hash)
        found: ApiKey | None = (await self.session.execute(stmt)).scalar_one_or_none()
        return found

    async def get(self, key_id: int) -> ApiKey | None:
        return await self.session.get(ApiKey, key_id)

    async def all(self) -> list[ApiKey]:
        return list((await self.session.execute(select(ApiKey).order_by(ApiKey.id))).scalars())
