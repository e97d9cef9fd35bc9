"""The console's pages: users, a user's memories, one memory, job runs, rescore now.

Server-rendered with Jinja2 (autoescaped); the one stylesheet is served by the app
(``/admin/console/static``), and no page loads a script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from api.console.auth import (
    CONSOLE,
    COOKIE,
    LoginRequired,
    require_console,
    session_token,
    valid_login,
)
from api.console.chart import ScorePoint, score_chart
from api.deps import MemoryId, MemoryServiceDep, SessionDep, StateDep, UserId
from api.presenters import iso
from api.routes.admin import AdminDep
from services.admin.admin_service import contributions
from services.core.validation import USER_ID_PATTERN, check_user_id
from services.scoring.jobs import run_rescore

_HERE = Path(__file__).parent
templates = Jinja2Templates(directory=_HERE / "templates")
templates.env.filters["iso"] = iso
COMPONENTS = ("frequency", "recency", "emotion", "impact")
PAGE = 50
# A login form is a few dozen bytes; anything much larger is not one.
MAX_FORM_BYTES = 4096

router = APIRouter(prefix=CONSOLE, include_in_schema=False)
guarded = APIRouter(
    prefix=CONSOLE, include_in_schema=False, dependencies=[Depends(require_console)]
)


async def _form(request: Request) -> dict[str, str]:
    """An urlencoded form body (no multipart parser needed for two fields)."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}
    fields = parse_qs(body.decode("utf-8", errors="replace"), max_num_fields=8)
    return {name: values[0] for name, values in fields.items()}


@router.get("/login")
async def login_form(request: Request, state: StateDep) -> Response:
    if not state.settings.auth_enabled:
        return RedirectResponse(CONSOLE, status_code=303)
    return templates.TemplateResponse(request, "login.html", {"error": None})


@router.post("/login")
async def log_in(request: Request, state: StateDep) -> Response:
    key = (await _form(request)).get("key", "")
    if not valid_login(key, state.settings.jarvis_admin_keys):
        return templates.TemplateResponse(
            request, "login.html", {"error": "not an admin key"}, status_code=401
        )
    answer = RedirectResponse(CONSOLE, status_code=303)
    answer.set_cookie(
        COOKIE,
        session_token(key),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=CONSOLE,
    )
    return answer


@router.post("/logout")
async def log_out() -> Response:
    answer = RedirectResponse(f"{CONSOLE}/login", status_code=303)
    answer.delete_cookie(COOKIE, path=CONSOLE)
    return answer


@guarded.get("", response_class=HTMLResponse)
async def users(
    request: Request,
    admin: AdminDep,
    state: StateDep,
    after: Annotated[str | None, Query(pattern=USER_ID_PATTERN)] = None,
) -> Response:
    """Users with their memory counts and level distribution."""
    rows = await admin.users(PAGE + 1, after)
    page = rows[:PAGE]
    listed = [
        {
            "user_id": u.user_id,
            "count": u.memory_count,
            "levels": {level: levels.get(level, 0) for level in ("high", "medium", "low")},
            "updated_at": u.updated_at,
        }
        for u, levels in page
    ]
    following = page[-1][0].user_id if len(rows) > PAGE else None
    context = {
        "users": listed,
        "after": following,
        "stats": await admin.stats(state.embedding_model, state.clock()),
        "erased": request.query_params.get("erased"),
        "erased_rows": request.query_params.get("rows"),
    }
    return templates.TemplateResponse(request, "users.html", context)


@guarded.get("/users/{user_id}", response_class=HTMLResponse)
async def user_memories(
    request: Request,
    user_id: UserId,
    state: StateDep,
    service: MemoryServiceDep,
    order: Literal["importance", "recent"] = "importance",
    cursor: Annotated[str | None, Query(pattern=r"^[A-Za-z0-9_-]{1,512}$")] = None,
) -> Response:
    """A user's memories, most important (or newest) first, a bar per score component."""
    page = await service.list_page(
        user_id, order=order, limit=PAGE, cursor=cursor, include_superseded=True
    )
    rows = [{"memory": m, "parts": contributions(m, state.settings)} for m in page.items]
    context = {
        "user_id": user_id,
        "rows": rows,
        "order": order,
        "next_cursor": page.next_cursor,
        "components": COMPONENTS,
        "unconfirmed": request.query_params.get("unconfirmed") == "1",
    }
    return templates.TemplateResponse(request, "user.html", context)


@guarded.get("/memories/{memory_id}", response_class=HTMLResponse)
async def memory(
    request: Request, memory_id: MemoryId, state: StateDep, admin: AdminDep
) -> Response:
    """One memory: its components, score history chart, links, supersede chain, escalation."""
    seen = await admin.inspect(memory_id)
    current = seen.memory
    points = [ScorePoint(h.scored_at, h.importance_score, h.importance_level) for h in seen.history]
    if current.scored_at is not None and all(p.at != current.scored_at for p in points):
        points.append(
            ScorePoint(current.scored_at, current.importance_score, current.importance_level)
        )
    settings = state.settings
    links = [
        {
            "other": link.memory_id_b if link.memory_id_a == current.id else link.memory_id_a,
            "kind": link.kind,
            "weight": link.weight,
            "topics": link.shared_topics,
        }
        for link in seen.links
    ]
    context: dict[str, Any] = {
        "memory": current,
        "parts": seen.contributions,
        "components": COMPONENTS,
        "chart": score_chart(points, medium=settings.level_medium, high=settings.level_high),
        "history": sorted(seen.history, key=lambda h: h.scored_at, reverse=True),
        "links": links,
        "chain": await admin.supersede_chain(current),
    }
    return templates.TemplateResponse(request, "memory.html", context)


@guarded.get("/jobs", response_class=HTMLResponse)
async def jobs(request: Request, admin: AdminDep, ran: int | None = None) -> Response:
    """Job runs, newest first, and the rescore button."""
    context = {"runs": await admin.job_runs(PAGE), "ran": ran}
    return templates.TemplateResponse(request, "jobs.html", context)


@guarded.post("/jobs/rescore")
async def rescore_now(request: Request, state: StateDep) -> Response:
    """Rescore now (everyone, or the form's user) and show the run among the others."""
    user_id = (await _form(request)).get("user_id") or None
    if user_id is not None:
        check_user_id(user_id)
    run = await run_rescore(state.db, state.settings, state.clock, user_id=user_id, trigger="admin")
    return RedirectResponse(f"{CONSOLE}/jobs?ran={run.id}", status_code=303)


@guarded.post("/users/{user_id}/erase")
async def erase_user(
    request: Request, user_id: UserId, state: StateDep, session: SessionDep
) -> Response:
    """Erase a person (as ``DELETE /v1/users/{user_id}``) once the form repeats their id:
    the confirmation, which works without JavaScript. Then the users page says what went."""
    if (await _form(request)).get("confirm") != user_id:
        return RedirectResponse(f"{CONSOLE}/users/{user_id}?unconfirmed=1", status_code=303)
    erased = await state.erasure(session).erase(user_id)
    query = urlencode({"erased": user_id, "rows": erased.total})
    return RedirectResponse(f"{CONSOLE}?{query}", status_code=303)


async def _to_login(request: Request, exc: Exception) -> Response:
    return RedirectResponse(f"{CONSOLE}/login", status_code=303)


def install_console(app: FastAPI) -> None:
    """Mount the console's pages and its stylesheet."""
    app.mount(f"{CONSOLE}/static", StaticFiles(directory=_HERE / "static"), name="console-static")
    app.include_router(router)
    app.include_router(guarded)
    app.add_exception_handler(LoginRequired, _to_login)
