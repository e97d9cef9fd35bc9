"""A person's settings, and what erasing and importing a person return."""

from __future__ import annotations

from pydantic import BaseModel, Field

from api.schemas.common import TimeZone, _Strict


class ErasedCountsOut(BaseModel):
    """Rows removed per kind (conversations: distinct conversation ids that were named)."""

    conversations: int = Field(ge=0)
    vectors: int = Field(ge=0)
    unembeddable: int = Field(
        ge=0, description="marks of texts the embedding provider would not embed"
    )
    postings: int = Field(ge=0)
    topics: int = Field(ge=0)
    links: int = Field(ge=0)
    score_history: int = Field(ge=0)
    memories: int = Field(ge=0)
    term_statistics: int = Field(ge=0)
    message_scores: int = Field(ge=0)
    compressions: int = Field(ge=0)
    job_runs: int = Field(ge=0)
    users: int = Field(ge=0, description="the person's row of per-user aggregates (0 or 1)")
    api_keys: int = Field(ge=0, description="keys bound to exactly this user (prefix:USER)")


class ErasedOut(BaseModel):
    """The outcome of ``DELETE /v1/users/{user_id}``: always 200; all zeros when nothing
    of the person was left (a repeated erasure)."""

    user_id: str
    erased: ErasedCountsOut
    total: int = Field(ge=0, description="rows removed in all")


class ImportedCountsOut(BaseModel):
    """Lines of each kind the import wrote (the export's ``end`` line counts the same)."""

    person: int = Field(ge=0, le=1)
    memory: int = Field(ge=0)
    link: int = Field(ge=0)
    message_score: int = Field(ge=0)
    compression: int = Field(ge=0)


class ImportedOut(BaseModel):
    """The outcome of ``POST /v1/users/{user_id}/import``."""

    user_id: str
    imported: ImportedCountsOut


class PersonOut(BaseModel):
    """A person's settings."""

    user_id: str
    time_zone: str | None = Field(
        description="the IANA zone the person's days are counted in; null: UTC"
    )


class PersonPatch(_Strict):
    """Settings to change; an omitted one stays as it is."""

    time_zone: TimeZone | None = Field(
        default=None, description="the zone to count the person's days in; null: back to UTC"
    )
