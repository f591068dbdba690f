"""Faults injected for real: a hard-killed inference job leaves no model server; bad data files
of both tracks fail with one message naming the file and every bad record."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

# An inference job reduced to its server: serve() the real SmolLM2 llama.cpp server, say where.
SERVING_JOB = """
import sys, time
from noveval.engines.servers import serve
from noveval.registry import load_registry

spec = load_registry(sys.argv[1]).model("smollm2-135m")
with serve(spec, sys.argv[2], startup_timeout_s=120, threads=1) as endpoint:
    print(endpoint.base_url, flush=True)
    time.sleep(300)
"""


def processes_with(argument: str) -> list[int]:
    """Live processes (not zombies) whose command line holds ``argument`` as one word."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # the process ended while we looked
            continue
        if argument.encode() in words and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.model
@pytest.mark.parametrize("killed", ["job", "guard"])
def test_killed_job_leaves_no_model_server(tmp_path, killed):
    """``kill -9`` of the inference job, or of the guard between it and its server, ends the
    server within seconds."""
    log_path = tmp_path / "server.log"
    job = subprocess.Popen(
        [sys.executable, "-c", SERVING_JOB, str(REPO / "config" / "models.yaml"), str(log_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = job.stdout.readline().strip()
        assert base_url, f"the job did not serve: {log_path.read_text()[-2000:]}"
        port = base_url.rsplit(":", 1)[1].split("/")[0]
        serving = processes_with(port)
        guards = set(processes_with("noveval.engines.guard")) & set(serving)
        assert len(serving) == 2 and len(guards) == 1, serving
        # The server keeps a session of its own: the job's terminal signals do not reach it.
        assert all(os.getsid(pid) != os.getsid(job.pid) for pid in serving)
        os.kill(job.pid if killed == "job" else guards.pop(), signal.SIGKILL)
        deadline = time.monotonic() + 15
        while processes_with(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert processes_with(port) == [], f"left behind after kill -9 of the {killed}: {serving}"
    finally:
        job.kill()
        job.wait()
