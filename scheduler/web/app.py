"""The site: a Starlette application over one ledger, read-only.

:func:`create_app` wires the routes of :mod:`.pages` and :mod:`.api`, the static files,
the Jinja2 templates (autoescaped: every value shown is escaped) and two middlewares:
:class:`TokenGate` (when the site has a token, every request must bring it) and
:class:`SecurityHeaders` (a Content-Security-Policy that allows no inline script and
nothing from another origin).
"""
from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

import jinja2
from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from ..db import Ledger, safe_url
from ..errors import LedgerError
from . import api, pages
from .pictures import ProblemCache
from .reading import StoredCounts

HERE = Path(__file__).parent
#: the cookie that carries the token after a first visit with ``?token=``
TOKEN_COOKIE = "tilecensus_token"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


@dataclass
class Site:
    """What every route needs: the ledger (read-only), the templates, the runs' problems
    and their numbers of stored solutions."""

    ledger: Ledger
    templates: Jinja2Templates
    problems: ProblemCache
    stored: StoredCounts


class TokenGate(BaseHTTPMiddleware):
    """Every request brings the token: ``Authorization: Bearer T``, the cookie set by a
    first visit with ``?token=T``, or ``?token=T`` itself; else 401."""

    def __init__(self, app, token: str):
        super().__init__(app)
        self.token = token.encode()

    def _matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token)

    async def dispatch(self, request: Request, call_next) -> Response:
        auth = request.headers.get("authorization", "")
        bearer = auth[7:] if auth.lower().startswith("bearer ") else None
        from_query = request.query_params.get("token")
        if not (self._matches(bearer) or self._matches(request.cookies.get(TOKEN_COOKIE))
                or self._matches(from_query)):
            return PlainTextResponse("401: this page needs its token (?token=... or Authorization: Bearer ...)",
                                     status_code=401, headers={"WWW-Authenticate": "Bearer"})
        response = await call_next(request)
        if self._matches(from_query):
            response.set_cookie(TOKEN_COOKIE, from_query, httponly=True, samesite="strict")
        return response


class SecurityHeaders(BaseHTTPMiddleware):
    """No inline script, nothing from elsewhere, no framing, no sniffing, no referrer."""

    async def dispatch(self, request: Request, call_next) -> Response:
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


def _error_response(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    site: Site = request.app.state.site
    return site.templates.TemplateResponse(request, "error.html", {"status": status, "message": message},
                                           status_code=status)


def _http_error(request: Request, exc: HTTPException) -> Response:
    return _error_response(request, exc.status_code, str(exc.detail))


def _ledger_error(request: Request, exc: Exception) -> Response:
    """An unknown run: 404, the message without the ledger's password."""
    ledger = request.app.state.site.ledger
    return _error_response(request, 404, str(exc).replace(ledger.url, safe_url(ledger.url)))


def _database_error(request: Request, exc: Exception) -> Response:
    """The database stopped answering: 503 and the reason's first line, as the CLI says it."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    return _error_response(request, 503, f"the database stopped answering: {reason}")


def templates() -> Jinja2Templates:
    """The page templates, every value autoescaped."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    env.filters["number"] = lambda v: "" if v is None else f"{v:,}"
    return Jinja2Templates(env=env)


def create_app(ledger: Ledger, *, token: str | None = None) -> Starlette:
    """The site over ``ledger`` (open it with :func:`scheduler.db.open_reader`); with
    ``token``, every request must bring it."""
    middleware = [Middleware(SecurityHeaders)]
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    app = Starlette(
        routes=pages.routes() + api.routes() + [Mount("/static", StaticFiles(directory=HERE / "static"),
                                                      name="static")],
        middleware=middleware,
        exception_handlers={HTTPException: _http_error, LedgerError: _ledger_error,
                            OperationalError: _database_error},
    )
    app.state.site = Site(ledger, templates(), ProblemCache(ledger), StoredCounts(ledger))
    return app
