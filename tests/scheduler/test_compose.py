"""docker-compose.yml: the services are there, and their commands exist in the CLI."""
from __future__ import annotations

from pathlib import Path

import click
import yaml

from scheduler.cli import cli

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


def _check_command(argv: list[str]) -> click.Command:
    """Walk ``tilecensus ...`` through the click group; every option must exist."""
    assert argv[0] == "tilecensus", argv
    cmd: click.Command = cli
    args = argv[1:]
    while isinstance(cmd, click.Group) and args and not args[0].startswith("-"):
        found = cmd.get_command(click.Context(cmd), args[0])  # as click asks: a command's module loads when asked
        assert found is not None, f"no command {args[0]!r} in {argv}"
        cmd = found
        args = args[1:]
    known = {opt for p in cmd.params for opt in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])}
    for a in args:
        if a.startswith("-"):
            assert a.split("=")[0] in known, f"{argv}: {a} is not an option of {cmd.name}"
    cmd.make_context(cmd.name, list(args), resilient_parsing=False).close()
    return cmd


def test_compose_services_and_commands():
    doc = yaml.safe_load(COMPOSE.read_text())
    services = doc["services"]
    assert {"redis", "postgres", "migrate", "worker", "scheduler"} <= set(services)
    for name in ("redis", "postgres", "worker"):
        assert "healthcheck" in services[name], name
    assert "ledger" in doc["volumes"]
    assert any("ledger:" in v for v in services["postgres"]["volumes"])
    assert _check_command(services["migrate"]["command"]).name == "upgrade"
    assert _check_command(services["worker"]["command"]).name == "worker"
    assert _check_command(services["scheduler"]["command"]).name == "scheduler"
    assert "deploy" not in services["worker"] or "replicas" not in services["worker"]["deploy"]  # scalable
    env = services["worker"]["environment"]
    assert env["TILECENSUS_DB_URL"].startswith("postgresql://") and env["TILECENSUS_BROKER_URL"].startswith("redis://")
    dep = services["worker"]["depends_on"]
    assert dep["migrate"]["condition"] == "service_completed_successfully"


def test_compose_serves_the_web_page_and_flower():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    web = services["web"]
    cmd = _check_command(web["command"])
    assert cmd.name == "web"
    host = web["command"][web["command"].index("--host") + 1]
    assert host == "0.0.0.0" and "TILECENSUS_WEB_TOKEN" in web["environment"]  # beyond loopback: a token
    assert web["environment"]["TILECENSUS_DB_URL"].startswith("postgresql://")
    assert all(p.startswith("127.0.0.1:") for p in web["ports"] + services["flower"]["ports"])
    assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    flower = services["flower"]
    assert "flower" in flower["command"] and any(a.startswith("--broker=redis://redis:") for a in flower["command"])
