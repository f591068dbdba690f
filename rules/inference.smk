from noveval.cluster import inference_env, inference_resources


rule infer:
    input:
        f"{RESULTS}/{{track}}/{{dataset}}/{{model}}/{{cell}}/requests.parquet",
    output:
        f"{RESULTS}/{{track}}/{{dataset}}/{{model}}/{{cell}}/responses.parquet",
    log:
        f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{cell}}/infer.log",
        failures=f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{cell}}/failures.json",
    benchmark:
        f"{LOGS}/{{track}}/{{dataset}}/{{model}}/{{cell}}/infer.benchmark.tsv"
    conda:
        lambda wildcards: f"../envs/{inference_env(REGISTRY.model(wildcards.model))}"
    threads: lambda wildcards: 2 if REGISTRY.model(wildcards.model).engine == "llamacpp" else 1
    resources:
        **inference_resources(REGISTRY, config),
    params:
        registry=config["registry"],
        settings=config["inference"],
        cache=CACHE,
        model_entry=lambda wildcards: REGISTRY.model(wildcards.model).fingerprint(),
    script:
        "../scripts/infer.py"
