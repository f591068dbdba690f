"""Stage plan: jobs, calls, tokens, GPU-hours and API cost of the configured grid (no model)."""

from __future__ import annotations

from noveval.planning.compute import compute_plan


def run(job) -> None:
    """One job of rule plan."""
    compute_plan(
        cells=job.params.cells,
        datasets=job.params.datasets,
        paraphrase_model=job.params.paraphrase_model,
        novbench=job.params.novbench,
        decoding=job.params.decoding,
        inference=job.params.inference,
        plan=job.params.plan,
        registry_path=job.params.registry,
        downloads=job.params.downloads,
        judge_cells=job.params.judge_cells,
        judge_files=job.params.judge_files,
        judge_declared=job.params.judge_declared,
        judges=job.params.judges,
        upstream_root=job.params.upstream_root,
        construction=job.params.construction,
        literature=job.params.literature,
        novbench_construction=job.params.novbench_construction,
        novbench_upstream=job.params.novbench_upstream,
        not_runnable=job.params.not_runnable,
        chunks=job.params.chunks,
        csv_path=job.output.csv,
        markdown_path=job.output.markdown,
    )
