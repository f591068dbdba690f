"""What serves a model for the length of one inference job.

``llamacpp`` and ``vllm`` start a local OpenAI-compatible server (same lifecycle: free port, start,
wait for health, stop), ``api`` talks to a hosted base URL. The server's output goes to the
rule's log. A local server runs under ``noveval.engines.guard``, which stops it when the job ends,
even when the job is killed with ``kill -9``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import requests

from noveval import assets
from noveval.engines.client import Endpoint
from noveval.registry import ModelSpec, RegistryError

log = logging.getLogger(__name__)

LOCAL_KEY = "noveval-local"
STOP_GRACE_S = 30  # seconds a server gets to exit after SIGTERM before SIGKILL


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def visible_gpus() -> int:
    """GPUs this job was given (CUDA_VISIBLE_DEVICES), 0 when none are set."""
    devices = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    return len([d for d in devices.split(",") if d.strip()]) if devices else 0


def tensor_parallel_size(spec: ModelSpec) -> int:
    """GPUs the job got (CUDA_VISIBLE_DEVICES); the registry's count when none are set."""
    visible = visible_gpus()
    if visible and spec.gpus and visible != spec.gpus:
        log.warning("%s: registry asks for %d GPUs, the job sees %d", spec.name, spec.gpus, visible)
    return visible or max(spec.gpus, 1)


def server_command(spec: ModelSpec, port: int, threads: int) -> list[str]:
    """The command line that serves ``spec`` on ``port``."""
    if spec.engine == "llamacpp":
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            assets.resolve(spec.reference),
            "--model_alias",
            spec.name,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(spec.context_length),
            "--n_threads",
            str(threads),
            *spec.extra_server_args,
        ]
    if spec.engine == "vllm":
        command = [
            "vllm",
            "serve",
            spec.reference,
            "--served-model-name",
            spec.name,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--tensor-parallel-size",
            str(tensor_parallel_size(spec)),
            "--max-model-len",
            str(spec.context_length),
            "--seed",
            "0",
        ]
        if spec.reasoning_parser:
            command += ["--reasoning-parser", spec.reasoning_parser]
        if spec.chat_template:
            command += ["--chat-template", assets.resolve(spec.chat_template)]
        return [*command, *spec.extra_server_args]
    raise RegistryError(f"model '{spec.name}': engine '{spec.engine}' starts no server")


def wait_until_healthy(base_url: str, process: subprocess.Popen, timeout_s: float, log_path):
    """Poll ``/models`` until the server answers; fail early if it dies."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"model server exited with code {process.returncode} before it was ready; "
                f"see {log_path}"
            )
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"{base_url}/models", timeout=5).status_code == 200:
                return
        time.sleep(0.5)
    raise TimeoutError(f"model server not ready after {timeout_s:.0f} s; see {log_path}")


def guarded(command: list[str]) -> list[str]:
    """``command`` run by the guard, which stops the server when this job ends, however it ends."""
    guard = [sys.executable, "-m", "noveval.engines.guard", str(os.getpid()), str(STOP_GRACE_S)]
    return [*guard, *command]


def stop(process: subprocess.Popen) -> None:
    """Have the guard stop the server (SIGTERM, SIGKILL after the grace) and wait for it."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_S + 10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def serve(
    spec: ModelSpec, log_path: str | Path, startup_timeout_s: float = 300, threads: int = 1
) -> Iterator[Endpoint]:
    """Yield an endpoint for ``spec``; a local server lives exactly as long as the block."""
    if spec.engine == "api":
        key = os.environ.get(spec.api_key_env or "")
        if not key:
            raise RegistryError(f"model '{spec.name}': set the {spec.api_key_env} variable")
        yield Endpoint(
            base_url=spec.base_url,
            api_key=key,
            served_model=spec.reference,
            api=spec.api,
            token_field=spec.token_field,
        )
        return
    port = free_port()
    command = server_command(spec, port, threads)
    base_url = f"http://127.0.0.1:{port}/v1"
    log.info("starting %s server: %s", spec.engine, " ".join(command))
    log.info("CUDA_VISIBLE_DEVICES=%s", os.environ.get("CUDA_VISIBLE_DEVICES", "(unset)"))
    with open(log_path, "a", encoding="utf-8") as server_log:
        # A session of its own: signals sent to the job's terminal or process group (Ctrl-C,
        # Snakemake stopping its jobs) reach the job, whose stop() then ends the server in order.
        process = subprocess.Popen(
            guarded(command), stdout=server_log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        started = time.monotonic()
        wait_until_healthy(base_url, process, startup_timeout_s, log_path)
        log.info("%s ready at %s after %.1f s", spec.name, base_url, time.monotonic() - started)
        yield Endpoint(
            base_url=base_url,
            api_key=LOCAL_KEY,
            served_model=spec.name,
            extra_body=spec.request_options() or None,
            token_field=spec.token_field,
        )
    finally:
        stop(process)
        log.info("%s server stopped", spec.name)
