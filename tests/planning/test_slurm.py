"""The workflow through `--profile profiles/slurm` on a real single-node SLURM cluster.

tests/slurm/start-cluster.sh starts munge, slurmctld and slurmd in a sandbox with two fake GPUs
(type a100); the test runs a tiny NovBench grid whose model (the local SmolLM2) asks for one GPU,
checks where and how every job ran, and compares the table with a local-executor run.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import (
    LOOPBACK_KEY,
    REPO,
    SNAKEMAKE,
    fresh_clone,
    loopback_registry,
    run_snakemake,
    sample_subset,
    snakemake_env,
    unavailable,
    write_yaml,
)
from loopback_hub import LoopbackHub, Repository

from noveval.cluster.preflight.findings import run_command
from noveval.cluster.preflight.nodes import driver_check, node_check, node_command

pytestmark = [pytest.mark.slurm, pytest.mark.workflow, pytest.mark.model]

SCRIPTS = REPO / "tests" / "slurm"
DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")
GPU_MODEL = "smollm2-135m-gpu"
COMMIT = "c" * 40
JOB_ID = re.compile(r"SLURM_JOB_ID=(\d+) CUDA_VISIBLE_DEVICES=(\S+)")
CI_SITE = SCRIPTS / "ci-site.yaml"
PAPER, WALK = "config/paper.yaml", "walk.yaml"  # the README's overlay, and the walk's
TEMPLATE = "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{% endfor %}"
# A vLLM model on the loopback hub (LoopbackHub), unpinned
TINY_VLLM = {
    "engine": "vllm",
    "reference": "org/tiny-vllm",
    "download_gb": 0.001,
    "context_length": 2048,
    "gpus": 1,
    "gpu_model": "a100",
    "throughput_tokens_per_s": 1000,  # the job limits' estimate
    "mem_mb": 3000,  # what the CI nodes have
}


def slurm_binary(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A running cluster: the environment that reaches it; stopped by PID at the end."""
    missing = [name for name in DAEMONS if slurm_binary(name) is None]
    if missing:
        unavailable(
            f"SLURM is not installed ({', '.join(missing)} missing); .ci/run installs Debian's "
            "slurm-wlm slurmctld slurmd slurm-client munge",
            "NOVEVAL_REQUIRE_SLURM",
        )
    sandbox = tmp_path_factory.mktemp("slurm")
    path = f"/usr/sbin:/sbin:{os.environ['PATH']}"
    started = subprocess.run(
        [SCRIPTS / "start-cluster.sh", sandbox],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        timeout=120,
    )
    try:
        assert started.returncode == 0, f"cluster did not start:\n{started.stdout}{started.stderr}"
        yield {
            "SLURM_CONF": str(sandbox / "etc" / "slurm.conf"),
            # the srun wrapper (it puts SLURM_CONF back for the job step), then this interpreter
            "PATH": f"{sandbox / 'bin'}:{Path(sys.executable).parent}:{path}",
        }
    finally:
        subprocess.run([SCRIPTS / "stop-cluster.sh", sandbox], timeout=60)


def tiny_run(tmp_path: Path, name: str, dataset: Path, registry: Path) -> tuple[list[str], Path]:
    """Config files of a one-paper, one-cell grid of the GPU model; and its results folder."""
    results = tmp_path / name
    overlay = write_yaml(
        tmp_path / f"{name}.yaml",
        {
            "registry": str(registry),
            "results": str(results),
            "decoding": {"max_tokens": 32},
            "novbench": {
                "datasets": {"sample": None, "tiny": str(dataset)},
                "models": [GPU_MODEL],
                "strategies": ["zero"],
                "perturbations": ["none"],
            },
        },
    )
    return ["--configfile", "config/config.yaml", str(overlay)], results


def gpu_registry(tmp_path: Path, source: Path = REPO / "config" / "models.yaml") -> Path:
    """The registry (``source``) plus the local SmolLM2 declared as a one-GPU model (as vLLM
    models are)."""
    registry = yaml.safe_load(source.read_text())
    local = registry["models"]["smollm2-135m"]
    registry["models"][GPU_MODEL] = {
        **local,
        "gpus": 1,
        "gpu_model": "a100",
        "cpus_per_gpu": 1,
        "mem_mb": 3000,
    }
    return write_yaml(tmp_path / "models.yaml", registry)


def scontrol_job(job_id: str, env: dict) -> dict[str, str]:
    """The fields of a finished job that slurmctld still holds (MinJobAge=600)."""
    shown = subprocess.run(
        ["scontrol", "show", "job", "--oneliner", job_id],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    return dict(re.findall(r"(\w+)=(\S*)", shown))


def test_workflow_on_slurm_matches_local_run(tmp_path, slurm_cluster):
    dataset = sample_subset(tmp_path, 1)
    registry = gpu_registry(tmp_path)
    env = snakemake_env(**slurm_cluster, NOVEVAL_SLURM_SITE=str(SCRIPTS / "ci-site.yaml"))
    configs, results = tiny_run(tmp_path, "on-slurm", dataset, registry)
    slurm_logs = tmp_path / "slurm-logs"
    profile = ["--profile", "profiles/slurm", "--cores", "2", "--slurm-logdir", str(slurm_logs)]
    # The same grid on the local executor, run meanwhile: the SLURM run mostly waits on its jobs.
    local_configs, local_results = tiny_run(tmp_path, "local", dataset, registry)
    with open(tmp_path / "local.log", "w") as log:
        local = subprocess.Popen(
            [*SNAKEMAKE, "novbench", "--profile", "profiles/local", *local_configs],
            cwd=REPO, env=snakemake_env(), stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        run_snakemake("novbench", *profile, *configs, env=env)
    except BaseException:
        local.terminate()
        raise
    finally:
        local_status = local.wait(timeout=900)
    assert local_status == 0, (tmp_path / "local.log").read_text()[-4000:]

    # Every job ran as a SLURM job: each rule log names its job id, and slurmctld knows it.
    logs = results / "logs" / "novbench" / "tiny"
    expected = {
        "papers": logs / "papers.log",
        "inputs": logs / "inputs-none.log",
        "requests": logs / GPU_MODEL / "zero-none" / "requests.log",
        "infer": logs / GPU_MODEL / "cells" / "1-of-1" / "infer.log",  # the batch's one chunk
        "parse": logs / GPU_MODEL / "zero-none" / "parse.log",
        "score": logs / GPU_MODEL / "score.log",
        "human": logs / "human" / "score.log",
        "table": logs / "table.log",
        "radar": logs / "sentiment_radar.log",
    }
    # ... but the gathering of the batch's chunks, which runs on the submit host
    gathered = logs / GPU_MODEL / "cells" / "responses.log"
    assert sorted(logs.rglob("*.log")) == sorted([*expected.values(), gathered])
    found = {step: JOB_ID.search(path.read_text()) for step, path in expected.items()}
    assert all(found.values()), {step: bool(match) for step, match in found.items()}
    job_of = {step: match.group(1) for step, match in found.items()}
    jobs = {job: scontrol_job(job, env) for job in set(job_of.values())}
    assert {fields["JobState"] for fields in jobs.values()} == {"COMPLETED"}

    # The GPU rule asked for its model's GPU and saw it; the others got none.
    infer = jobs[job_of["infer"]]
    assert infer["TresPerJob"] == "gres:gpu:a100:1" and infer["Partition"] == "gpu"
    assert found["infer"].group(2) == "0"
    cpu_steps = [step for step in job_of if step != "infer"]
    assert all(found[step].group(2) == "(unset)" for step in cpu_steps)
    assert all(jobs[job_of[step]]["Partition"] == "cpu" for step in cpu_steps)

    # Small CPU rules ran as groups: one SLURM job for each group.
    for group, steps in {
        "inputs": ("papers", "inputs"),
        "scores": ("parse", "score"),
        "report": ("table", "radar"),
    }.items():
        assert len({job_of[step] for step in steps}) == 1, (group, job_of)
        assert jobs[job_of[steps[0]]]["Comment"].startswith(f"rule_{group}_")
    assert len(jobs) == 6  # 9 rule jobs in 6 SLURM jobs
    assert (slurm_logs / "group_scores_novbench_parse_novbench_score").is_dir()

    # The same grid on the local executor gave the same table.
    on_slurm = pd.read_csv(results / "novbench" / "tiny" / "table.csv")
    local = pd.read_csv(local_results / "novbench" / "tiny" / "table.csv")
    pd.testing.assert_frame_equal(on_slurm, local)
    assert list(on_slurm["model"]) == ["human", GPU_MODEL] and (on_slurm["n_papers"] == 1).all()

    # The pilot of the same grid (no judges): its one job on the GPU partition, the measured file.
    pilot = write_yaml(tmp_path / "pilot.yaml", {"judges": {"datasets": {"sample": None}}})
    run_snakemake("pilot", *profile, *configs, str(pilot), env=env)
    pilot_log = results / "logs" / "pilot" / "novbench" / GPU_MODEL / "infer.log"
    pilot_job = scontrol_job(JOB_ID.search(pilot_log.read_text()).group(1), env)
    assert pilot_job["TresPerJob"] == "gres:gpu:a100:1" and pilot_job["Partition"] == "gpu"
    measured = pd.read_csv(results / "pilot" / "measured.csv")
    assert list(measured["model"]) == [GPU_MODEL] and list(measured["sent_calls"]) == [1]
    assert measured["server_start_s"].iloc[0] > 0 and measured["output_tokens_per_s"].iloc[0] > 0


def readme_step(readme: Path, number: int) -> tuple[str, list[str]]:
    """Step ``number`` of the README's cluster steps: its text and the commands of its fenced
    block, if any."""
    section = readme.read_text().split("## On a SLURM cluster")[1]
    step = re.split(r"^\d\. ", section.split("\n## ")[0], flags=re.MULTILINE)[number]
    block = re.search(r"```bash\n(.*?)```", step, re.DOTALL)
    return step, block.group(1).split("\n")[:-1] if block else []


def test_the_readme_cluster_steps_in_order_on_a_fresh_clone_end_in_a_green_preflight(
    tmp_path, slurm_cluster, loopback, monkeypatch
):
    """The README's steps "On a SLURM cluster", in order, on a fresh clone against the CI
    cluster, the loopback hub and the loopback provider. Step 1 (conda, the install) is not run:
    no conda here; the clone runs in this test environment with its own package first on the
    import path (tests/workflow/test_envs.py builds the jobs' environments with a conda
    stand-in). 2: the CI site file as profiles/slurm/site.yaml. 3: the hosted model's key (gpt-4o
    on the loopback provider). 4: the README's fenced preflight, dry run and plan, config/paper.yaml
    (its keys, GPUs and 640 GB are not to be had here) replaced by a small overlay: the SmolLM2
    GPU model, a tiny unpinned vLLM model on the loopback hub, locked at its first download as
    config/paper.yaml does, and gpt-4o. 5: target fetch_weights, the command preflight names.
    Then preflight again prints no FAIL, the GPU nodes' driver from an nvidia-smi stand-in
    (tests/nvidia/bin); without it, the driver check fails naming its fix."""
    clone = fresh_clone(tmp_path / "noveval")
    write_yaml(clone / "profiles" / "slurm" / "site.yaml", yaml.safe_load(CI_SITE.read_text()))
    env = snakemake_env(**slurm_cluster, **LOOPBACK_KEY, PYTHONPATH=str(clone / "src"))
    for variable in ("NOVEVAL_SLURM_SITE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN"):
        env.pop(variable, None)
    env["PATH"] = f"{REPO / 'tests' / 'nvidia' / 'bin'}:{env['PATH']}"  # the nodes' nvidia-smi
    registry = yaml.safe_load(
        gpu_registry(tmp_path, loopback_registry(tmp_path / "hosted.yaml", loopback, "gpt-4o"))
        .read_text()
    )  # fmt: skip
    registry["models"]["tiny-vllm"] = TINY_VLLM
    write_yaml(clone / "walk-models.yaml", registry)
    write_yaml(
        clone / "walk.yaml",
        {
            "registry": "walk-models.yaml",
            "novbench": {"models": [GPU_MODEL, "tiny-vllm", "gpt-4o"], "strategies": ["zero"]},
            "judges": {"datasets": {"sample": None}},
            "weights": {"allow_unpinned": "lock"},  # as config/paper.yaml
        },
    )
    step4, commands = readme_step(clone / "README.md", 4)
    assert len(commands) == 3 and all(PAPER in command for command in commands), step4
    preflight, dry_run, plan = (command.replace(PAPER, WALK) for command in commands)
    step5, _ = readme_step(clone / "README.md", 5)
    (target,) = re.findall(r"target `(\w+)` \(same config files\)", step5)
    fetch = f"snakemake --cores 1 {target} --configfile config/config.yaml {WALK}"
    files = {"tokenizer_config.json": json.dumps({"chat_template": TEMPLATE}).encode()}

    def shell(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True
        )

    with LoopbackHub({"org/tiny-vllm": Repository({COMMIT: files}, main=COMMIT)}) as hub:
        env.update(HF_ENDPOINT=hub.endpoint)
        first = shell(preflight)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        assert "SKIP  chat templates: not downloaded yet: tiny-vllm (target fetch_weights; " in (
            first.stdout
        )  # and the command of step 5, which locks the model at its first download
        assert (
            "OK    revisions: no revision in config/models.yaml: tiny-vllm (org/tiny-vllm); locked "
            f"at their first download (lock file): `{fetch}` downloads them all"
        ) in first.stdout.splitlines()
        assert "rule infer:" in shell(dry_run).stdout
        assert (
            shell(plan).returncode == 0
            and (clone / "results" / "plan" / "compute_plan.md").is_file()
        )
        fetched = shell(fetch)
        assert fetched.returncode == 0, fetched.stderr[-3000:]
        assert hub.file_requests() == [f"/org/tiny-vllm/resolve/{COMMIT}/tokenizer_config.json"]
        lock = yaml.safe_load((clone / "results" / "weights" / "lock.yaml").read_text())
        assert lock["tiny-vllm"]["commit"] == COMMIT  # main's commit, locked
        run = shell(preflight)

    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    lines = [line for line in run.stdout.splitlines() if re.match(r"(OK|FAIL|SKIP|WARN) ", line)]
    assert not [line for line in lines if not line.startswith(("OK ", "SKIP "))], lines
    results = clone / "results"
    glibc = f"{platform.libc_ver()[1]} (vLLM 0.33's llguidance wheels need glibc >= 2.31)"
    assert lines[:3] == [
        "OK    site file: profiles/slurm/site.yaml (2 partitions)",
        "OK    partitions: cpu, gpu known to SLURM",
        "OK    GPU types: grid needs a100; SLURM offers them",
    ]
    assert lines[3].startswith(f"OK    weights cache: {results / 'weights' / 'hub'}")
    assert lines[3].endswith("GB free, 0.0 GB of weights to download")  # its manifest is there
    assert lines[4:] == [
        f"OK    revisions: 0 pinned; locked: tiny-vllm@{COMMIT[:12]} (the lock file's commits)",
        "SKIP  hub tiny-vllm: org/tiny-vllm has no pinned revision (see revisions)",
        "OK    chat template tiny-vllm: org/tiny-vllm snapshot renders system+user and user only",
        "OK    key NOVEVAL_TEST_KEY: set, for gpt-4o",
        "OK    model gpt-4o: gpt-4o-2024-08-06 is served",
        "SKIP  key S2_API_KEY: no literature search in the grid",
        "SKIP  provider network: hosted-API inference runs on this host",
        f"OK    glibc (this host): {glibc}",
        f"OK    glibc (a100 nodes): {glibc}",  # one host
        "SKIP  conda: the run deploys no conda environment (software-deployment-method)",
        "SKIP  environments space: the run deploys no conda environment "
        "(software-deployment-method)",
        "OK    NVIDIA driver (a100 nodes): 580.95.05 (vLLM's CUDA 13.0 needs >= 580.65.06)",
        lines[-1],
    ]
    assert lines[-1].startswith("OK    job limits: all ")
    assert f"pre-flight: all {len(lines)} findings passed" in run.stdout

    # The same driver check on a node without the stand-in: SLURM's answer, and the fix.
    monkeypatch.setenv("PATH", slurm_cluster["PATH"])
    monkeypatch.setenv("SLURM_CONF", slurm_cluster["SLURM_CONF"])
    query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    step = node_command({}, "gpu", "a100", query)
    bare = node_check("NVIDIA driver", "a100 nodes", "gpu", run_command(step), driver_check, step)
    assert bare.line().startswith("FAIL  NVIDIA driver (a100 nodes): partition gpu: ")
    assert bare.line().endswith(
        "; fix: `nvidia-smi` on the PATH of partition gpu's nodes (a job step's PATH)"
    )


def test_hosted_api_inference_runs_on_the_host_unless_the_site_says_slurm(
    tmp_path, slurm_cluster, loopback
):
    """An API model's inference job (rule infer_api) runs on the submitting host under the SLURM
    profile; with the site's ``api_inference: slurm`` it is a SLURM job, and preflight checks
    from a CPU node that the provider (here the loopback server) is reached."""
    registry = loopback_registry(tmp_path / "models.yaml", loopback, "gpt-4o")
    results = tmp_path / "results"
    overlay = write_yaml(
        tmp_path / "api.yaml",
        {
            "registry": str(registry),
            "results": str(results),
            "decoding": {"max_tokens": 16},
            "novbench": {
                "datasets": {"sample": None, "tiny": str(sample_subset(tmp_path, 1))},
                "models": ["gpt-4o"],
                "strategies": ["zero"],
                "perturbations": ["none"],
            },
        },
    )
    configs = ["--configfile", "config/config.yaml", str(overlay)]
    model = results / "novbench" / "tiny" / "gpt-4o"
    responses = str(model / "responses" / "cells.parquet")
    infer_log = results / "logs" / "novbench" / "tiny" / "gpt-4o" / "cells" / "1-of-1" / "infer.log"
    # The requests on the local executor (not under test here), the inference under the profile.
    run_snakemake(str(model / "zero-none" / "requests.parquet"), "--cores", "1", *configs)
    site = {**yaml.safe_load((SCRIPTS / "ci-site.yaml").read_text()), "api_inference": "slurm"}
    slurm_site = write_yaml(tmp_path / "site.yaml", site)
    profile = ["--profile", "profiles/slurm", "--slurm-logdir", str(tmp_path / "slurm-logs")]

    env = snakemake_env(
        **slurm_cluster, **LOOPBACK_KEY, NOVEVAL_SLURM_SITE=str(SCRIPTS / "ci-site.yaml")
    )
    run_snakemake(responses, *profile, *configs, env=env)
    assert re.findall(r"SLURM_JOB_ID=(\S+)", infer_log.read_text())[-1] == "(none)"

    env["NOVEVAL_SLURM_SITE"] = str(slurm_site)
    preflight = run_snakemake("preflight", *profile, *configs, check=False, env=env)
    reached = f"OK    provider network: a node of partition cpu reaches {loopback.base_url('chat')}"
    assert reached in preflight.stdout.splitlines()
    run_snakemake(responses, *profile, "--forcerun", "infer_api", *configs, env=env)
    assert re.findall(r"SLURM_JOB_ID=(\S+)", infer_log.read_text())[-1].isdigit()


def test_preflight_names_a_job_longer_than_any_partition(tmp_path, slurm_cluster):
    """A model start assumed to take 10 hours makes the GPU model's one inference job ask for
    more than the partitions' 600 minutes (MaxTime, as sinfo reports it): preflight names it."""
    overlay = write_yaml(
        tmp_path / "long.yaml",
        {
            "registry": str(gpu_registry(tmp_path)),
            "results": str(tmp_path / "results"),
            "plan": {"startup_min": 600},
            "novbench": {"models": [GPU_MODEL], "strategies": ["zero"], "perturbations": ["none"]},
            "judges": {"datasets": {"sample": None}},
        },
    )
    env = snakemake_env(**slurm_cluster, NOVEVAL_SLURM_SITE=str(SCRIPTS / "ci-site.yaml"))
    configs = ["--configfile", "config/config.yaml", str(overlay)]
    run = run_snakemake("preflight", "--profile", "profiles/slurm", *configs, check=False, env=env)

    assert run.returncode != 0
    # 1.5 x (600 min start + 7 papers' answers at 57 tokens/s) + 10 min
    (line,) = [line for line in run.stdout.splitlines() if line.startswith("FAIL  job limits:")]
    assert line.startswith(
        "FAIL  job limits: 1 of 1 inference jobs fit no partition (cpu 600 min, gpu 600 min): "
        f"novbench/sample/{GPU_MODEL}/cells/1-of-1 ("
    )
    assert line.endswith(
        " min, 1 x a100, 3000 MB); fix: `snakemake pilot` with the same config files (its "
        "measured start and throughput replace the estimates), or a lower `plan.startup_min` in "
        "the config"
    )
    assert "job limits" in run.stderr


def test_a_conda_site_without_conda_plans_but_submits_nothing(tmp_path, slurm_cluster):
    """The shipped site's ``software_deployment: conda`` on a host without conda: the dry run and
    the plan run; a run that would submit jobs stops before the first, naming the site file."""
    site = {
        **yaml.safe_load((SCRIPTS / "ci-site.yaml").read_text()),
        "software_deployment": "conda",
    }
    site_file = write_yaml(tmp_path / "site.yaml", site)
    configs, results = tiny_run(
        tmp_path, "conda", sample_subset(tmp_path, 1), gpu_registry(tmp_path)
    )
    env = snakemake_env(**slurm_cluster, NOVEVAL_SLURM_SITE=str(site_file))
    assert not shutil.which("conda", path=env["PATH"])
    profile = ["--profile", "profiles/slurm", "--slurm-logdir", str(tmp_path / "slurm-logs")]
    assert "rule infer:" in run_snakemake("-n", *profile, *configs, env=env).stdout
    run_snakemake("plan", *profile, *configs, env=env)
    assert (results / "plan" / "compute_plan.csv").is_file()
    run = run_snakemake(*profile, *configs, check=False, env=env)
    assert run.returncode != 0
    assert (
        f"{site_file}: software_deployment: conda, but conda is not on PATH, so the profile left "
        "Snakemake's conda deployment off and the SLURM jobs (" in run.stdout + run.stderr
    )
    assert not (results / "novbench").exists()
