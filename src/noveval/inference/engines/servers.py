"""What serves a model for the length of one inference job.

``llamacpp`` and ``vllm`` start a local OpenAI-compatible server (same lifecycle: free port, start,
wait for health, stop), ``api`` talks to a hosted base URL. The server's output goes to the
rule's log. A local server runs under ``noveval.inference.engines.guard``, which stops it when the
job ends, even when the job is killed with ``kill -9``.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import requests

from noveval.core import assets
from noveval.core.files import NO_SPACE
from noveval.core.registry import ModelSpec, RegistryError
from noveval.inference.engines.client import Endpoint
from noveval.inference.weights import LocalWeights

log = logging.getLogger(__name__)

STOP_GRACE_S = 30  # seconds a server gets to exit after SIGTERM before SIGKILL
PORT_ATTEMPTS = 3  # starts on a new port after a port clash (taken between probe and bind)
PORT_CLASH = re.compile(r"address already in use", re.IGNORECASE)
# Not passed to a server: vLLM's key, port and permission for a context past the model's (its
# other VLLM_* settings are the site's to choose), the llama.cpp server's key, settings file
# (CONFIG_FILE replaces our command line) and address (HOST and PORT override ours) and the
# OpenAI SDK's (a server must not call out to a hosted API). The key a server demands is ours: a
# random one per server, in its engine's variable.
DROPPED_PREFIXES = ("OPENAI_",)
DROPPED_VARIABLES = frozenset(
    {
        "VLLM_API_KEY",
        "VLLM_PORT",
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
        "API_KEY",
        "CONFIG_FILE",
        "HOST",
        "PORT",
    }
)
# Where each engine's server reads the key it demands (vLLM: the value of --api-key; the
# llama-cpp-python server: its settings' api_key). The environment, unlike the command line,
# is not readable by other users of the node.
KEY_VARIABLES = {"vllm": "VLLM_API_KEY", "llamacpp": "API_KEY"}
PROBE_MESSAGES = ({"role": "user", "content": "Hello"},)


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
    """The registry's GPU count; an error when the job sees fewer (CUDA_VISIBLE_DEVICES).

    A job that sees more serves on the registry's count (a size that divides the model's heads).
    """
    wanted, visible = max(spec.gpus, 1), visible_gpus()
    if visible and visible < wanted:
        raise RegistryError(
            f"model '{spec.name}': the registry asks for {wanted} GPUs, the job sees {visible} "
            f"(CUDA_VISIBLE_DEVICES={os.environ['CUDA_VISIBLE_DEVICES']})"
        )
    if visible > wanted:
        log.info(
            "%s: the job sees %d GPUs, serving on the registry's %d", spec.name, visible, wanted
        )
    return wanted


def server_key() -> str:
    """A random key for one server: only the job that started it can call it."""
    return secrets.token_urlsafe(32)


def server_environment(
    engine: str, key: str, weights: LocalWeights | None = None
) -> dict[str, str]:
    """This job's environment without the variables that change how a server serves or answers,
    with the server's ``key`` in its engine's variable; with ``weights``, the hub switched off and
    its cache set to theirs."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(DROPPED_PREFIXES) and name not in DROPPED_VARIABLES
    }
    return {**kept, KEY_VARIABLES[engine]: key, **(weights.environment() if weights else {})}


def usable_threads(requested: int) -> int:
    """``requested`` compute threads, but no more than the CPUs this process may run on (its
    affinity: a SLURM job bound to some of a node's cores, a process pinned to one core). More
    threads than CPUs spin at llama.cpp's and torch's barriers on shared cores, which slows them
    severalfold."""
    return max(1, min(requested, len(os.sched_getaffinity(0))))


def server_command(
    spec: ModelSpec, port: int, threads: int, weights: LocalWeights | None = None
) -> list[str]:
    """The command line that serves ``spec`` on ``port``.

    vLLM serves ``weights`` (the snapshot folder rule weights downloaded, at its pinned
    revision) when given; without them, the registry's hub id at its revision.
    """
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
            str(usable_threads(threads)),
            # prompt processing: llama-cpp-python's default is every CPU of the machine
            "--n_threads_batch",
            str(usable_threads(threads)),
            *spec.extra_server_args,
        ]
    if spec.engine == "vllm":
        model = [str(weights.snapshot)] if weights else [spec.reference]
        if not weights and spec.revision:
            model += ["--revision", spec.revision]
        command = [
            "vllm",
            "serve",
            *model,
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


class PortClash(RuntimeError):
    """The server could not bind its port: another process took it after the probe."""


class ServerRefused(RuntimeError):
    """The server is up but refuses a chat request (4xx): every call of the job would fail."""


def check_alive(process: subprocess.Popen, log_path: str | Path, log_start: int) -> None:
    """Raise when the server has exited: a port clash when its log says so."""
    if process.poll() is None:
        return
    with open(log_path, encoding="utf-8", errors="replace") as server_log:
        server_log.seek(log_start)
        output = server_log.read()
    if PORT_CLASH.search(output):
        raise PortClash(f"model server could not bind its port; see {log_path}")
    if NO_SPACE.search(output):
        full = [line.strip() for line in output.splitlines() if NO_SPACE.search(line)][-1]
        raise OSError(
            errno.ENOSPC,
            f"model server exited with code {process.returncode} before it was ready: no space "
            f"left on a device it writes to ({full}). Free space (the weights cache, the server's "
            f"caches, the results folder) and rerun (docs/recovery.md); see {log_path}",
        )
    raise RuntimeError(
        f"model server exited with code {process.returncode} before it was ready; see {log_path}"
    )


def authorization(key: str) -> dict[str, str]:
    """The header a server started with ``key`` demands."""
    return {"Authorization": f"Bearer {key}"}


def check_chat(base_url: str, spec: ModelSpec, key: str, messages=PROBE_MESSAGES) -> None:
    """One real 1-token chat request with ``messages`` (the roles and text of the job's first
    call: a chat template that refuses its system message fails here); a 4xx fails with the
    server's message."""
    body = {
        "model": spec.name,
        "messages": list(messages),
        "max_tokens": 1,
        **spec.request_options(),
    }
    answer = requests.post(
        f"{base_url}/chat/completions", json=body, headers=authorization(key), timeout=120
    )
    if 400 <= answer.status_code < 500:
        raise ServerRefused(
            f"model '{spec.name}': the server refuses a chat request "
            f"({answer.status_code}): {answer.text[:2000]}"
        )
    answer.raise_for_status()


def wait_until_ready(
    base_url: str,
    spec: ModelSpec,
    process: subprocess.Popen,
    timeout_s: float,
    log_path: str | Path,
    key: str,
    log_start: int = 0,
    messages=PROBE_MESSAGES,
) -> None:
    """Poll ``/models`` until it lists the model, then send one chat request of ``messages``;
    fail early if the server dies (``PortClash`` when it could not bind) or refuses the chat
    request."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        check_alive(process, log_path, log_start)
        with contextlib.suppress(requests.RequestException, ValueError):
            models = requests.get(f"{base_url}/models", headers=authorization(key), timeout=5)
            if models.ok and spec.name in {m.get("id") for m in models.json().get("data", [])}:
                check_chat(base_url, spec, key, messages)
                check_alive(process, log_path, log_start)  # not another job's server on our port
                return
        time.sleep(0.5)
    raise TimeoutError(f"model server not ready after {timeout_s:.0f} s; see {log_path}")


def guarded(command: list[str]) -> list[str]:
    """``command`` run by the guard, which stops the server when this job ends, however it ends."""
    guard = [
        sys.executable,
        "-m",
        "noveval.inference.engines.guard",
        str(os.getpid()),
        str(STOP_GRACE_S),
    ]
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
    spec: ModelSpec,
    log_path: str | Path,
    startup_timeout_s: float = 300,
    threads: int = 1,
    weights: LocalWeights | None = None,
    probe_messages=PROBE_MESSAGES,
) -> Iterator[Endpoint]:
    """Yield an endpoint for ``spec``; a local server lives exactly as long as the block.

    ``weights``: the downloaded snapshot a vLLM server reads, offline (see
    noveval.inference.weights). ``probe_messages``: the readiness probe's chat messages (the job's
    first call's, so the probe has the shape of the job's requests). A local server demands a
    random key of its own.
    """
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
    key = server_key()
    for attempt in range(1, PORT_ATTEMPTS + 1):
        port = free_port()
        command = server_command(spec, port, threads, weights)
        base_url = f"http://127.0.0.1:{port}/v1"
        log.info("starting %s server: %s", spec.engine, " ".join(command))
        log.info("CUDA_VISIBLE_DEVICES=%s", os.environ.get("CUDA_VISIBLE_DEVICES", "(unset)"))
        with open(log_path, "a", encoding="utf-8") as server_log:
            log_start = server_log.tell()
            # A session of its own: signals sent to the job's terminal or process group (Ctrl-C,
            # Snakemake stopping its jobs) reach the job, whose stop() then ends the server.
            process = subprocess.Popen(
                guarded(command),
                stdout=server_log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=server_environment(spec.engine, key, weights),
            )
        started = time.monotonic()
        try:
            wait_until_ready(
                base_url,
                spec,
                process,
                startup_timeout_s,
                log_path,
                key,
                log_start,
                probe_messages,
            )
            break
        except PortClash:
            stop(process)
            if attempt == PORT_ATTEMPTS:
                raise
            log.warning("port %d was taken before the server bound it; retrying", port)
        except BaseException:
            stop(process)
            raise
    try:
        log.info("%s ready at %s after %.1f s", spec.name, base_url, time.monotonic() - started)
        yield Endpoint(
            base_url=base_url,
            api_key=key,
            served_model=spec.name,
            extra_body=spec.request_options() or None,
            token_field=spec.token_field,
        )
    finally:
        stop(process)
        log.info("%s server stopped", spec.name)
