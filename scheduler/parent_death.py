"""Pool processes die with their parent, whatever kills it (SIGKILL included): nobody
would record their results, and a search left running burns a core for hours.

On Linux the kernel sends the parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``);
elsewhere a thread watches a pipe whose write end only the parent holds, and ends the
process when the read comes back empty (the parent is gone, its end closed by the kernel).
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1


class ParentWatch:
    """The parent's side: a pipe made before the pool forks; the children get both ends
    and keep the read end (:func:`die_with_parent`)."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            os.close(fd)


def _set_pdeathsig() -> bool:
    """Ask the kernel for SIGKILL when the parent dies; False where there is no prctl."""
    if not sys.platform.startswith("linux"):
        return False
    # the process's own symbols, libc's among them: find_library("c") would run ldconfig
    # (1.6 ms in each pool process, while the other waits for its first task)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return True


def _watch_pipe(read_fd: int) -> None:
    """Block on the pipe; an empty read means every write end is closed: the parent died."""
    while os.read(read_fd, 1):
        pass
    os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent(parent_pid: int, read_fd: int, write_fd: int, *, use_prctl: bool = True) -> None:
    """In a child of ``parent_pid`` (forked with both ends of a :class:`ParentWatch`):
    end this process when the parent dies, by the kernel's parent-death signal or, without
    it, by watching the pipe."""
    os.close(write_fd)  # this copy of the write end would keep the pipe open for ever
    if use_prctl and _set_pdeathsig():
        os.close(read_fd)
    else:
        threading.Thread(target=_watch_pipe, args=(read_fd,), name="parent-watch", daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the watch began
        os.kill(os.getpid(), signal.SIGKILL)
