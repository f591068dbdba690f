"""Results bundles: export, import and rebuild, seconds per step and per rule, and the bundle's
size, for a finished run and for a synthetic bundle of the papers' grid.

``embedded``: a finished run (``--configfile``, by default ``make run``'s: config/config.yaml and
results/) is exported with rule ``bundle`` (targets ``all`` and ``reproduction``), imported into a
fresh clone of this commit, and every table and figure of both studies deleted there and rebuilt;
it prints the seconds of each step, each rebuilt job's seconds by rule (from Snakemake's records)
and whether any rule that serves, calls or scores a model ran.

``paper``: the papers' grid (config/config.yaml + config/paper.yaml, on the local copies of its
datasets under ../shared/data) read through Snakemake's API, every output of its DAG written as a
synthetic file sized to the whole grid (NovBench: 19 models x 9 cells x 1,000 papers of answers,
parsed answers and scores; the judges: 373,000 verdicts), then exported (``export_bundle``) and
imported into a second results folder. The files are random bytes (Parquet tables of them), so no
table can be drawn from them: the rebuild is measured as the dry run after deleting the tables,
which must plan table, metric and figure rules alone. Its folder, results/bench-bundles/, stays
for a look until the next run. docs/bundles.md has the numbers.

    .venv/bin/python benchmarks/bench_bundles.py embedded [--configfile config/config.yaml]
    .venv/bin/python benchmarks/bench_bundles.py paper
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from noveval.workflow.bundle.export import export_bundle  # noqa: E402
from noveval.workflow.bundle.importer import import_bundle, report  # noqa: E402
from noveval.workflow.dag import workflow_dag  # noqa: E402

MODEL_RULES = {"infer", "infer_api", "pilot_infer", "pilot_infer_api", "novbench_score"}
MODEL_RULES |= {"judges_related", "judges_ai_scientist", "judges_novelty_checker"}
TABLES = ("table.*", "tables.*", "*.csv", "*.md", "*.png")
SHARED = REPO.parent / "shared" / "data"
# Bytes per row of the synthetic files, as the papers' outputs run (Parquet, compressed): an
# answer with its request row, a parsed answer, a score row, a judge's verdict with reasoning.
ROW_BYTES = {"answer": 900, "parsed": 500, "score": 80, "verdict": 250}
NOVBENCH_ROWS = 19 * 9 * 1000
JUDGE_ROWS = 373_000


def timed(step: str, seconds: dict, function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    seconds[step] = time.perf_counter() - start
    print(f"{step}: {seconds[step]:.1f} s", flush=True)
    return result


def snakemake(cwd: Path, *args: str, env: dict | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=cwd, env=env,
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(f"snakemake {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout + done.stderr


def embedded(configfiles: list[Path]) -> None:
    """Export the run of ``configfiles``, import it into a fresh clone, rebuild its tables."""
    seconds: dict[str, float] = {}
    config = {}
    for path in configfiles:
        config.update(yaml.safe_load(path.read_text()))
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        overlay = scratch / "bundle.yaml"
        overlay.write_text("bundle: {targets: [all, reproduction]}\n")
        files = [str(path) for path in configfiles]
        timed("export", seconds, snakemake, REPO, "--cores", "1", "bundle",
              "--configfile", *files, str(overlay))  # fmt: skip
        results = REPO / config.get("results", "results")
        bundle = results / "bundle.zip"
        clone = scratch / "clone"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        moved = scratch / "clone.yaml"
        moved.write_text(f"results: {clone / 'results'}\n")
        env = {**os.environ, "PYTHONPATH": str(clone / "src")}
        command = [sys.executable, "-m", "noveval.workflow.cli", "bundle", "import", str(bundle),
                   "--configfile", *files, str(overlay), str(moved)]  # fmt: skip
        printed = timed("import", seconds, subprocess.run, command, cwd=clone, env=env,
                        capture_output=True, text=True).stdout  # fmt: skip
        print(printed)
        for study in ("novbench", "judges"):
            for pattern in TABLES:
                for path in (clone / "results" / study).rglob(pattern):
                    path.unlink(missing_ok=True)
        log = timed("rebuild", seconds, snakemake, clone, "--cores", "2", "all", "reproduction",
                    "--configfile", *files, str(overlay), str(moved), env=env)  # fmt: skip
        ran = Counter(re.findall(r"^\s*(?:local)?rule (\w+):", log, re.MULTILINE))
        dag = workflow_dag(clone, [*configfiles, overlay, moved], ["all", "reproduction"])
        per_rule = defaultdict(list)
        for job in dag.jobs:
            if job.rule in ran and job.started and job.ended:
                per_rule[job.rule].append(job.ended - job.started)
        print(f"bundle: {bundle.stat().st_size / 1e6:.1f} MB")
        print("rebuilt, seconds per job by rule:")
        for rule, times in sorted(per_rule.items()):
            print(f"  {rule}: {len(times)} jobs, {sum(times) / len(times):.1f} s each")
        print(f"model rules run: {sorted(set(ran) & MODEL_RULES) or 'none'}")


def synthetic_size(rule: str, counts: Counter) -> int:
    """The bytes of one output file of ``rule``: its share of the grid's rows, by kind."""
    kinds = {
        "responses": ("answer", NOVBENCH_ROWS + JUDGE_ROWS),
        "infer": ("answer", NOVBENCH_ROWS + JUDGE_ROWS),
        "infer_api": ("answer", NOVBENCH_ROWS + JUDGE_ROWS),
        "novbench_parse": ("parsed", NOVBENCH_ROWS),
        "novbench_score": ("score", NOVBENCH_ROWS),
        "judges_verdicts": ("verdict", JUDGE_ROWS),
    }
    if rule not in kinds:
        return 20_000
    kind, rows = kinds[rule]
    sharing = sum(counts[other] for other, (k, _) in kinds.items() if k == kind)
    return ROW_BYTES[kind] * rows // max(sharing, 1)


def synthetic_table(path: Path, size: int, random: bytes, row_bytes: int = 500) -> None:
    """A Parquet table of about ``size`` bytes: rows of incompressible bytes, and the list
    column that the scoring jobs' resources read (``items_text``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = max(size // row_bytes, 1)
    starts = [(row * 7919) % (len(random) - row_bytes) for row in range(rows)]
    payload = [random[start : start + row_bytes] for start in starts]
    items = [["an item", "another item"]] * rows
    pq.write_table(pa.table({"payload": payload, "items_text": items}), path)


def paper_scale_config(results: Path) -> dict:
    """The papers' grid (config/config.yaml + config/paper.yaml, as Snakemake merges them) on the
    local copies of its datasets under ../shared/data, whose downloads (1,684 EMNLP papers, the
    judges' release) are not there: NovBench's EMNLP and COLING datasets both read the 73 COLING
    papers (no retrieval: 6 cells a model, not 9), the judges read the authors' release copies, and
    the authors' files come from their local mirrors. No construction (its calls are paid)."""
    from snakemake.utils import update_config

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config" / "paper.yaml").read_text()))
    coling = str(SHARED / "novbench" / "coling2020_pairs.json")
    config["novbench"]["datasets"] = {"emnlp2023": coling, "coling2020": coling}
    config["judges"]["datasets"] = {"novelty-eval": str(SHARED / "novelty-eval")}
    config.setdefault("upstream", {}).update(
        judges=str(SHARED / "novelty-eval" / "upstream"),
        novbench=str(SHARED / "novbench" / "upstream"),
    )
    config.pop("construction", None)
    config["results"] = str(results)
    config["weights"] = {**config.get("weights", {}), "allow_unpinned": True}
    return config


# Rules whose outputs the workflow reads to size other jobs (scoring's runtime reads the papers):
# run for real, in seconds.
REAL_RULES = {"novbench_papers"}


def write_outputs(jobs, config: dict, configfiles: list[Path]) -> int:
    """Every job's outputs: REAL_RULES' made by Snakemake, the authors' files copied from their
    mirrors (the Snakefile reads some), every other file synthetic bytes of its estimated size;
    the bytes written."""
    real = [output for job in jobs if job.rule in REAL_RULES for output in job.outputs]
    files = [str(path) for path in configfiles]
    snakemake(REPO, "--cores", "2", "--configfile", *files, "--", *real)
    counts = Counter(job.rule for job in jobs for _ in job.outputs)
    random = os.urandom(1 << 20)
    upstream = f"{config['results']}/downloads/upstream/"
    written = 0
    for job in jobs:
        for output in job.outputs if job.rule not in REAL_RULES else ():
            path = Path(output)
            path.parent.mkdir(parents=True, exist_ok=True)
            study, _, rest = output.removeprefix(upstream).partition("/")
            mirrored = Path(str(config["upstream"].get(study))) / rest
            if output.startswith(upstream) and mirrored.is_file():
                shutil.copyfile(mirrored, path)
            elif path.suffix == ".parquet":
                synthetic_table(path, synthetic_size(job.rule, counts), random)
            else:
                size = synthetic_size(job.rule, counts)
                path.write_bytes((random * (size // len(random) + 1))[:size])
            written += path.stat().st_size
    return written


def paper(folder: Path) -> None:
    """The papers' grid: synthetic outputs, export, import, the rebuild's dry run."""
    seconds: dict[str, float] = {}
    merged = folder / "paper.yaml"
    config = paper_scale_config(folder / "results")
    merged.write_text(yaml.safe_dump(config))
    configfiles = [merged]
    dag = timed("DAG of the paper grid", seconds, workflow_dag, REPO, configfiles,
                ["all", "reproduction"])  # fmt: skip
    written = write_outputs(dag.jobs, dag.config, configfiles)
    counts = Counter(job.rule for job in dag.jobs for _ in job.outputs)
    print(f"{len(dag.jobs)} jobs, {sum(counts.values())} files, {written / 1e9:.2f} GB written")
    bundle = folder / "bundle.zip"
    timed("export", seconds, export_bundle, bundle, dag.config, ["all", "reproduction"], False,
          None, REPO)  # fmt: skip
    print(f"bundle: {bundle.stat().st_size / 1e9:.2f} GB")
    moved = folder / "moved.yaml"
    moved.write_text(f"results: {folder / 'imported'}\n")
    decision, jobs, placed = timed("import", seconds, import_bundle, bundle,
                                   [*configfiles, moved], REPO)  # fmt: skip
    print(report(decision, jobs, placed))
    tables = {
        path
        for study in ("novbench", "judges")
        for pattern in TABLES
        for path in (folder / "imported" / study).rglob(pattern)
    }
    for path in tables:
        path.unlink()
    files = [str(path) for path in [*configfiles, moved]]
    log = timed("rebuild's dry run", seconds, snakemake, REPO, "-n", "--cores", "1", "all",
                "reproduction", "--configfile", *files)  # fmt: skip
    planned = Counter(re.findall(r"^\s*(?:local)?rule (\w+):", log, re.MULTILINE))
    print(f"{len(tables)} tables and figures deleted; the rebuild plans:")
    for rule, count in sorted(planned.items()):
        print(f"  {rule}: {count}")
    print(f"model rules planned: {sorted(set(planned) & MODEL_RULES) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", choices=["embedded", "paper"])
    parser.add_argument("--configfile", nargs="+", type=Path, default=[REPO / "config/config.yaml"])
    arguments = parser.parse_args()
    if arguments.run == "embedded":
        embedded([path.resolve() for path in arguments.configfile])
    else:
        folder = REPO / "results" / "bench-bundles"  # kept for a look; removed at the next run
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        paper(folder)


if __name__ == "__main__":
    main()
