from noveval.inference.batches import PARAPHRASE
from noveval.novbench.authors import library_of
from noveval.novbench.decoding import decoding_inputs
from noveval.novbench.layout import released
from noveval.workflow.wildcards import PAPER_STRATEGIES


# The inputs of each NovBench cell and its chat requests.
ruleorder: novbench_changed_inputs > novbench_inputs


rule novbench_inputs:
    input:
        NOVBENCH_LAYOUT.papers(),
    output:
        NOVBENCH_LAYOUT.inputs(),
    log:
        NOVBENCH_LAYOUT.log("inputs"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_inputs"),
        keep_fraction=config["novbench"]["keep_fraction"],
        seed=config["novbench"]["seed"],
    script:
        "../scripts/stage.py"


rule novbench_paraphrase_requests:
    input:
        papers=NOVBENCH_LAYOUT.papers(),
        weights=lambda wildcards: decoding_inputs(
            REGISTRY.model(wildcards.model), config["decoding"], RESULTS
        ),
    output:
        NOVBENCH_LAYOUT.requests(cell=PARAPHRASE),
    log:
        NOVBENCH_LAYOUT.log("requests", cell=PARAPHRASE),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_paraphrase_requests", data=("prompts/novbench",)),
        registry=config["registry"],
        decoding=config["decoding"],
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"


rule novbench_changed_inputs:
    input:
        papers=NOVBENCH_LAYOUT.papers(),
        responses=NOVBENCH_LAYOUT.responses(
            model=NOVBENCH.paraphrase_model, batch=PARAPHRASE
        ),
    output:
        NOVBENCH_LAYOUT.inputs(perturbation="change"),
    log:
        NOVBENCH_LAYOUT.log("inputs", perturbation="change"),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_changed_inputs"),
    script:
        "../scripts/stage.py"


rule novbench_release_inputs:
    input:
        lambda wildcards: NOVBENCH.perturbation_release_paths(wildcards.dataset)[
            wildcards.perturbation
        ],
    output:
        NOVBENCH_LAYOUT.inputs(perturbation=released()),
    log:
        NOVBENCH_LAYOUT.log("inputs", perturbation=released()),
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_release_inputs"),
    script:
        "../scripts/stage.py"


rule novbench_requests:
    input:
        inputs=lambda wildcards: NOVBENCH.inputs_path(
            RESULTS, wildcards.dataset, wildcards.perturbation
        ),
        papers=NOVBENCH_LAYOUT.papers(),
        scripts=lambda wildcards: (
            upstream_inputs(
                RESULTS, REGISTRY.model(wildcards.model), wildcards.strategy
            )
            if config["novbench"]["prompts"] == "authors"
            else []
        ),
        # authors decoding of an open model: its generation config, from the downloaded snapshot
        # (none where the reviewer library of the authors' script sets the sampling)
        weights=lambda wildcards: decoding_inputs(
            REGISTRY.model(wildcards.model),
            config["decoding"],
            RESULTS,
            library_sampled=config["novbench"]["prompts"] == "authors"
            and library_of(REGISTRY.model(wildcards.model)) is not None,
        ),
    output:
        NOVBENCH_LAYOUT.requests(),
    log:
        NOVBENCH_LAYOUT.log("requests"),
    wildcard_constraints:
        strategy=PAPER_STRATEGIES,  # a custom evaluator's: rule novbench_custom_requests
    conda:
        "../envs/noveval.yaml"
    params:
        code=stage_code("novbench_requests", data=("prompts/novbench",)),
        registry=config["registry"],
        decoding=config["decoding"],
        settings=config_slice(
            config["novbench"], "prompts", "few_shot_examples", "seed"
        ),
        upstream_root=f"{RESULTS}/downloads/upstream/novbench",
        source_roots={
            source: f"{RESULTS}/downloads/upstream/{source}"
            for source in ("ai_researcher", "openreviewer", "reviewer2")
        },
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/stage.py"
