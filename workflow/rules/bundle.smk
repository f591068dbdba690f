# The outputs of the configured targets' jobs with what made them (code, params, config, model
# commits), as an RO-Crate: `noveval bundle import` on another machine rebuilds every table and
# figure from it without a model job (docs/bundles.md).
rule bundle:
    input:
        lambda wildcards: [
            path
            for target in config["bundle"]["targets"]
            for path in getattr(rules, target).input
        ],
    output:
        f"{RESULTS}/bundle.zip",
    log:
        f"{LOGS}/bundle/export.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        targets=config["bundle"]["targets"],
        journals=config["bundle"]["journals"],
        license=config["bundle"]["license"],
        code=stage_code("bundle"),
    script:
        "../scripts/stage.py"
