from noveval.plan import PlanSettings, grid_cells

PLAN_SETTINGS = PlanSettings.from_config(config)


# The plan renders prompts from the releases already on disk (inputs: a finished download
# reruns it) and stands in for the others with the shipped sample.
rule plan:
    input:
        PLAN_SETTINGS.sample,
        datasets=NOVBENCH.on_disk(),
        judge_files=JUDGES.on_disk(),
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
        plan=config["plan"],
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
        upstream_root=config["upstream"]["judges"] or JUDGE_UPSTREAM,
        literature=config["literature"],
        code=code_version("noveval.plan"),
    script:
        "../scripts/plan.py"
