"""Results as bundles, end to end: the embedded run exported (rule bundle), checked by
roc-validator offline, imported into a fresh clone of the same commit by the clone's own code,
and every table of both studies and the reproduction report rebuilt there byte for byte with no
rule that serves, calls or scores a model; with one metric edited, the import names the scoring
rule and what follows it, and a dry run plans scoring and no inference."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rocrate
from conftest import fresh_clone, planned_jobs, snakemake_env, write_yaml
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3 import HTTPResponse

from noveval.workflow.bundle.crate import read_manifest

pytestmark = pytest.mark.workflow

# Rules that serve, call or score a model, or search the literature: none runs after an import.
MODEL_RULES = {
    "infer",
    "infer_api",
    "pilot_infer",
    "pilot_infer_api",
    "novbench_score",
    "judges_related",
    "judges_ai_scientist",
    "judges_novelty_checker",
}
TABLES = ("table.*", "tables.*", "*.csv", "*.md", "*.png")
EDITED_METRIC = "src/noveval/novbench/metrics.py"


@pytest.fixture(scope="module")
def exported(embedded_run, tmp_path_factory):
    """The embedded run (a copy of it) with its bundle of the default target and the
    reproduction report."""
    run = embedded_run.copy(tmp_path_factory.mktemp("exported"))
    config = run.config
    config["bundle"] = {"targets": ["all", "reproduction"]}
    write_yaml(run.config_path, config)
    run.snakemake("--cores", "1", "bundle")
    return run


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this checkout's commit, with its uncommitted changes (none in CI), so
    that the clone's own code is the code under test."""
    return fresh_clone(tmp_path_factory.mktemp("clone") / "noveval")


# The local extra's packages: the import works without them (the base install).
LOCAL_EXTRA = ("torch", "transformers", "sentence_transformers", "llama_cpp", "gguf", "accelerate")


def in_clone(clone: Path, *command: str, base_install: bool = False) -> subprocess.CompletedProcess:
    """A command in the clone with the clone's package first on the import path (and, for
    ``base_install``, every package of the local extra failing to import)."""
    paths = [str(clone / "src")]
    if base_install:
        paths.insert(0, str(without_local_extra(clone.parent / "base-install")))
    env = snakemake_env(PYTHONPATH=":".join(paths))
    done = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True)
    if done.returncode:
        raise AssertionError(f"{command} failed\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def import_into(clone: Path, exported, results: str) -> tuple[Path, str]:
    """Import the exported bundle into ``clone`` for a config like the run's with its results
    folder at ``results``; the config file and the import's report."""
    config = exported.config
    config["results"] = str(clone / results)
    path = write_yaml(clone.parent / f"{results}.yaml", config)
    bundle = exported.results / "bundle.zip"
    done = in_clone(clone, sys.executable, "-m", "noveval.workflow.cli", "bundle", "import",
                    str(bundle), "--configfile", str(path), base_install=True)  # fmt: skip
    return path, done.stdout


def without_local_extra(folder: Path) -> Path:
    """A folder of stand-ins that fail to import, one per package of the local extra."""
    for package in LOCAL_EXTRA:
        (folder / package).mkdir(parents=True, exist_ok=True)
        (folder / package / "__init__.py").write_text(
            f"raise ImportError('{package} is not part of the base install')\n"
        )
    return folder


def rules_named(report: str) -> dict[str, str]:
    """The import report's rules to rebuild, with their reasons."""
    return dict(re.findall(r"^  (\w+): \d+ files: (.+)$", report, re.MULTILINE))


def test_the_bundle_is_a_workflow_run_crate(exported, tmp_path):
    """roc-validator, offline, at its required level: Workflow Run Crate (its 0.5 profile, the
    newest the validator ships, with the RO-Crate 1.1 and Workflow RO-Crate checks it inherits),
    less its two checks of RO-Crate 1.1's context that 0.6 changed: the workflow's type IRIs and
    the descriptor's version. (RO-Crate 1.3's own profile passes too, in 33 s: not run here.)"""
    from rocrate_validator import models, services

    crate = tmp_path / "crate"
    shutil.unpack_archive(exported.results / "bundle.zip", crate, "zip")
    cache = tmp_path / "http-cache"
    warm_context_cache(cache)
    settings = services.ValidationSettings(
        rocrate_uri=str(crate),
        profile_identifier="workflow-run-crate",
        requirement_severity=models.Severity.REQUIRED,
        offline=True,
        cache_path=cache,
        skip_checks=["workflow-ro-crate-1.0_2.1", "ro-crate-1.1_5.3"],
    )
    result = services.validate(settings)
    assert result.passed(), [str(issue.message) for issue in result.get_issues()]


def warm_context_cache(cache: Path) -> None:
    """The validator's HTTP cache holding RO-Crate 1.3's JSON-LD context (the copy the rocrate
    library ships), so that it validates with no network."""
    from requests_cache import CachedSession

    context = (Path(rocrate.__file__).parent / "data" / "ro-crate.jsonld").read_bytes()

    class Shipped(BaseAdapter):
        def send(self, request, **_):
            raw = HTTPResponse(
                body=io.BytesIO(context),
                headers={"Content-Type": "application/ld+json"},
                status=200,
                preload_content=False,
                request_url=request.url,
            )
            return HTTPAdapter().build_response(request, raw)

        def close(self):
            pass

    session = CachedSession(cache_name=str(cache))
    session.mount("https://", Shipped())
    assert session.get("https://w3id.org/ro/crate/1.3/context").status_code == 200


def test_an_edited_metric_rebuilds_scoring_and_what_follows_and_no_inference(exported, clone):
    metric = clone / EDITED_METRIC
    original = metric.read_text()
    metric.write_text(original.replace("return 1.0 - l1 / 2.0", "return 1.0 - (l1 / 2.0)"))
    try:
        config, report = import_into(clone, exported, "results-edited")
        named = rules_named(report)
        assert named.pop("novbench_score") == "code differs"
        assert named == {
            "novbench_table": "upstream rebuilds",
            "novbench_radar": "upstream rebuilds",
            "novbench_explorer": "upstream rebuilds",
        }
        dry = in_clone(clone, sys.executable, "-m", "snakemake", "-n", "--cores", "1", "all",
                       "reproduction", "--configfile", str(config))  # fmt: skip
        planned = {rule for rule, _ in planned_jobs(dry.stdout)}
        assert "novbench_score" in planned
        assert planned == {
            "novbench_score", "novbench_table", "novbench_radar", "novbench_explorer", "all"
        }  # fmt: skip
    finally:
        metric.write_text(original)


def test_a_fresh_clone_rebuilds_every_table_from_the_bundle_with_no_model_rule(exported, clone):
    config, report = import_into(clone, exported, "results")
    assert "nothing to rebuild" in report
    ours, theirs = clone / "results", exported.results
    deleted = sorted(
        {
            path.relative_to(ours)
            for study in ("novbench", "judges")
            for pattern in TABLES
            for path in (ours / study).rglob(pattern)
        }
    )
    assert any(path.name == "table.csv" for path in deleted)
    for path in deleted:
        (ours / path).unlink()
    (ours / "reproduction" / "report.csv").unlink()
    done = in_clone(clone, sys.executable, "-m", "snakemake", "--cores", "2", "all",
                    "reproduction", "--configfile", str(config))  # fmt: skip
    ran = set(re.findall(r"^\s*(?:local)?rule (\w+):", done.stdout + done.stderr, re.MULTILINE))
    assert not ran & MODEL_RULES
    made_by = read_manifest(theirs / "bundle.zip").job_of()
    makers = {made_by[path.as_posix()].rule for path in deleted}
    # the explorers read the tables and metrics, so they are rebuilt too
    explorers = {"novbench_explorer", "judges_explorer"}
    assert ran == makers | explorers | {"reproduction_report", "all", "reproduction"}
    for path in [*deleted, Path("reproduction") / "report.csv"]:
        assert (ours / path).read_bytes() == (theirs / path).read_bytes(), path
