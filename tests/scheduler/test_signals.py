"""The signals of a command and of its pool processes (scheduler/interrupts.py), and pool
processes dying with their parent (scheduler/parent_death.py), each in a process of its
own so that this one's handlers stay as they are."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from processes import process_running as _running

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("signum, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_the_first_signal_raises_interrupted_with_the_shells_status(signum, status):
    out = _python(f"""
        import os, signal
        from scheduler.interrupts import Interrupted, interruptible
        with interruptible():
            try:
                os.kill(os.getpid(), signal.{signum})
                for _ in range(10**7):
                    pass
                print("not heard")
            except Interrupted as exc:
                print("heard", exc.exit_status)
        print("after", signal.getsignal(signal.{signum}) == signal.SIG_IGN)
    """)
    assert out.stdout.split("\n")[:2] == [f"heard {status}", "after True"], out.stderr


def test_handlers_come_back_when_no_signal_came():
    out = _python("""
        import signal
        from scheduler.interrupts import interruptible
        before = signal.getsignal(signal.SIGTERM)
        with interruptible():
            pass
        print(signal.getsignal(signal.SIGTERM) is before)
    """)
    assert out.stdout.strip() == "True", out.stderr


def test_a_signal_ignored_from_the_start_stays_ignored():
    out = _python("""
        import os, signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # as nohup or a shell's background job
        from scheduler.interrupts import interruptible
        with interruptible():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10**6):
                pass
            print("still here", signal.getsignal(signal.SIGTERM) != signal.SIG_DFL)
    """)
    assert out.stdout.strip() == "still here True", out.stderr


def test_a_second_signal_hurries_and_exits_at_once_without_a_traceback():
    out = _python("""
        import os, signal, time
        from scheduler.interrupts import Interrupted, hurried_by, interruptible
        with interruptible():
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
            except Interrupted:
                with hurried_by(lambda: print("hurried", flush=True)):
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(5)
        print("not reached")
    """)
    assert (out.returncode, out.stdout, out.stderr) == (143, "hurried\n", "")


def test_a_pool_process_stops_its_search_or_the_next_one_on_sigterm():
    out = _python("""
        import os, signal
        from scheduler.interrupts import PoolProcessSignals, SearchStopped
        s = PoolProcessSignals()
        print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
        try:
            with s.searching():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(10**7):
                    pass
        except SearchStopped:
            print("stopped inside")
        s2 = PoolProcessSignals()
        os.kill(os.getpid(), signal.SIGTERM)  # idle: noted, nothing raised
        print("idle", s2.stop_requested)
        try:
            with s2.searching():
                print("searched")
        except SearchStopped:
            print("stopped before")
    """)
    assert out.stdout.split() == ["True", "stopped", "inside", "idle", "True", "stopped", "before"], out.stderr


@pytest.mark.parametrize("use_prctl", [True, False], ids=["parent-death signal", "pipe"])
def test_a_child_dies_with_its_parent_killed_by_sigkill(use_prctl):
    """The parent forks a child that sleeps for ever, prints its pid, and is killed -9."""
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, signal, sys, time
        from scheduler.parent_death import ParentWatch, die_with_parent
        watch = ParentWatch()
        me = os.getpid()
        child = os.fork()
        if child == 0:
            die_with_parent(me, watch.read_fd, watch.write_fd, use_prctl={use_prctl})
            time.sleep(600)
            os._exit(0)
        print(child, flush=True)
        time.sleep(600)
    """)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    time.sleep(0.5)  # the child set its watch up
    assert _running(child)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 10
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child)



def _send_half_a_result_and_hang() -> None:
    """In a pool process: what a process killed while sending a big result leaves in the
    results' pipe — a message's length and a few of its bytes — then nothing more."""
    import struct
    import time as clock

    from scheduler import local_pool

    writer = local_pool._INHERITED["pool"].executor._result_queue._writer  # (the pool forked from the test)
    os.write(writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80\x04" + b"\0" * 62)
    clock.sleep(60)


def test_a_pool_killed_while_sending_a_result_still_closes():
    """A pool process killed in the middle of sending its result (the wait after Ctrl-C
    ran out while it sent a frontier of 611 MB) left the pool's reader waiting for the
    rest for ever, and the command hung; :meth:`LocalPool.kill` gives the reader its end
    of file, so closing the pool returns."""
    import threading
    import time as clock

    from scheduler import local_pool
    from scheduler.run_options import RunOptions

    pool = local_pool.LocalPool(1, RunOptions())
    local_pool._INHERITED["pool"] = pool  # (the process forks with it)
    try:
        future = pool.submit(_send_half_a_result_and_hang)
        clock.sleep(1.0)  # the half message is in the pipe, the reader in the middle of it
        assert not future.done()
        pool.kill()
        closed = threading.Thread(target=pool.close, kwargs={"wait": True}, daemon=True)
        closed.start()
        closed.join(timeout=20)
        assert not closed.is_alive(), "the pool's reader still waits for the rest of the result"
        assert future.exception(timeout=5) is not None  # the pool broke: its result is lost, not made up
    finally:
        local_pool._INHERITED.pop("pool", None)


@pytest.mark.parametrize("released", [True, False])
def test_a_transaction_a_signal_cut_lets_go_of_the_lock_once_its_frames_are_released(tmp_path, monkeypatch,
                                                                                    released):
    """A Ctrl-C heard inside the driver's executemany leaves its statement unfinished:
    SQLAlchemy invalidates the connection but cannot close it while the cursor, referenced
    from the frames the exception crossed, lives, and SQLite's write lock stays with it;
    the next write waits out its busy timeout ("database is locked").  release_frames lets
    go of them (a local run's wind-down does so before it records what finished)."""
    from sqlalchemy import create_engine, text

    from scheduler.interrupts import release_frames

    engine = create_engine(f"sqlite:///{tmp_path}/l.sqlite", connect_args={"timeout": 0.5})
    with engine.begin() as conn:
        conn.execute(text("create table t (x integer)"))

    def cut(cursor, statement, parameters, context=None):  # the signal, heard after two rows
        def rows():
            yield from parameters[:2]
            raise KeyboardInterrupt
        cursor.executemany(statement, rows())

    monkeypatch.setattr(engine.dialect, "do_executemany", cut)
    with pytest.raises(KeyboardInterrupt) as caught:
        with engine.begin() as conn:
            conn.execute(text("insert into t values (:x)"), [{"x": k} for k in range(5)])
    monkeypatch.undo()
    if released:
        release_frames(caught.value)
        with engine.begin() as conn:
            conn.execute(text("insert into t values (9)"))
        with engine.connect() as conn:
            assert conn.execute(text("select x from t")).scalars().all() == [9]  # the cut rows rolled back
    else:  # what it guards against, still so in SQLAlchemy and sqlite3
        with pytest.raises(Exception, match="database is locked"):
            with engine.begin() as conn:
                conn.execute(text("insert into t values (9)"))
