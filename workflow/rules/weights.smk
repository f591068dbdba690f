from noveval.inference.weights import cache_dir, downloadable, lock_path, manifest_path


# The weights of an open (vLLM) model, downloaded once on the submitting host (the compute nodes
# need no hub) into the site file's cache, at the registry's pinned revision, else the lock file's
# (weights.allow_unpinned: lock records main's commit there at the first download); the manifest
# lists what was downloaded. Inference jobs of the model take the manifest as input (weights_inputs).
rule weights:
    output:
        manifest=manifest_path(RESULTS, "{model}"),
    log:
        f"{LOGS}/weights/{{model}}.log",
    localrule: True
    conda:
        "../envs/noveval.yaml"
    params:
        repo_id=lambda wildcards: downloadable(REGISTRY, wildcards.model).reference,
        revision=lambda wildcards: downloadable(REGISTRY, wildcards.model).revision,
        cache=str(cache_dir(RESULTS)),
        allow_unpinned=config["weights"]["allow_unpinned"],
        lock=lock_path(config),
    script:
        "../scripts/stage.py"
