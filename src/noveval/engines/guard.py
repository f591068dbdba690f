"""The guard between an inference job and its model server: the server never outlives the job.

``python -m noveval.engines.guard JOB_PID GRACE_S COMMAND...`` runs COMMAND (the server) in a
process group of its own and waits for it. The kernel sends the guard SIGTERM when the job dies,
even by ``kill -9`` (Linux ``PR_SET_PDEATHSIG``); the job's own stop sends it too. On SIGTERM the
guard stops the server's whole group (a vLLM server's engine and worker processes included):
SIGTERM, then SIGKILL after GRACE_S seconds. It exits with the server's exit code. Should the
guard itself be killed, the kernel kills the server (its own parent-death signal, SIGKILL).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
LIBC = ctypes.CDLL(None, use_errno=True)


def die_with(parent_pid: int, signum: int) -> bool:
    """Have the kernel send ``signum`` when the parent dies; False when ``parent_pid``, the
    parent this process was started by, is already gone."""
    if LIBC.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return os.getppid() == parent_pid


def die_with_guard(guard_pid: int) -> None:
    """In the server, before it starts: die with the guard."""
    if not die_with(guard_pid, signal.SIGKILL):
        os._exit(1)


def run(job_pid: int, grace_s: float, command: list[str]) -> int:
    """Run ``command`` until it exits or this process gets SIGTERM; return its exit code."""
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    if not die_with(job_pid, signal.SIGTERM):
        return 1
    guard_pid = os.getpid()
    server = subprocess.Popen(
        command, process_group=0, preexec_fn=lambda: die_with_guard(guard_pid)
    )
    while server.poll() is None and not stopping.wait(0.2):
        pass
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError):  # what is left of the group: stragglers
        os.killpg(server.pid, signal.SIGKILL)
    code = server.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(run(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]))
