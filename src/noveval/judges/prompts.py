"""Judge prompts (reference, P1–P5, retrieval, purpose_mechanism) and one grid cell's requests.

Every change is the reference prompt with one thing different. Repeated calls of one prompt get
``seed = decoding seed + call index``: each call is a distinct, reproducible sample (and a distinct
request id), which is what "3 calls" means on engines that sample; greedy engines simply repeat.
"""

from __future__ import annotations

from noveval.core.registry import ModelSpec
from noveval.core.templates import render
from noveval.inference.requests import build_request
from noveval.judges.authors import AuthorsPrompts, related_text

# judges built for novelty (config judges.systems): the agentic judge decides in one call; the
# AI-Scientist check in rounds of its own rule (noveval.judges.systems.ai_scientist); the Idea
# Novelty Checker in many calls of its own rule (noveval.judges.systems.novelty_checker.checker)
SYSTEMS = ("agentic", "ai_scientist", "novelty_checker")

# What each prompt change renders: (template, template variables).
PROMPTS = {
    "reference": ("full", {"definition": True, "guardrails": True}),
    "P1": ("full", {"definition": True, "guardrails": False}),
    "P2": ("full", {"definition": False, "guardrails": False}),
    "P3": ("short", {"variant": "P3"}),
    "P4": ("short", {"variant": "P4"}),
    "P5": ("short", {"variant": "P5"}),
}
# every other change: "high"; the agentic judge's run config (accuracy_test_web_search.yaml,
# ablations.yaml web_search): "medium"
REASONING_EFFORT = {"low_reasoning": "low", "agentic": "medium"}
# The hosted tools a system's calls carry: the agentic judge's web search, restricted to arxiv.org
# (accuracy_test_web_search.yaml), in the Responses API's tool shape.
TOOLS = {"agentic": [{"type": "web_search", "filters": {"allowed_domains": ["arxiv.org"]}}]}
# A system decides once per instance (the agentic judge's run config: mec_k 1).
ONE_DECISION = {"pointwise": 1, "pairwise_per_order": 1}
# The judge study's prompt caching (ablations.yaml sweep.use_prompt_caching; utils.py sends it to
# Anthropic only): a top-level cache_control, which caches the whole prompt.
CACHE_CONTROL = {"type": "ephemeral"}


def prompt_of(change: str) -> tuple[str, dict]:
    """The prompt a change uses (retrieval, low reasoning and purpose_mechanism use the
    reference prompt)."""
    return PROMPTS.get(change, PROMPTS["reference"])


def messages(
    format: str, area: str, ideas: list[str], change: str, related: list[list[str]] | None = None
) -> list[dict]:
    """The chat messages of one call; ``ideas`` (and ``related``) in the order shown."""
    kind, variables = prompt_of(change)
    if kind == "short":
        if format != "pairwise":
            raise ValueError(f"prompt {change} exists only for pairwise judging")
        return [
            {
                "role": "user",
                "content": render("judges/pairwise_short.j2", ideas=ideas, **variables),
            }
        ]
    context = {
        "area": area,
        "retrieval": change == "retrieval",
        "related": related or [],
        **variables,
    }
    if format == "pointwise":
        user = render("judges/pointwise.j2", idea=ideas[0], **context)
    else:
        user = render("judges/pairwise.j2", ideas=ideas, **context)
    return [
        {"role": "system", "content": render("judges/system.j2")},
        {"role": "user", "content": user},
    ]


def verdict_schema(format: str, change: str, reasoning_chars: int | None) -> dict:
    """JSON schema of a verdict: reasoning first (except the short prompts), then the verdict."""
    properties: dict = {}
    if prompt_of(change)[0] == "full":
        properties["reasoning"] = {"type": "string"}
        if reasoning_chars:
            properties["reasoning"]["maxLength"] = reasoning_chars
    if format == "pointwise":
        properties["novelty"] = {"type": "integer", "enum": [0, 1]}
    else:
        properties["more_novel"] = {"type": "integer", "enum": [1, 2]}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def response_format(spec: ModelSpec, schema: dict) -> dict:
    """The engine's way to constrain output to ``schema``.

    llama.cpp's server takes ``json_object`` with a schema; vLLM and OpenAI-compatible APIs take
    ``json_schema`` (OpenAI's strict mode knows no ``maxLength``, so it is dropped there).
    """
    if spec.engine == "llamacpp":
        return {"type": "json_object", "schema": schema}
    if spec.engine == "api":
        schema = {
            **schema,
            "properties": {
                name: {k: v for k, v in field.items() if k != "maxLength"}
                for name, field in schema["properties"].items()
            },
        }
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": schema, "strict": True},
    }


def calls_of(change: str, calls: dict, calls_by_change: dict) -> dict:
    """The calls of one change: ``calls``, or its entry in ``calls_by_change`` (P3–P5 at 1 + 1
    in the authors' protocol); one per decision for a system."""
    if change in SYSTEMS:
        return ONE_DECISION
    return {**calls, **calls_by_change.get(change, {})}


def call_item_id(instance_id: str, order: int, call: int) -> str:
    """Item id of one call: the instance, the presentation order and the call index."""
    return f"{instance_id}|{order}|{call}"


def split_item_id(item_id: str) -> tuple[str, int, int]:
    """``call_item_id`` backwards."""
    instance_id, order, call = item_id.rsplit("|", 2)
    return instance_id, int(order), int(call)


def judge_requests(
    instances: list[dict],
    change: str,
    spec: ModelSpec,
    decoding: dict,
    calls: dict,
    structured_output: bool = True,
    reasoning_chars: int | None = None,
    related: dict[str, list[list[str]]] | None = None,
    authors: AuthorsPrompts | None = None,
    prompt_caching: bool = False,
    reasoning_summary: str | None = None,
) -> list[dict]:
    """Every call of one cell: ``calls['pointwise']`` per idea, or ``calls['pairwise_per_order']``
    in each presentation order per pair.

    With ``authors`` (the paper mode) each call is one user message rendered from the authors'
    templates, answered in their free format (no output constraint). ``prompt_caching``: the
    Messages API's calls carry ``CACHE_CONTROL`` (other APIs cache by themselves);
    ``reasoning_summary``: the Responses API's calls with an effort ask for this summary. A
    system's calls carry its hosted tools (``TOOLS``).
    """
    cache_control = CACHE_CONTROL if prompt_caching and spec.api == "messages" else None
    tools = TOOLS.get(change)
    rows = []
    for instance in instances:
        format = instance["format"]
        orders = (0,) if format == "pointwise" else (0, 1)
        repeats = calls["pointwise"] if format == "pointwise" else calls["pairwise_per_order"]
        context = (related or {}).get(instance["instance_id"])
        schema = verdict_schema(format, change, reasoning_chars)
        constraint = response_format(spec, schema) if structured_output and not authors else None
        for order in orders:
            ideas = list(instance["ideas"]) if order == 0 else list(instance["ideas"])[::-1]
            shown_related = None if context is None else (context if order == 0 else context[::-1])
            if authors:
                works = None if shown_related is None else [related_text(b) for b in shown_related]
                text = authors.prompt(format, change, ideas, works)
                chat = [{"role": "user", "content": text}]
            else:
                chat = messages(format, instance["area"], ideas, change, shown_related)
            for call in range(repeats):
                call_decoding = {**decoding, "seed": int(decoding["seed"]) + call}
                if spec.effort_levels:  # a model without effort levels takes none
                    call_decoding["reasoning_effort"] = REASONING_EFFORT.get(change, "high")
                row = build_request(
                    item_id=call_item_id(instance["instance_id"], order, call),
                    spec=spec,
                    messages=chat,
                    decoding=call_decoding,
                    response_format=constraint,
                    cache_control=cache_control,
                    reasoning_summary=reasoning_summary
                    if spec.api == "responses" and call_decoding.get("reasoning_effort")
                    else None,
                    tools=tools,
                )
                rows.append(row)
    return rows
