"""Rule plan: jobs, calls, tokens, GPU-hours and API cost of the configured grid (no model)."""

from noveval.logs import log_to
from noveval.plan import compute_plan

with log_to(snakemake.log[0]):
    compute_plan(
        cells=snakemake.params.cells,
        datasets=snakemake.params.datasets,
        paraphrase_model=snakemake.params.paraphrase_model,
        novbench=snakemake.params.novbench,
        decoding=snakemake.params.decoding,
        inference=snakemake.params.inference,
        plan=snakemake.params.plan,
        registry_path=snakemake.params.registry,
        downloads=snakemake.params.downloads,
        judge_cells=snakemake.params.judge_cells,
        judge_files=snakemake.params.judge_files,
        judge_declared=snakemake.params.judge_declared,
        judges=snakemake.params.judges,
        upstream_root=snakemake.params.upstream_root,
        construction=snakemake.params.construction,
        literature=snakemake.params.literature,
        novbench_construction=snakemake.params.novbench_construction,
        novbench_upstream=snakemake.params.novbench_upstream,
        not_runnable=snakemake.params.not_runnable,
        chunks=snakemake.params.chunks,
        csv_path=snakemake.output.csv,
        markdown_path=snakemake.output.markdown,
    )
