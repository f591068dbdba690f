from pathlib import Path

from noveval.planning.compute import grid_cells


# The plan renders prompts from the releases already on disk (inputs: a finished download
# reruns it) and stands in for the others with the shipped sample; the pilot's measured file,
# once written, replaces the assumptions of the models it measured (and reruns the plan).
rule plan:
    input:
        PLAN_SETTINGS.sample,
        datasets=NOVBENCH.on_disk(),
        judge_files=JUDGES.on_disk(),
        measured=[MEASURED] if Path(MEASURED).is_file() else [],
    output:
        csv=report(
            f"{RESULTS}/plan/compute_plan.csv",
            caption="../report/compute_plan.rst",
            category="Compute plan",
            labels={"result": "compute plan", "file": "CSV"},
        ),
        markdown=report(
            f"{RESULTS}/plan/compute_plan.md",
            caption="../report/compute_plan.rst",
            category="Compute plan",
            labels={"result": "compute plan", "file": "Markdown"},
        ),
    log:
        f"{LOGS}/plan.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        cells=grid_cells(NOVBENCH),
        datasets=config["novbench"]["datasets"],
        paraphrase_model=NOVBENCH.paraphrase_model,
        novbench=config["novbench"],
        decoding=config["decoding"],
        inference=config["inference"],
        plan={**config["plan"], "measured": MEASURED},
        registry=config["registry"],
        downloads=NOVBENCH_LAYOUT.downloads,
        judge_cells=grid_cells(JUDGES),
        judge_files=JUDGES.datasets,
        judge_declared={
            **{
                file.local: file.instances
                for files in JUDGES.releases.values()
                for file in files
            },
            **BUILT_RELEASE_DECLARED,
        },
        judges=config["judges"],
        upstream_root=config["upstream"]["judges"] or JUDGE_UPSTREAM,
        construction=CONSTRUCTION_JUDGES,
        literature=config["literature"],
        novbench_construction=NOVBENCH_CONSTRUCTION.section,
        novbench_upstream=config["upstream"]["novbench"] or NOVBENCH_UPSTREAM,
        not_runnable=JUDGES.not_runnable,
        # the DAG's chunks of each inference batch, as the site file splits them (rule infer)
        chunks=lambda wildcards: JOBS.batch_chunks(),
        # each GPU model's partition and the GPUs of it held at once (the GPU jobs' hours)
        partitions=lambda wildcards: JOBS.gpu_partitions(),
        code=stage_code("plan"),
    script:
        "../scripts/stage.py"
