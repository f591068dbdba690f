# Spend so far per model, track and provider, from the journals' cost column, beside the compute
# plan's cost where the plan is written: snakemake spend --configfile ... (no model, no key).
rule spend:
    log:
        f"{LOGS}/spend.log",
    localrule: True
    params:
        cache=CACHE,
        results=RESULTS,
        plan=f"{RESULTS}/plan/compute_plan.csv",
    run:
        from noveval.planning.budget import report_spend

        spent = report_spend(params.cache, REGISTRY, params.results, params.plan)
        Path(log[0]).write_text(spent)
        print(spent)
