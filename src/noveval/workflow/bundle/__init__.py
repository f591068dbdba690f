"""Results as bundles: a run's outputs with what made them, exported as an RO-Crate (rule
bundle) and imported on another machine (``noveval bundle import``) so that Snakemake treats
exactly the outputs whose code and params match the checkout as up to date."""
