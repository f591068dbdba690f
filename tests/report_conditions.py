"""The reproduction report's conditions as the report tests give them: a run that is the paper's
but for its NovBench prompts and decoding (and its scorers, in the tables the tests make)."""

from noveval.reproduction.conditions import Conditions

COLING_SHA = "deb487401d682644122df2356369e6a6a9b38b546d7ae11532bff633b73be09e"
JUDGES_CONDITIONS = {
    "prompts": "authors",
    "requests": {"max_tokens": 8192},
    "models": {"gpt-5.4": {"reference": "gpt-5.4"}},
    "datasets": {"novelty-eval": {"commit": "f022bc38", "blocklist": True}},
    "calls": {"calls": {"pointwise": 3, "pairwise_per_order": 3}, "calls_by_change": {}},
    "aggregation": {"no_aggregation": "first_call"},
}
NOVBENCH_PAPER = {
    "prompts": "authors",
    "decoding": {"mode": "authors", "max_tokens": 4096},
    "models": {},
    "scoring": {
        "relevance_encoder": "spiced",
        "coverage_encoder": "all-minilm-l6-v2",
        "fluency_lm": "distilgpt2",
    },  # fmt: skip
    "datasets": {"coling2020": {"sha256": COLING_SHA, "papers": 73}},
}
# the run is the paper's but for its scorers (coling_table) and its NovBench prompts and decoding
CONDITIONS = Conditions(
    run={"novbench": {**NOVBENCH_PAPER, "prompts": "builtin"}, "judges": JUDGES_CONDITIONS},
    paper={"novbench": NOVBENCH_PAPER, "judges": JUDGES_CONDITIONS},
    limits={"max_empty_share": 0.1, "max_failed_share": 0.05},
)
