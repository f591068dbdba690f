# The judge study's benchmark built from a venue's OpenReview notes (config construction.judges):
# notes, top and bottom candidates per area, their reviews' novelty signals, the labelled pools,
# stripped abstracts, generated ideas, and the release layout the judges track reads.
import os

from noveval.construction import judge_calls

if BUILD:
    BUILD_UPSTREAM = [f"{JUDGE_UPSTREAM}/{path}" for path in judge_calls.FILES]

    # Recorded notes (construction.judges.notes) are read as they are; otherwise the venue's
    # notes are fetched from OpenReview on the submitting host.
    rule construction_judges_notes:
        input:
            CONSTRUCTION_JUDGES["notes"] or [],
        output:
            f"{BUILD.folder}/notes.json",
        log:
            f"{BUILD.logs(LOGS)}/notes.log",
        localrule: True
        conda:
            "../envs/noveval.yaml"
        params:
            venue_ids=CONSTRUCTION_JUDGES["venue_ids"],
            baseurl=CONSTRUCTION_JUDGES["baseurl"],
        script:
            "../scripts/stage.py"

    rule construction_judges_candidates:
        input:
            notes=f"{BUILD.folder}/notes.json",
            upstream=BUILD_UPSTREAM,
        output:
            candidates=f"{BUILD.folder}/candidates.json",
            skipped=f"{BUILD.folder}/skipped-notes.json",
        log:
            f"{BUILD.logs(LOGS)}/candidates.log",
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("construction_judges_candidates"),
            rules=CONSTRUCTION_JUDGES["labels"],
            upstream_root=lambda wildcards, input: judge_calls.upstream_root(
                input.upstream[0]
            ),
        script:
            "../scripts/stage.py"

    rule construction_judges_requests:
        input:
            source=lambda wildcards: BUILD.request_source(wildcards.stage),
            upstream=BUILD_UPSTREAM,
        output:
            f"{BUILD.folder}/{{model}}/{{stage}}/requests.parquet",
        log:
            f"{BUILD.logs(LOGS)}/{{model}}/{{stage}}/requests.log",
        wildcard_constraints:
            stage=BUILD.stage_pattern,
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("construction_judges_requests"),
            registry=config["registry"],
            decoding=lambda wildcards: BUILD.decoding(
                config["decoding"], wildcards.stage
            ),
            upstream_root=lambda wildcards, input: judge_calls.upstream_root(
                input.upstream[0]
            ),
            model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
        script:
            "../scripts/stage.py"

    # The same request layer and journals as rule infer: a rerun repeats no call.
    rule construction_judges_infer:
        input:
            requests=[f"{BUILD.folder}/{{model}}/{{stage}}/requests.parquet"],
            weights=lambda wildcards: weights_inputs(
                REGISTRY.model(wildcards.model), RESULTS
            ),
        output:
            f"{BUILD.folder}/{{model}}/responses/{{stage}}.parquet",
        log:
            f"{BUILD.logs(LOGS)}/{{model}}/{{stage}}/infer.log",
            failures=f"{BUILD.logs(LOGS)}/{{model}}/{{stage}}/failures.json",
        wildcard_constraints:
            stage=BUILD.stage_pattern,
        conda:
            lambda wildcards: f"../envs/{inference_env(REGISTRY.model(wildcards.model))}"
        threads: lambda wildcards: 2 if REGISTRY.model(wildcards.model).engine == "llamacpp" else 1
        resources:
            **JOBS.requests_resources(
                lambda wildcards: CONSTRUCTION_JUDGES["max_tokens"][wildcards.stage],
                lambda wildcards: "construction",
            ),
        params:
            registry=config["registry"],
            failure_budget=config["inference"]["failure_budget"],
            cache=CACHE,
            model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
        script:
            "../scripts/stage.py"

    rule construction_judges_labels:
        input:
            candidates=f"{BUILD.folder}/candidates.json",
            responses=BUILD.responses("signals"),
        output:
            labelled=f"{BUILD.folder}/labelled.json",
            skipped=f"{BUILD.folder}/skipped-labels.json",
        log:
            f"{BUILD.logs(LOGS)}/labels.log",
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("construction_judges_labels"),
            rules=CONSTRUCTION_JUDGES["labels"],
        script:
            "../scripts/stage.py"

    rule construction_judges_release:
        input:
            labelled=f"{BUILD.folder}/labelled.json",
            strip=BUILD.responses("strip"),
            generation=BUILD.responses("generation"),
            skipped=[
                f"{BUILD.folder}/skipped-notes.json",
                f"{BUILD.folder}/skipped-labels.json",
            ],
        output:
            files=BUILD.release_files,
            summary=f"{BUILD.folder}/summary.json",
        log:
            f"{BUILD.logs(LOGS)}/release.log",
        conda:
            "../envs/noveval.yaml"
        params:
            code=stage_code("construction_judges_release"),
            seed=CONSTRUCTION_JUDGES["seed"],
            release_dir=lambda wildcards, output: os.path.dirname(
                os.path.dirname(output.files[0])
            ),
            venue=config_slice(CONSTRUCTION_JUDGES, "name", "venue_ids", "deadline"),
        script:
            "../scripts/stage.py"
