# The custom judges (config judges.custom): each cell's requests (answered in its model's batch),
# its verdicts read by the judge's own rule, each judge's stability card and the leaderboard.
CUSTOM_JUDGES = config["judges"].get("custom") or {}


rule judges_custom_requests:
    input:
        instances=lambda wildcards: JUDGES_PATHS.instances(
            wildcards.dataset, wildcards.format, wildcards.setup, wildcards.ideas
        ),
        related=lambda wildcards: (
            [
                JUDGES_PATHS.related(
                    wildcards.dataset, wildcards.format, wildcards.setup
                )
            ]
            if wildcards.change == "retrieval"
            else []
        ),
    output:
        JUDGES_PATHS.custom_cell("requests.parquet"),
    log:
        JUDGES_PATHS.log("custom_requests"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_custom_requests"),
        entry=lambda wildcards: CUSTOM_JUDGES[wildcards.judge],
        registry=config["registry"],
        decoding=config["decoding"],
        max_tokens=config["judges"]["max_tokens"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule judges_custom_verdicts:
    input:
        instances=lambda wildcards: JUDGES_PATHS.instances(
            wildcards.dataset, wildcards.format, wildcards.setup, wildcards.ideas
        ),
        responses=lambda wildcards: JUDGES.responses(RESULTS, wildcards),
    output:
        calls=JUDGES_PATHS.custom_cell("calls.parquet"),
        verdicts=JUDGES_PATHS.custom_cell("verdicts.parquet"),
    log:
        JUDGES_PATHS.log("custom_verdicts"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_custom_verdicts"),
        entry=lambda wildcards: CUSTOM_JUDGES[wildcards.judge],
        responses_cell=lambda wildcards: (
            f"custom/{wildcards.judge}/{wildcards.format}/{wildcards.setup}/"
            f"{wildcards.ideas}/{wildcards.wording}/{wildcards.change}"
        ),
        rules=config_slice(config["judges"], "even_split", "all_failed"),
    script:
        "../scripts/stage.py"


rule judges_card:
    input:
        unpack(lambda wildcards: JUDGES.card_inputs(RESULTS, wildcards.judge)),
    output:
        markdown=report(
            JUDGES_PATHS.card(extension="md"),
            caption="../report/judges_card.rst",
            category="Judges",
            subcategory="Cards",
        ),
        figure=report(
            JUDGES_PATHS.card(extension="png"),
            caption="../report/judges_card.rst",
            category="Judges",
            subcategory="Cards",
        ),
        table=JUDGES_PATHS.card(extension="parquet"),
    log:
        JUDGES_PATHS.log("card"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_card"),
        cells=lambda wildcards: JUDGES.card_cells(wildcards.judge),
        model=lambda wildcards: CUSTOM_JUDGES[wildcards.judge]["model"],
        bootstrap=config["judges"]["bootstrap"],
    script:
        "../scripts/stage.py"


rule judges_leaderboard:
    input:
        [JUDGES_PATHS.card(judge, "parquet") for judge in JUDGES.custom_judges()],
    output:
        markdown=report(
            JUDGES_PATHS.leaderboard("md"),
            caption="../report/judges_leaderboard.rst",
            category="Judges",
            subcategory="Cards",
        ),
        csv=JUDGES_PATHS.leaderboard("csv"),
    log:
        JUDGES_PATHS.log("leaderboard"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("judges_leaderboard"),
    script:
        "../scripts/stage.py"
