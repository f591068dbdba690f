"""The model server's start: tensor parallel from the registry, a cleaned environment, a port
clash retried, readiness through one real chat request (llama.cpp and loopback servers here)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pandas as pd
import pytest
import requests
from conftest import REPO
from loopback_api import LoopbackAPI

from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines import servers
from noveval.judges import verdicts
from noveval.novbench.parsing import parse_evaluation, strip_reasoning
from noveval.novbench.stages.parse import parse_responses

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SMOLLM = REGISTRY.model("smollm2-135m")
REFUSAL = "This model has no chat template: it cannot answer a chat request"


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_llama_cpp_gets_no_more_threads_than_the_cpus_the_job_may_run_on():
    """A job bound to one CPU (as SLURM binds jobs) serves SmolLM2 on one thread, for decoding
    and for prompts, whatever its rule gives it; an unbound one on what the rule gives, up to its
    CPUs (llama-cpp-python's own default for prompts is every CPU of the machine)."""
    cpus = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(cpus)})
        command = servers.server_command(SMOLLM, 8123, threads=2)
    finally:
        os.sched_setaffinity(0, cpus)
    assert option(command, "--n_threads") == option(command, "--n_threads_batch") == "1"
    assert servers.usable_threads(1) == 1 and servers.usable_threads(64) == len(cpus)
    command = servers.server_command(SMOLLM, 8123, threads=1)
    assert option(command, "--n_threads") == option(command, "--n_threads_batch") == "1"


def test_tensor_parallel_comes_from_the_registry(monkeypatch, caplog):
    caplog.set_level("INFO", logger=servers.__name__)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2,3")
    command = servers.server_command(REGISTRY.model("deepreviewer-14b"), 8123, threads=8)
    assert option(command, "--tensor-parallel-size") == "1"  # 10 KV heads: not 4
    assert "the job sees 4 GPUs, serving on the registry's 1" in caplog.text
    assert (
        option(
            servers.server_command(REGISTRY.model("gpt-oss-120b"), 1, 8), "--tensor-parallel-size"
        )
        == "2"
    )
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    with pytest.raises(
        RegistryError, match=r"asks for 2 GPUs, the job sees 1 \(CUDA_VISIBLE_DEVICES=3\)"
    ):
        servers.server_command(REGISTRY.model("gpt-oss-120b"), 8123, threads=8)


def test_server_environment_drops_what_changes_serving_and_sets_the_key(monkeypatch):
    dropped = ("VLLM_API_KEY", "VLLM_PORT", "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "API_KEY", "PORT")
    for name in (*dropped, "OPENAI_API_KEY", "VLLM_ATTENTION_BACKEND"):
        monkeypatch.setenv(name, "set-by-the-user")
    monkeypatch.setenv("HF_HOME", "/cache/hf")
    vllm = servers.server_environment("vllm", "key-1")
    assert vllm["VLLM_API_KEY"] == "key-1"  # the server's own key, not the user's
    assert not {"VLLM_PORT", "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "API_KEY", "PORT"} & set(vllm)
    assert "OPENAI_API_KEY" not in vllm
    assert vllm["VLLM_ATTENTION_BACKEND"] == "set-by-the-user"  # the site's choice, kept
    assert vllm["HF_HOME"] == "/cache/hf"
    llamacpp = servers.server_environment("llamacpp", "key-2")
    assert llamacpp["API_KEY"] == "key-2" and not {"VLLM_API_KEY", "PORT"} & set(llamacpp)


def test_each_server_has_a_random_key_off_its_command_line():
    keys = {servers.server_key() for _ in range(20)}
    assert len(keys) == 20 and min(map(len, keys)) >= 40
    command = servers.server_command(REGISTRY.model("qwen3-32b"), 8123, threads=8)
    assert "--api-key" not in command  # others on the node read command lines (ps), not environ


def test_the_probe_sends_the_jobs_messages_with_the_servers_key():
    """A server started with a key (loopback_api's ``key``) answers the probe of a job's first
    call's shape: its system message reaches the server, and a caller without the key is out."""
    server = LoopbackAPI()
    server.thread.start()
    server.key = servers.server_key()
    messages = [
        {"role": "system", "content": "You are a reviewer."},
        {"role": "user", "content": "Is this idea novel?"},
    ]
    try:
        base_url = server.base_url("chat")
        servers.check_chat(base_url, SMOLLM, server.key, messages)
        path, _, body = server.bodies[-1]
        assert path == "/v1/chat/completions" and body["messages"] == messages
        assert body["max_tokens"] == 1 and body["model"] == SMOLLM.name
        with pytest.raises(servers.ServerRefused, match=r"refuses a chat request \(401\)"):
            servers.check_chat(base_url, SMOLLM, "another-users-guess", messages)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.model
def test_server_ready_with_api_keys_in_the_environment_and_its_port_taken(
    monkeypatch, tmp_path, caplog
):
    """The real llama.cpp server would demand API_KEY; its first port is taken before it binds."""
    monkeypatch.setenv("API_KEY", "a-key-our-probe-does-not-send")
    monkeypatch.setenv("VLLM_API_KEY", "a-key-our-probe-does-not-send")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    ports = iter([taken.getsockname()[1]])
    real_free_port = servers.free_port
    monkeypatch.setattr(servers, "free_port", lambda: next(ports, None) or real_free_port())
    log_path = tmp_path / "server.log"
    with taken, servers.serve(SMOLLM, log_path, startup_timeout_s=120, threads=2) as endpoint:
        assert f":{taken.getsockname()[1]}/" not in endpoint.base_url
        models = requests.get(
            f"{endpoint.base_url}/models",
            headers=servers.authorization(endpoint.api_key),
            timeout=10,
        )
        assert models.status_code == 200  # the job's key; the user's API_KEY is not demanded
        assert requests.get(f"{endpoint.base_url}/models", timeout=10).status_code == 401
    assert "address already in use" in log_path.read_text().lower()
    assert "was taken before the server bound it; retrying" in caplog.text


class RefusingChat(BaseHTTPRequestHandler):
    """A server whose ``/v1/models`` lists the model and whose chat answers 400."""

    def do_GET(self):
        self.reply(200, {"object": "list", "data": [{"id": SMOLLM.name, "object": "model"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.reply(400, {"error": {"message": REFUSAL, "type": "BadRequestError"}})

    def reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_readiness_fails_on_a_refused_chat_request(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), RefusingChat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    process = subprocess.Popen(["sleep", "30"])  # the server process: alive throughout
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        with pytest.raises(servers.ServerRefused, match=r"refuses a chat request \(400\)") as error:
            servers.wait_until_ready(
                base_url, SMOLLM, process, 10, tmp_path / "server.log", key="a-key"
            )
        assert REFUSAL in str(error.value)
    finally:
        process.kill()
        process.wait()
        server.shutdown()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("drafting: novel? yes</think>\n\nThe answer", "The answer"),  # R1: <think> in the prompt
        ("<think>a</think>b</think>c", "c"),
        (
            "reasoning cut off by the token limit <think> more",
            "reasoning cut off by the token limit",
        ),
        (None, ""),
    ],
)
def test_one_strip_reasoning_for_both_tracks(text, expected):
    assert strip_reasoning(text) == expected
    assert verdicts.strip_reasoning is strip_reasoning


def test_reasoning_before_a_stray_closing_tag_is_no_answer():
    reasoning = 'Maybe {"novelty": 1}? Positive Novelty Evaluations\n- a draft item\n</think>'
    assert verdicts.parse_json_verdict(reasoning + "I cannot decide.", "pointwise") is None
    assert verdicts.parse_json_verdict(reasoning + '{"novelty": 0}', "pointwise") == 0
    assert parse_evaluation(reasoning).empty
    parsed = parse_evaluation(reasoning + "\nNegative Novelty Evaluations\n- the final item")
    assert parsed.texts == ["the final item"]


def test_an_r1_answer_cut_off_inside_its_reasoning_parses_as_empty(tmp_path):
    """The R1 distills' template opens <think>: an answer without </think> is unfinished."""
    flagged = {n for n, m in REGISTRY.models.items() if m.think_opened_by_template}
    assert flagged == {
        f"deepseek-r1-distill-{size}" for size in ("llama-8b", "qwen-14b", "llama-70b")
    }
    cut_off = "Okay, the paper claims\nPositive Novelty Evaluations\n- a new benchmark, so I"
    finished = "Let me think.\n</think>\nPositive Novelty Evaluations\n- a new benchmark"
    responses = pd.DataFrame(
        {
            "item_id": ["p1", "p2"],
            "request_id": ["r1", "r2"],
            "text": [cut_off, finished],
            "error": [None, None],
            "cell": ["zero-none", "zero-none"],  # the batch's column: the cell of each row
        }
    )
    responses.to_parquet(tmp_path / "responses.parquet")
    cell = {"model": "deepseek-r1-distill-llama-8b", "strategy": "zero", "perturbation": "none"}
    for think_opened, empty in [(True, [True, False]), (False, [False, False])]:
        parsed_path = tmp_path / f"parsed-{think_opened}.parquet"
        parse_responses(tmp_path / "responses.parquet", cell, parsed_path, think_opened)
        parsed = pd.read_parquet(parsed_path)
        assert parsed["empty"].tolist() == empty
        assert list(parsed["items_text"].iloc[1]) == ["a new benchmark"]
