"""``noveval status`` on the papers' grid: the DAG build alone, then the whole status (the DAG,
the journals, the request tables, squeue where there is one), seconds each and their ratio,
against the goal of 15 s. Results go to a scratch folder, so no run of this checkout is read.

    .venv/bin/python benchmarks/bench_status.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from noveval.workflow.dag import workflow_dag  # noqa: E402
from noveval.workflow.status import run_status  # noqa: E402

CONFIGS = [REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml"]
GOAL_S = 15.0


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        overlay = Path(scratch) / "results.yaml"
        overlay.write_text(f"results: {scratch}/results\n")
        configs = [*CONFIGS, overlay]
        began = time.perf_counter()
        dag = workflow_dag(REPO, configs, ["all"])
        dag_s = time.perf_counter() - began
        began = time.perf_counter()
        rows, _ = run_status(REPO, configs, ["all"])
        status_s = time.perf_counter() - began
    print(f"papers' grid: {len(dag.jobs)} jobs, {len(rows)} status rows")
    print(f"DAG build {dag_s:.1f} s; status {status_s:.1f} s ({status_s / dag_s:.2f} x the DAG)")
    print(f"goal {GOAL_S:.0f} s: {'met' if status_s <= GOAL_S else 'missed'}")


if __name__ == "__main__":
    main()
