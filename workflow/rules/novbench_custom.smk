from noveval.novbench.custom import evaluator_of
from noveval.novbench.decoding import decoding_inputs
from noveval.workflow.wildcards import CARD_NAME, CUSTOM_STRATEGY

# The custom NovBench evaluators (config novbench.custom): each a cell of its model's inference
# batch (strategy custom-<name>, parsed and scored as any cell), each evaluator's card and the
# leaderboard.


rule novbench_custom_requests:
    input:
        inputs=lambda wildcards: NOVBENCH.inputs_path(
            RESULTS, wildcards.dataset, wildcards.perturbation
        ),
        # authors decoding of an open model: its generation config, as the paper cells'
        weights=lambda wildcards: decoding_inputs(
            REGISTRY.model(wildcards.model), config["decoding"], RESULTS
        ),
    output:
        NOVBENCH_LAYOUT.requests(),
    log:
        NOVBENCH_LAYOUT.log("custom_requests"),
    wildcard_constraints:
        strategy=CUSTOM_STRATEGY,
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_custom_requests"),
        template=lambda wildcards: NOVBENCH.custom[
            evaluator_of(wildcards.strategy)
        ].template,
        system=lambda wildcards: NOVBENCH.custom[
            evaluator_of(wildcards.strategy)
        ].system,
        registry=config["registry"],
        decoding=config["decoding"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule novbench_card:
    input:
        lambda wildcards: NOVBENCH.card_inputs(RESULTS, wildcards.evaluator),
    output:
        markdown=report(
            NOVBENCH_LAYOUT.card(extension="md"),
            caption="../report/novbench_card.rst",
            category="NovBench",
            subcategory="Cards",
        ),
        table=NOVBENCH_LAYOUT.card(extension="parquet"),
    log:
        NOVBENCH_LAYOUT.log("card"),
    wildcard_constraints:
        evaluator=CARD_NAME,  # not the leaderboard beside the cards
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_card"),
        datasets=lambda wildcards: NOVBENCH.card_datasets(wildcards.evaluator),
        model=lambda wildcards: NOVBENCH.custom[wildcards.evaluator].model,
    script:
        "../scripts/stage.py"


rule novbench_leaderboard:
    input:
        [NOVBENCH_LAYOUT.card(name, "parquet") for name in NOVBENCH.custom],
    output:
        markdown=report(
            NOVBENCH_LAYOUT.leaderboard("md"),
            caption="../report/novbench_leaderboard.rst",
            category="NovBench",
            subcategory="Cards",
        ),
        csv=NOVBENCH_LAYOUT.leaderboard("csv"),
    log:
        NOVBENCH_LAYOUT.log("leaderboard"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_leaderboard"),
    script:
        "../scripts/stage.py"
