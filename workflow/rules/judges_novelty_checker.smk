from noveval.judges.systems.novelty_checker.prompts import upstream_files

# The Idea Novelty Checker's cells: on the submit host, like the searched related work (it needs
# the network, hardly a CPU, and shares the Semantic Scholar pace); its verdicts in the judges'
# format, in place of rule judges_verdicts.
NOVELTY_CHECKER_UPSTREAM = f"{RESULTS}/downloads/upstream/novelty_checker"
NOVELTY_CHECKER = config["judges"]["novelty_checker"]
# Paper mode reads the Idea Novelty Checker's prompts from the upstream files; builtin mode,
# the project's own.
NOVELTY_CHECKER_PAPER_MODE = config["judges"]["prompts"] == "authors"


ruleorder: judges_novelty_checker > judges_verdicts


rule judges_novelty_checker:
    input:
        instances=JUDGES_PATHS.instances(format="pointwise"),
        upstream=(
            [
                f"{NOVELTY_CHECKER_UPSTREAM}/{path}"
                for path in upstream_files(NOVELTY_CHECKER["examples"])
            ]
            if NOVELTY_CHECKER_PAPER_MODE
            else []
        ),
        weights=scorer_weights_inputs(REGISTRY, [NOVELTY_CHECKER["encoder"]], RESULTS),
    output:
        verdicts=JUDGES_PATHS.system("novelty_checker"),
        transcript=JUDGES_PATHS.system("novelty_checker", "transcript"),
    log:
        JUDGES_PATHS.log("novelty_checker"),
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_novelty_checker", data=("prompts/judges",)),
        registry=config["registry"],
        cache=CACHE,
        inference=config_slice(
            config["inference"],
            "concurrency",
            "request_timeout_s",
            "retry_for",
            "server_start_timeout_s",
        ),
        settings=NOVELTY_CHECKER,
        literature={
            "semantic_scholar": config["literature"]["semantic_scholar"],
            "cache_dir": f"{RESULTS}/literature/semantic_scholar",
            "cutoff": JUDGE_RETRIEVAL["cutoff"],
        },
        all_failed=config["judges"]["all_failed"],
        paper_mode=NOVELTY_CHECKER_PAPER_MODE,
    script:
        "../scripts/stage.py"
