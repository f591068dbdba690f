from dataclasses import asdict


# A release declared by {url, commit, pairs, ideas} (config judges.datasets): each file of the
# recorded list (src/noveval/judges/release.yaml) is fetched on the submitting host.
rule judges_download:
    output:
        JUDGES_PATHS.release_download(),
    log:
        JUDGES_PATHS.log("download"),
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        file=lambda wildcards: asdict(
            JUDGES.release_download(wildcards.dataset, wildcards.path)
        ),
    script:
        "../scripts/stage.py"


# The release's ai-only files are ideation setups (ideation-{stronger}-vs-{weaker}) read from the
# release, not built from the pipeline's generations.
ruleorder: judges_instances > judges_ideation_instances
