"""``tilecensus web``: serve the read-only page over the ledger (docs/web.md)."""
from __future__ import annotations

import ipaddress
import os

import click

from .app import App, CLIError, cli
from .options import db_option

#: the token a page bound beyond this machine requires of every request
ENV_WEB_TOKEN = "TILECENSUS_WEB_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help=f"address to bind; any but a loopback address needs ${ENV_WEB_TOKEN}")
@click.option("--port", type=click.IntRange(0, 65535), default=8050, show_default=True,
              help="the port to listen on (0: any free port)")
@db_option
@click.pass_obj
def web(app: App, host: str, port: int) -> None:
    """A read-only web page over the ledger: the runs (live), one run with its charts, stored
    solutions drawn, the problem library, and a JSON API."""
    token = os.environ.get(ENV_WEB_TOKEN) or None
    if not is_loopback(host) and token is None:
        raise CLIError(f"--host {host} serves the ledger beyond this machine: set {ENV_WEB_TOKEN} to a secret "
                       "every request must bring (or bind 127.0.0.1)")
    import uvicorn

    from ..db import open_reader, safe_url
    from ..web import create_app

    ledger = open_reader(app.db_url)
    click.echo(f"tilecensus web: http://{host}:{port}/ over {safe_url(ledger.url)} (read-only)"
               + ("; requests need the token" if token else ""), err=True)
    uvicorn.run(create_app(ledger, token=token), host=host, port=port, log_level="warning")
