from noveval.plan import grid_cells


rule plan:
    input:
        config.get("plan", {}).get("sample", "data/sample/novbench_sample.json"),
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
        plan=config.get("plan", {}),
        registry=config["registry"],
        downloads=f"{RESULTS}/downloads/novbench",
        judge_cells=grid_cells(JUDGES),
        judge_files=JUDGES.datasets,
        judge_declared={
            file.local: file.instances
            for files in JUDGES.releases.values()
            for file in files
        },
        judges=config["judges"],
        upstream_root=config.get("upstream", {}).get("judges") or JUDGE_UPSTREAM,
    script:
        "../scripts/plan.py"
