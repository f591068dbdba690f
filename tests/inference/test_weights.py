"""Rule weights against a loopback hub: one download per model into the site's cache, a manifest,
nothing fetched again, the vLLM command line on the snapshot with the hub off, gated models."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO, planned_jobs, run_snakemake, snakemake_env, write_yaml
from loopback_hub import LoopbackHub, Repository
from safetensors.numpy import save
from tokenizers import Tokenizer, models, pre_tokenizers

from noveval.cluster.preflight.weights import pinned_check
from noveval.core.registry import RegistryError, load_registry
from noveval.inference.engines.servers import server_command, server_environment
from noveval.inference.weights import (
    WeightsError,
    download,
    downloadable,
    local_weights,
    ran_at,
    require_room,
    scorer_weights_inputs,
    snapshot_folder,
    use_offline,
    weights_inputs,
)
from noveval.novbench import tables
from noveval.novbench.tables import SCORERS
from noveval.planning.table import weights_table
from noveval.reproduction.conditions import Conditions, flat
from noveval.reproduction.novbench import novbench_run_conditions

REPO_ID = "noveval-test/tiny-llm"
GATED_ID = "noveval-test/gated-llm"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
OLDER = "89abcdef0123456789abcdef0123456789abcdef"
SHARDS = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
# What vLLM reads: top-level files, the indexed shards; not the other formats or checkpoints.
SERVED = {
    "README.md",
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "model.safetensors.index.json",
    *SHARDS,
}
QWEN3_8B = "b968826d9c46dd6066d109eabc6255188de91218"  # config/models.yaml
GPT_OSS_120B = "b5c939de8f754692c1647ca79fbf85e8c1e70f8a"


def tiny_model() -> dict[str, bytes]:
    """A small model's files in the hub's layout (two safetensors shards and their index)."""
    vocabulary = {"[UNK]": 0, "novel": 1, "idea": 2, "review": 3}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    embed = np.arange(16, dtype=np.float32).reshape(4, 4)
    head = np.ones((4, 4), dtype=np.float32)
    index = {
        "metadata": {"total_size": embed.nbytes + head.nbytes},
        "weight_map": {"model.embed_tokens.weight": SHARDS[0], "lm_head.weight": SHARDS[1]},
    }
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 4}
    return {
        "README.md": b"# tiny-llm\n",
        "config.json": json.dumps(config).encode(),
        "tokenizer.json": tokenizer.to_str().encode(),
        "tokenizer_config.json": b'{"tokenizer_class": "PreTrainedTokenizerFast"}',
        "model.safetensors.index.json": json.dumps(index).encode(),
        SHARDS[0]: save({"model.embed_tokens.weight": embed}),
        SHARDS[1]: save({"lm_head.weight": head}),
        "consolidated.safetensors": save({"all": embed}),
        "pytorch_model.bin": b"\0" * 64,
        "original/consolidated.00.pth": b"\0" * 64,
    }


@pytest.fixture
def hub():
    files = tiny_model()
    older = {name: data for name, data in files.items() if name != "README.md"}
    repositories = {
        REPO_ID: Repository({COMMIT: files, OLDER: older}, main=COMMIT),
        GATED_ID: Repository({COMMIT: files}, main=COMMIT, gated=True),
    }
    with LoopbackHub(repositories) as server:
        yield server


def registry_with_test_models(tmp_path):
    """The registry plus three vLLM models on the loopback hub: pinned, unpinned, gated."""
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    common = {"engine": "vllm", "gpus": 1, "context_length": 2048, "download_gb": 0.001}
    registry["models"].update(
        {
            "tiny-vllm": {**common, "reference": REPO_ID, "revision": OLDER},
            "tiny-vllm-main": {**common, "reference": REPO_ID, "revision": None},
            "gated-vllm": {**common, "reference": GATED_ID, "revision": COMMIT},
        }
    )
    return write_yaml(tmp_path / "models.yaml", registry)


@pytest.mark.workflow
def test_weights_rule_downloads_once_and_jobs_serve_the_snapshot_offline(
    tmp_path, tiny_config, hub
):
    cache = tmp_path / "shared-cache"
    site = write_yaml(tmp_path / "site.yaml", {"weights_cache": str(cache)})
    registry_path = registry_with_test_models(tmp_path)
    env = snakemake_env(HF_ENDPOINT=hub.endpoint, NOVEVAL_SLURM_SITE=str(site), HF_TOKEN="")
    first = tiny_config("first.yaml", top={"registry": str(registry_path)})
    results = tmp_path / "results"
    target = f"{results}/weights/tiny-vllm.json"
    run_snakemake("--configfile", str(first), "--cores", "1", target, env=env)

    # The cache has the hub's layout; the snapshot holds what vLLM reads, at the pinned commit.
    storage = cache / "models--noveval-test--tiny-llm"
    snapshot = storage / "snapshots" / OLDER
    served = SERVED - {"README.md"}  # not in the older commit
    in_snapshot = {p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file()}
    assert in_snapshot == served
    assert len(list((storage / "blobs").iterdir())) == len(served)
    assert sorted(hub.file_requests()) == sorted(f"/{REPO_ID}/resolve/{OLDER}/{f}" for f in served)
    manifest = json.loads((results / "weights" / "tiny-vllm.json").read_text())
    sizes = {name: len(data) for name, data in tiny_model().items()}
    assert manifest == {
        "model": "tiny-vllm",
        "repo_id": REPO_ID,
        "revision": OLDER,
        "pinned": True,
        "cache_dir": str(cache),
        "snapshot": str(snapshot),
        "files": [{"path": name, "bytes": sizes[name]} for name in sorted(served)],
        "bytes": sum(sizes[name] for name in served),
        "added_bytes": sum(sizes[name] for name in served),
        "locked": False,
    }

    # Another results folder on the same cache: nothing is fetched again; an unpinned model is
    # downloaded at main's commit when the config allows it; a gated model fails with the steps.
    hub.requests.clear()
    second = tiny_config(
        "second.yaml",
        top={
            "registry": str(registry_path),
            "results": str(tmp_path / "again"),
            "weights": {"allow_unpinned": True},
        },
    )
    models = ("tiny-vllm", "tiny-vllm-main", "gated-vllm")
    targets = [f"{tmp_path}/again/weights/{model}.json" for model in models]
    outcome = run_snakemake(
        "--configfile", str(second), "--cores", "1", "--keep-going", *targets, check=False, env=env
    )
    assert outcome.returncode != 0
    again = json.loads((tmp_path / "again" / "weights" / "tiny-vllm.json").read_text())
    assert again["added_bytes"] == 0 and again["snapshot"] == str(snapshot)
    main = json.loads((tmp_path / "again" / "weights" / "tiny-vllm-main.json").read_text())
    assert (main["revision"], main["pinned"]) == (COMMIT, False)
    assert {f["path"] for f in main["files"]} == SERVED
    # main's commit shares every blob but README.md with the pinned one: only that file is sent
    assert hub.file_requests() == [f"/{REPO_ID}/resolve/{COMMIT}/README.md"]
    gated_log = (tmp_path / "again" / "logs" / "weights" / "gated-vllm.log").read_text()
    assert (
        f"model 'gated-vllm': the Hugging Face hub refused {GATED_ID} (403): the model is gated "
        "or private and this host has no token with access. 1) sign in at "
        f"https://huggingface.co/{GATED_ID} and accept the model's licence"
    ) in gated_log
    assert "export HF_TOKEN=<token>" in gated_log
    assert not (tmp_path / "again" / "weights" / "gated-vllm.json").exists()

    # The job's command line: vLLM serves the snapshot at the pinned commit, the hub switched off.
    registry = load_registry(registry_path)
    spec = registry.model("tiny-vllm")
    assert weights_inputs(spec, str(results)) == [f"{results}/weights/tiny-vllm.json"]
    assert weights_inputs(registry.model("smollm2-135m"), str(results)) == []
    weights = local_weights(results / "weights" / "tiny-vllm.json")
    command = server_command(spec, 8123, threads=8, weights=weights)
    assert command[:3] == ["vllm", "serve", str(snapshot)] and "--revision" not in command
    environment = server_environment("vllm", "a-key", weights)
    assert environment["HF_HUB_OFFLINE"] == "1" and environment["HF_HUB_CACHE"] == str(cache)

    # Read as vLLM reads it, with the hub gone: the folder, and a file by hub id at the commit.
    hub.shutdown()
    reader = textwrap.dedent(
        """
        import json, sys
        from huggingface_hub import hf_hub_download
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        folder, repo_id, revision = sys.argv[1:]
        index = json.load(open(f"{folder}/model.safetensors.index.json"))["weight_map"]
        print(json.dumps({
            "by_id": hf_hub_download(repo_id, "config.json", revision=revision),
            "tokens": Tokenizer.from_file(f"{folder}/tokenizer.json").encode("novel idea").ids,
            "sums": {k: float(load_file(f"{folder}/{f}")[k].sum()) for k, f in index.items()},
        }))
        """
    )
    read = subprocess.run(
        [sys.executable, "-c", reader, command[2], REPO_ID, OLDER],
        env={**environment, "HF_ENDPOINT": hub.endpoint},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout) == {
        "by_id": str(snapshot / "config.json"),
        "tokens": [1, 2],
        "sums": {"model.embed_tokens.weight": 120.0, "lm_head.weight": 16.0},
    }


NEWER = "fedcba9876543210fedcba9876543210fedcba98"


def downloads_through(env: dict, *calls: list) -> list[dict]:
    """The records of :func:`noveval.inference.weights.download` called with each of ``calls``, in a
    process whose hub is the environment's (huggingface_hub reads HF_ENDPOINT at import)."""
    script = (
        "import json, sys\nfrom noveval.inference.weights import download\n"
        "print(json.dumps([download(*call) for call in json.loads(sys.argv[1])]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(calls)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def git_blob_id(content: bytes) -> str:
    """The git object id of a file's content (the hub's digest of a file not in LFS)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@pytest.mark.workflow
def test_an_unpinned_model_is_locked_at_its_first_download_and_stays_there(
    tmp_path, tiny_config, hub
):
    """weights.allow_unpinned: lock resolves main at the first download (target fetch_weights:
    every download of the grid) and records it in the lock file; after main moves, a fresh
    results folder (the same lock) downloads the locked commit; a registry revision wins over the
    lock; the reproduction report's conditions and the NovBench table's notes name the commit."""
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    registry["models"]["qwen3-8b"].update(reference=REPO_ID, revision=None)
    registry_path = write_yaml(tmp_path / "models.yaml", registry)
    lock = tmp_path / "weights.lock.yaml"
    site = write_yaml(tmp_path / "site.yaml", {"weights_cache": str(tmp_path / "cache")})
    env = snakemake_env(HF_ENDPOINT=hub.endpoint, NOVEVAL_SLURM_SITE=str(site), HF_TOKEN="")

    top = {
        "registry": str(registry_path),
        "weights": {"allow_unpinned": "lock", "lock": str(lock)},
    }
    target = tmp_path / "results" / "weights" / "qwen3-8b.json"
    config = tiny_config("lock.yaml", top=top, models=["qwen3-8b"])
    planned = run_snakemake("--configfile", str(config), "-n", "fetch_weights", env=env)
    assert [job for job in planned_jobs(planned.stdout) if job[0] == "weights"] == [
        ("weights", {"model": "qwen3-8b"})
    ]
    run_snakemake("--configfile", str(config), "--cores", "1", "fetch_weights", env=env)
    first = json.loads(target.read_text())
    entries = yaml.safe_load(lock.read_text())
    files = tiny_model()
    assert entries == {
        "qwen3-8b": {
            "repository": REPO_ID,
            "commit": COMMIT,
            "files": {name: f"git-sha1:{git_blob_id(files[name])}" for name in sorted(SERVED)},
        }
    }
    assert (first["revision"], first["pinned"], first["locked"]) == (COMMIT, False, True)

    # main moves on (a new README): a fresh download (another results folder, the same lock,
    # as rule weights calls it) still fetches the locked commit
    repository = hub.repositories[REPO_ID]
    repository.commits[NEWER] = {**files, "README.md": b"# tiny-llm, moved on\n"}
    repository.main = NEWER
    hub.requests.clear()
    manifest = tmp_path / "again" / "qwen3-8b.json"
    again, pinned = downloads_through(  # the second: a registry revision wins over the lock
        env,
        ["qwen3-8b", REPO_ID, None, str(tmp_path / "cache"), str(manifest), "lock", str(lock)],
        ["qwen3-8b", REPO_ID, OLDER, str(tmp_path / "cache"), str(tmp_path / "p.json"), "lock"],
    )
    assert (again["revision"], again["locked"]) == (COMMIT, True)
    assert hub.requests and not [p for _, p in hub.requests if NEWER in p or "/main" in p]
    assert yaml.safe_load(lock.read_text()) == entries
    assert (pinned["revision"], pinned["pinned"], pinned["locked"]) == (OLDER, True, False)

    # preflight's revisions check reads the lock
    check = pinned_check([load_registry(registry_path).model("qwen3-8b")], False, entries)
    assert check.ok and f"locked: qwen3-8b@{COMMIT[:12]}" in check.detail

    # the commit in the reproduction report's conditions and in the NovBench table's notes
    conditions = Conditions({"novbench": {"weights": {}}}, {}, {}).with_weights([str(manifest)])
    assert conditions.run["novbench"]["weights"] == {"qwen3-8b": COMMIT}
    row = SimpleNamespace(
        model="qwen3-8b", metric="dist_acc", dataset="emnlp2023", strategy="zero",
        perturbation="none",
    )  # fmt: skip
    run = {**conditions.run["novbench"], "prompts": "authors", "decoding": {}, "models": {}}
    run["settings"] = {}
    table = pd.DataFrame([{"model": "human", "n_papers": 3}])
    found = novbench_run_conditions(row, run, table, {}, "0" * 64)
    assert flat(found)["weights.commit"] == COMMIT
    summary = pd.DataFrame(
        [{"model": "qwen3-8b", "strategy": "zero", "perturbation": "none", "relevance": 3.4}]
    ).assign(**dict.fromkeys(SCORERS, "-"))
    markdown = tmp_path / "table.md"
    tables.write(summary, tmp_path / "table.csv", markdown, commits=ran_at([manifest]))
    assert f"Weights (hub commits): qwen3-8b {REPO_ID}@{COMMIT}." in markdown.read_text()


def test_an_unpinned_model_is_refused_without_the_setting(tmp_path):
    manifest = tmp_path / "tiny-vllm-main.json"
    with pytest.raises(WeightsError) as refused:
        download("tiny-vllm-main", REPO_ID, None, tmp_path / "cache", manifest)
    assert str(refused.value) == (
        "model 'tiny-vllm-main': no revision pinned for noveval-test/tiny-llm in "
        "config/models.yaml; pin a commit (revision: <40 hex digits>), or set "
        "weights.allow_unpinned: true in the config to download main and record its commit in "
        "the manifest (lock: and in the lock file, for every later download)"
    )
    assert not manifest.exists()


def test_the_plan_counts_each_open_models_download_once():
    registry = load_registry(REPO / "config" / "models.yaml")
    models = ["qwen3-8b", "gpt-4o", "qwen3-8b", "gpt-oss-120b", "smollm2-135m"]
    table = weights_table(models, registry)
    assert table.to_dict("records") == [
        {
            "model": "qwen3-8b",
            "reference": "Qwen/Qwen3-8B",
            "revision": QWEN3_8B,
            "download_gb": 16.4,
        },
        {
            "model": "gpt-oss-120b",
            "reference": "openai/gpt-oss-120b",
            "revision": GPT_OSS_120B,
            "download_gb": 65.3,
        },
        {"model": "total", "reference": "", "revision": "", "download_gb": pytest.approx(81.7)},
    ]


SCORER_ID = "noveval-test/tiny-scorer"


def test_a_hub_scorer_is_downloaded_pinned_and_read_with_the_hub_off(tmp_path, monkeypatch):
    """A scorer's repository: what the model files hold, sentence-transformers' module folder
    (kept) and other runtimes' copies (left out); its scoring job reads it from the cache."""
    files = {
        **tiny_model(),
        "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
        "onnx/model.onnx": b"\0" * 64,
        "rust_model.ot": b"\0" * 64,
    }
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    entry = {"reference": SCORER_ID, "revision": COMMIT, "download_gb": 0.001}
    registry["encoders"]["tiny-encoder"] = entry
    registry = load_registry(write_yaml(tmp_path / "models.yaml", registry))
    scorer = downloadable(registry, "tiny-encoder")
    assert (scorer.reference, scorer.revision) == (SCORER_ID, COMMIT)
    assert registry.encoder("tiny-encoder") == SCORER_ID
    names = ["all-minilm-l6-v2", "tiny-encoder", "tiny-encoder"]  # a packaged one: no download
    manifest = tmp_path / "results" / "weights" / "tiny-encoder.json"
    assert scorer_weights_inputs(registry, names, str(tmp_path / "results")) == [str(manifest)]

    cache = tmp_path / "cache"
    call = "import sys; from noveval.inference.weights import download; download(*sys.argv[1:])"
    arguments = ["tiny-encoder", SCORER_ID, COMMIT, str(cache), str(manifest)]
    with LoopbackHub({SCORER_ID: Repository({COMMIT: files}, main=COMMIT)}) as hub:
        done = subprocess.run(
            [sys.executable, "-c", call, *arguments],
            env=snakemake_env(HF_ENDPOINT=hub.endpoint, HF_TOKEN=""),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    record = json.loads(manifest.read_text())
    assert (record["revision"], record["pinned"]) == (COMMIT, True)
    assert {f["path"] for f in record["files"]} == SERVED | {"1_Pooling/config.json"}

    # The scoring job, with the hub gone: off the hub, on the cache, the snapshot by its id.
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_CACHE"):
        monkeypatch.setenv(variable, "")  # restored after the test
    located = use_offline([manifest])
    assert located == {SCORER_ID: str(snapshot_folder(cache, SCORER_ID, COMMIT))}
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["HF_HUB_CACHE"] == str(cache)
    folder = located[SCORER_ID]
    assert Tokenizer.from_file(f"{folder}/tokenizer.json").encode("novel idea").ids == [1, 2]
    assert json.loads(Path(folder, "1_Pooling", "config.json").read_text()) == {
        "pooling_mode_mean_tokens": True
    }


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"revision": COMMIT}, "encoders 'tiny-encoder': 'reference' is a required property"),
        ({"reference": SCORER_ID, "sha": COMMIT}, "encoders 'tiny-encoder': unknown key 'sha'"),
        ({"reference": SCORER_ID, "revision": "main"}, "revision: 'main' does not match"),
    ],
)
def test_a_hub_scorer_entry_is_checked(tmp_path, entry, message):
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    registry["encoders"]["tiny-encoder"] = entry
    with pytest.raises(RegistryError, match=message):
        load_registry(write_yaml(tmp_path / "models.yaml", registry))


def test_a_download_that_would_not_fit_is_refused_before_it_starts(tmp_path):
    with pytest.raises(WeightsError) as refused:
        require_room("qwen3-8b", tmp_path / "cache", needed_bytes=10**18)
    assert str(refused.value).startswith(
        f"model 'qwen3-8b': 1,000,000,000.0 GB to download into {tmp_path / 'cache'}, "
    )
    assert str(refused.value).endswith(
        "GB free there: free space, or point the site file's weights_cache at a larger file "
        "system (docs/recovery.md)"
    )
    require_room("qwen3-8b", tmp_path / "cache", needed_bytes=0)
