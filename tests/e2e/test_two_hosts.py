"""Two hosts for real, short: ``bench/two_hosts.py`` counts the 8x8 domino board on one
worker in each of two network namespaces ("hosts" with their own addresses and hostnames),
reaching Redis and PostgreSQL through a relay that adds 20 ms each way. The total is
Kasteleyn's, both hosts' workers recorded results (the ledger's ``worker`` names
host:pid), and nothing it made is left: namespaces, veths, workers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import two_hosts  # noqa: E402

pytestmark = pytest.mark.e2e


def _ours(pid: int) -> list[str]:
    """Namespaces and links the run of process ``pid`` made and left."""
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return [n for n in left if n.startswith(f"{two_hosts.PREFIX}-{pid}-")] + \
        [line for line in links.splitlines() if f"{two_hosts.PREFIX}{pid}" in line]


def test_two_hosts_over_20_ms_links_count_exactly(pg_url, broker_url, queue, tmp_path):
    why = two_hosts.namespaces_possible()
    if why is not None:
        pytest.skip(f"cannot make network namespaces here: {why}")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "two_hosts.py"), "--board", "8x8", "--latency-ms", "20",
         "--repeats", "1", "--no-baseline", "--cold", "--db", pg_url, "--broker", broker_url, "--queue", queue, "--json",
         "--quiet", "--keep", str(tmp_path / "logs")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, out + err + "".join(
        f"\n--- {p.name}\n{p.read_text()[-2000:]}" for p in sorted((tmp_path / "logs").glob("*.log")))
    result = json.loads(out.strip().splitlines()[-1])
    assert result["exact"] and result["both_hosts_recorded"], result
    (run,) = result["runs"]
    assert run["hosts"] == 2 and run["latency_ms"] == 20
    assert run["solutions"] == run["expected"] == 12_988_816  # Kasteleyn
    assert run["workers"].get("host-a", 0) >= 1 and run["workers"].get("host-b", 0) >= 1, run["workers"]
    assert run["exchanges"] > 0  # the workers went through the relay
    assert not _ours(proc.pid)


def test_two_hosts_cleans_up_on_ctrl_c(pg_url, broker_url, queue, tmp_path):
    """Interrupted while its workers run, the script leaves no namespace, veth or worker."""
    why = two_hosts.namespaces_possible()
    if why is not None:
        pytest.skip(f"cannot make network namespaces here: {why}")
    import signal
    import time

    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "two_hosts.py"), "--board", "8x8", "--latency-ms", "5",
         "--repeats", "1", "--no-baseline", "--cold", "--db", pg_url, "--broker", broker_url, "--queue", queue],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("scheduler worker" in _cmdline(c) for c in _descendants(proc.pid)):
        time.sleep(0.1)
    time.sleep(1)
    workers = _descendants(proc.pid)
    assert workers, "no worker started"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not _ours(proc.pid)
    assert not [pid for pid in workers if _alive(pid)]


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
