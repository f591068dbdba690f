"""The guard between an inference job and its model server: the server never outlives the job.

``python -m noveval.inference.engines.guard JOB_PID GRACE_S COMMAND...`` runs COMMAND (the server)
in a process group of its own and watches both: when the job is gone (killed, even by ``kill -9``:
the guard's parent is no longer JOB_PID) or asks it to stop (SIGTERM), the guard stops the server's
whole group, a vLLM server's engine and worker processes included: SIGTERM, then SIGKILL after
GRACE_S seconds. It exits with the server's exit code. On Linux the server also dies with the
guard (a parent-death signal), should the guard itself be killed.
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
POLL_S = 0.2


def die_with_parent(parent_pid: int) -> None:
    """In the server, before it starts: have the kernel SIGKILL it when the guard dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:  # the guard died before the signal was set
        os._exit(1)


def run(job_pid: int, grace_s: float, command: list[str]) -> int:
    """Run ``command`` until it exits, the job dies or SIGTERM comes; return its exit code."""
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    if os.getppid() != job_pid:
        return 1
    guard_pid = os.getpid()
    server = subprocess.Popen(
        command,
        process_group=0,
        preexec_fn=(lambda: die_with_parent(guard_pid)) if sys.platform == "linux" else None,
    )
    while server.poll() is None and os.getppid() == job_pid and not stopping.wait(POLL_S):
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
