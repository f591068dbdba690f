"""Shared fixtures: paths, the real data beside the checkout, and Snakemake runs.

The workflow runs that many tests read are made once per session: ``embedded_run`` (the embedded
default on tiny inputs, both tracks), ``paper_run`` (config/paper.yaml on the authors' release
copies, its hosted models answered by the loopback providers) and ``paper_grid`` and
``shipped_site_grid`` (the papers' grid, dry-run and planned). A test reads a run's
outputs, dry-runs overlays against it, or changes a copy of it (:meth:`WorkflowRun.copy`); it
never changes the run's outputs (a dry run against an edited file the run reads, its registry or
a package module, restores the file).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from loopback_api import LoopbackAPI
from loopback_s2 import LoopbackS2
from recording_proxy import RecordingProxy

from noveval.core.registry import load_registry
from noveval.inference.engines.servers import serve
from noveval.workflow.config_schema import schema_file

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE = REPO / "data" / "sample" / "novbench_sample.json"
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
PROXIED_MODEL = "proxied-smollm2"
JUDGES_SAMPLE = REPO / "data" / "sample" / "judges"
LOOPBACK_KEY = {"NOVEVAL_TEST_KEY": "sk-loopback"}
S2_TEST_KEY = {"S2_API_KEY": "s2-loopback"}
# Hosted models the embedded run points at the loopback server: gpt-4o runs in it, gpt-5.1 is
# the model that overlays add.
LOOPBACK_MODELS = ("gpt-4o", "gpt-5.1", "gpt-5.6-sol")
PAPER_GRID_MINUTES = 600  # the partitions' time limit of the paper grid's site file


def config_schema() -> str:
    """The workflow's config schema with its lists of names filled in, as the workflow validates
    with it (noveval.workflow.config_schema)."""
    return schema_file(REPO / "workflow" / "schemas" / "config.schema.yaml")


def unavailable(reason: str, required_by: str) -> None:
    """Skip a test whose outside resource is missing, or fail when the environment variable
    ``required_by`` is set (.ci/run sets it for what CI provides, so nothing skips there)."""
    if os.environ.get(required_by):
        pytest.fail(f"{reason} ({required_by} is set: this run requires it)")
    pytest.skip(reason)


def shared_file(*parts: str) -> Path:
    """A file of the authors' releases beside the checkout; skipped without it, outside CI."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        unavailable(
            f"real data not found at {path} (expected beside the checkout)",
            "NOVEVAL_REQUIRE_DATA",
        )
    return path


def write_yaml(path: Path, content: dict) -> Path:
    path.write_text(yaml.safe_dump(content, sort_keys=False))
    return path


def sample_subset(tmp_path: Path, count: int) -> Path:
    """The first ``count`` papers of the shipped sample, as a release file."""
    records = json.loads(SAMPLE.read_text())[:count]
    path = tmp_path / f"sample{count}.json"
    path.write_text(json.dumps(records))
    return path


def snakemake_env(**extra: str) -> dict:
    """The environment of a workflow run: this interpreter's tools first on PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", **extra}


def fresh_clone(target: Path) -> Path:
    """A fresh clone of this checkout's commit at ``target``, with its uncommitted changes (none
    in CI), so that the clone's own code is the code under test."""
    subprocess.run(["git", "clone", "-q", str(REPO), str(target)], check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for line in status.splitlines():
        path = line[3:].split(" -> ")[-1]
        if (REPO / path).is_file():
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / path, target / path)
        elif (target / path).exists():
            (target / path).unlink()
    return target


def run_snakemake(*args: str, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    """Run the workflow from the repository root (give ``--configfile`` in ``args``)."""
    kwargs.setdefault("env", snakemake_env())
    result = subprocess.run(
        [*SNAKEMAKE, *args], cwd=REPO, capture_output=True, text=True, timeout=1800, **kwargs
    )
    if check and result.returncode != 0:
        output = f"{result.stdout[-4000:]}\n{result.stderr[-6000:]}"
        raise AssertionError(f"snakemake failed ({result.returncode})\n{output}")
    return result


@pytest.fixture
def tiny_config(tmp_path):
    """A whole config (the default, changed by the test) with results under ``tmp_path``.

    Overlays merge into the default, so they cannot remove a dataset; tests write whole configs.
    """

    def make(name: str = "config.yaml", top: dict | None = None, **novbench) -> Path:
        config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
        config["results"] = str(tmp_path / "results")
        config["decoding"]["max_tokens"] = 48
        config["novbench"].update(novbench)
        config["judges"]["datasets"] = {}
        config.update(top or {})
        return write_yaml(tmp_path / name, config)

    return make


@pytest.fixture(scope="session")
def proxied_server(tmp_path_factory):
    """The real SmolLM2 llama.cpp server behind a proxy that records every call's request id."""
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    spec = load_registry(REPO / "config" / "models.yaml").model("smollm2-135m")
    with serve(spec, log_path, startup_timeout_s=120, threads=2) as endpoint:
        with RecordingProxy(endpoint.base_url, endpoint.api_key) as proxy:
            yield proxy


def proxied_registry(tmp_path: Path, base_url: str) -> Path:
    """The registry plus an API model that reaches the local server through the proxy."""
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    registry["models"][PROXIED_MODEL] = {
        "engine": "api",
        "reference": "smollm2-135m",
        "base_url": base_url,
        "api_key_env": "NOVEVAL_TEST_KEY",
        "context_length": 8192,
        "price_per_million": {"input": 1.0, "output": 2.0},
    }
    return write_yaml(tmp_path / "models.yaml", registry)


@pytest.fixture(scope="session")
def loopback():
    """The hosted providers' APIs on 127.0.0.1, enforcing their rules (tests/loopback_api.py)."""
    server = LoopbackAPI()
    server.thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def loopback_s2():
    """Semantic Scholar's Graph API on 127.0.0.1 at its keyed rate, one request a second
    (tests/loopback_s2.py); its key is :data:`S2_TEST_KEY`."""
    with LoopbackS2(api_key=S2_TEST_KEY["S2_API_KEY"]) as server:
        yield server


def loopback_registry(path: Path, loopback: LoopbackAPI, *names: str) -> Path:
    """The registry with the hosted models ``names`` pointed at the loopback server; their key
    variable is NOVEVAL_TEST_KEY (:data:`LOOPBACK_KEY`)."""
    registry = yaml.safe_load((REPO / "config" / "models.yaml").read_text())
    for name in names:
        entry = registry["models"][name]
        entry.update(base_url=loopback.base_url(entry["api"]), api_key_env="NOVEVAL_TEST_KEY")
    return write_yaml(path, registry)


def tiny_judges_release(folder: Path, pairs: int, ideas: int) -> dict:
    """The first pairs / ideas of the shipped Human+Generated sample, as release files."""
    files = {}
    for format, count in (("pairwise", pairs), ("pointwise", ideas)):
        if count:
            content = yaml.safe_load(
                (JUDGES_SAMPLE / "human-plus-generated" / f"{format}.yaml").read_text()
            )
            path = write_yaml(folder / f"{format}.yaml", dict(list(content.items())[:count]))
            files[format] = str(path)
    return {"human-plus-generated": files}


def planned_jobs(dry_run_output: str) -> list[tuple[str, dict[str, str]]]:
    """(rule, wildcards) of each job a dry run lists, sorted."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", dry_run_output):
        if match := re.match(r"(?:local)?rule (\w+):", block):
            found = re.search(r"\n\s+wildcards: (.*)", block)
            pairs = found.group(1).split(", ") if found else []
            jobs.append((match.group(1), dict(pair.split("=", 1) for pair in pairs)))
    return sorted(jobs, key=lambda job: (job[0], sorted(job[1].items())))


@dataclass(frozen=True)
class WorkflowRun:
    """A finished workflow run: its config file (read after the ``base`` files, if any) and the
    environment it ran in."""

    config_path: Path
    env: dict
    base: tuple[str, ...] = ()

    @property
    def config(self) -> dict:
        """A fresh copy of the run's config file, to change into an overlay."""
        return yaml.safe_load(self.config_path.read_text())

    @property
    def results(self) -> Path:
        return Path(self.config["results"])

    def snakemake(self, *args: str, config: Path | None = None, **kwargs):
        """Snakemake on this run's config (or ``config`` in its place), in its environment."""
        kwargs.setdefault("env", self.env)
        configs = [*self.base, str(config or self.config_path)]
        return run_snakemake(*args, "--configfile", *configs, **kwargs)

    def planned_jobs(self, config: Path | None = None) -> list:
        """The jobs a dry run of the default target would run."""
        return planned_jobs(self.snakemake("-n", "--cores", "2", config=config).stdout)

    def copy(self, folder: Path) -> WorkflowRun:
        """The run's results copied into ``folder`` (modification times kept), with a config that
        points at them: a variant for a test that changes outputs."""
        config = self.config
        shutil.copytree(self.results, folder / "results", symlinks=True)
        config["results"] = str(folder / "results")
        return WorkflowRun(write_yaml(folder / "config.yaml", config), self.env, self.base)


def start_run(folder: Path, config: dict, env: dict, base: tuple[str, ...] = ()) -> WorkflowRun:
    """Write ``config`` (its results under ``folder``) and run its default target on 2 cores."""
    config["results"] = str(folder / "results")
    run = WorkflowRun(write_yaml(folder / "config.yaml", config), env, base)
    run.snakemake("--cores", "2")
    return run


@pytest.fixture(scope="session")
def embedded_run(tmp_path_factory, loopback, loopback_s2) -> WorkflowRun:
    """The embedded default on tiny inputs, run once for the tests that read a finished run.

    NovBench's whole grid (3 strategies x 3 perturbations) on 2 sample papers (so one few-shot
    example each), for the local SmolLM2 and for gpt-4o on the loopback server; the judges'
    reference, P3, retrieval, purpose-mechanism and no-aggregation cells on 2 pairs and 2 ideas,
    with the motivating figure. The retrieval cells' related work comes from the assisted
    literature search: SmolLM2 writes the queries (2 per idea), the loopback Semantic Scholar
    answers them. The agentic judge (gpt-5.6-sol on the loopback server, which searches once per
    call) judges the 2 ideas, and so does the AI-Scientist check with SmolLM2 in one round
    (searching the loopback Semantic Scholar where its answer asks), and the Idea Novelty Checker
    with its builtin prompts on SmolLM2 (an embedding cut of 5 papers, one RankGPT window over
    them, 3 papers in the verdict).
    """
    folder = tmp_path_factory.mktemp("embedded")
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["registry"] = str(loopback_registry(folder / "models.yaml", loopback, *LOOPBACK_MODELS))
    config["decoding"]["max_tokens"] = 48
    config["novbench"].update(
        datasets={"tiny": str(sample_subset(folder, 2))}, models=["smollm2-135m", "gpt-4o"]
    )
    config["judges"].update(
        datasets={"tiny": tiny_judges_release(folder, pairs=2, ideas=2)},
        changes=["reference", "P3", "retrieval", "no_aggregation"],
        idea_formats={"purpose_mechanism": ["reference"]},
        calls={"pointwise": 1, "pairwise_per_order": 1},
        max_tokens=64,
        reasoning_chars=60,
        rewrite_max_tokens=128,
        bootstrap={"resamples": 200, "seed": 42},
        motivation={"model": "smollm2-135m", "changes": ["reference", "P3"]},
        custom={"probe": CUSTOM_JUDGE},
        systems={
            "agentic": {"models": ["gpt-5.6-sol"]},
            "ai_scientist": {"models": ["smollm2-135m"], "rounds": 1, "cutoff": "2025-03-01"},
            "novelty_checker": {"models": ["smollm2-135m"]},
        },
        novelty_checker={
            "papers_shown": 3,
            "papers_embedded": 5,
            "rerank_window": 5,
            "rerank_step": 5,
            "decoding": {"temperature": 0, "max_tokens": 48},
            "rerank_decoding": {"temperature": 0, "max_tokens": 24},
        },
    )
    config["judges"]["retrieval"].update(
        search="semantic_scholar", model="smollm2-135m", max_tokens=96, n_queries=2,
        cutoff="2025-03-01",
    )  # fmt: skip
    # a little under the stand-in's one request a second, so that no request is turned away
    config["literature"] = {
        "semantic_scholar": {"base_url": loopback_s2.base_url, "requests_per_second": 0.9}
    }
    return start_run(folder, config, snakemake_env(**LOOPBACK_KEY, **S2_TEST_KEY))


# A custom judge (config judges.custom) on the embedded model: both formats, one pairwise variant,
# the retrieval and low-reasoning changes, one call per decision.
CUSTOM_JUDGE = {
    "model": "smollm2-135m",
    "pointwise": "Area: {{ area }}\nIdea: {{ idea }}\n"
    "{% for abstract in related %}Related: {{ abstract }}\n{% endfor %}"
    'Answer "Verdict: novel" or "Verdict: not novel".',
    "pairwise": "Idea 1: {{ idea_1 }}\nIdea 2: {{ idea_2 }}\n"
    'Which is more novel? Answer "Verdict: 1" or "Verdict: 2".',
    "calls": 1,
    "answer": {
        "pointwise": {
            "regex": r"verdict:\s*(not novel|novel)",
            "labels": {"novel": "novel", "not novel": "not_novel"},
        },
        "pairwise": {"regex": r"verdict:\s*(1|2)", "labels": {"1": "idea_1", "2": "idea_2"}},
    },
    "variants": {"plain": {"pairwise": "{{ idea_1 }} or {{ idea_2 }}: which is newer? Verdict:"}},
    "changes": ["retrieval", "low_reasoning"],
}


def paper_config() -> dict:
    """``config/paper.yaml`` over ``config/config.yaml``, merged as Snakemake merges them."""
    from snakemake.utils import update_config

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    return config


# The paper grid's NovBench models that a loopback provider serves (its vLLM models need a GPU).
PAPER_HOSTED_NOVBENCH = ("gpt-4o", "gpt-3.5-turbo", "gpt-5", "gemini-2.5-flash")
PAPER_COLING_PAPERS = 3  # of the 73 of the shipped COLING-2020 copy


@pytest.fixture(scope="session")
def paper_run(tmp_path_factory, loopback, loopback_s2) -> WorkflowRun:
    """``config/paper.yaml`` run as a lab runs it, on the shipped release copies with every hosted
    model answered by the loopback providers (what is tested is the plumbing of the paper mode,
    not a model's verdicts), once for the tests that read it.

    The judges' section is the paper's but for the dataset: the authors' Human-Only and
    Human+Generated copies (10 + 13 pairs, 21 + 26 ideas) in place of the download, blocklist on,
    both formats, their prompts and protocol, 3 calls per idea and order, every change the copies
    allow (the purpose-mechanism form needs the release's _plan files, the D₋ generators its
    backbone folders, which the copies lack), the retrieval change searching the loopback Semantic
    Scholar; claude-sonnet-4-5 is retired (its cells are skipped). The dedicated judges are the
    embedded run's (their hub encoder has no offline copy). NovBench's section is the paper's on
    the first papers of the COLING-2020 copy for its hosted models (the authors' prompts and
    decoding, the perturbations with gpt-4o-mini's paraphrases), scored with the default's local
    scorers (SPICED and distilgpt2 are hub models).
    """
    folder = tmp_path_factory.mktemp("paper")
    config = paper_config()
    coling = json.loads(shared_file("novbench", "coling2020_pairs.json").read_text())
    coling_copy = folder / "coling2020.json"
    coling_copy.write_text(json.dumps(coling[:PAPER_COLING_PAPERS]))
    default = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    hosted = {*PAPER_HOSTED_NOVBENCH, config["novbench"]["paraphrase_model"]}
    hosted |= {*config["judges"]["models"], config["judges"]["retrieval"]["model"]}
    config["registry"] = str(loopback_registry(folder / "models.yaml", loopback, *sorted(hosted)))
    config["upstream"] = {
        "judges": str(shared_file("novelty-eval", "upstream")),
        "novbench": str(shared_file("novbench", "upstream")),
    }
    config["novbench"].update(
        datasets={"coling2020": str(coling_copy)},
        models=list(PAPER_HOSTED_NOVBENCH),
        scoring=default["novbench"]["scoring"],
    )
    release = shared_file("novelty-eval", "human-only", "pairwise.yaml").parents[1]
    config["judges"].update(datasets={"novelty-eval": str(release)}, systems={})
    config.pop("construction")
    config["literature"] = {
        "semantic_scholar": {"base_url": loopback_s2.base_url, "requests_per_second": 0.9}
    }
    return start_run(folder, config, snakemake_env(**LOOPBACK_KEY, **S2_TEST_KEY))


@dataclass(frozen=True)
class PaperGrid:
    """The papers' whole grid dry-run through the SLURM profile, and its compute plan."""

    dry_run: str  # what the dry run printed
    plan: Path  # the plan's folder: compute_plan.csv, compute_plan.md


def plan_paper_grid(folder: Path, site_file: Path) -> PaperGrid:
    """``config/paper.yaml`` dry-run with the SLURM profile and planned (results under
    ``folder``) against ``site_file``, with no cluster file and no API key, with the conda
    stand-in, which the profile's conda deployment asks for its platform."""
    overlay = write_yaml(folder / "results.yaml", {"results": str(folder / "results")})
    configs = ["--configfile", "config/config.yaml", "config/paper.yaml", str(overlay)]
    keys = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")
    env = snakemake_env(
        **dict.fromkeys(keys, ""), SLURM_CONF="/nonexistent", NOVEVAL_SLURM_SITE=str(site_file)
    )
    env["PATH"] = f"{REPO / 'tests' / 'conda' / 'bin'}:{env['PATH']}"
    dry = run_snakemake("-n", "--profile", "profiles/slurm", *configs, env=env)
    run_snakemake("--cores", "1", "plan", *configs, env=env)
    return PaperGrid(dry.stdout + dry.stderr, folder / "results" / "plan")


@pytest.fixture(scope="session")
def paper_grid(tmp_path_factory) -> PaperGrid:
    """``config/paper.yaml`` planned once for the tests that read it (:func:`plan_paper_grid`),
    against a site file whose partitions allow :data:`PAPER_GRID_MINUTES` (shorter than the
    shipped one's)."""
    folder = tmp_path_factory.mktemp("paper-grid")
    site = yaml.safe_load((REPO / "profiles" / "slurm" / "site.yaml").read_text())
    for partition in site["partitions"].values():
        partition["max_runtime"] = PAPER_GRID_MINUTES
    return plan_paper_grid(folder, write_yaml(folder / "site.yaml", site))


@pytest.fixture(scope="session")
def shipped_site_grid(tmp_path_factory) -> PaperGrid:
    """``config/paper.yaml`` planned (:func:`plan_paper_grid`) against the shipped site file,
    profiles/slurm/site.yaml."""
    folder = tmp_path_factory.mktemp("paper-grid-shipped-site")
    return plan_paper_grid(folder, REPO / "profiles" / "slurm" / "site.yaml")
