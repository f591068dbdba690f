"""The judge stages as file-to-file functions; each Snakemake rule calls exactly one.

The modules that load torch, scipy or matplotlib are imported by the steps that use them: each
job is a fresh process, importing them takes seconds, and most jobs need none of them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from noveval.batches import read_responses
from noveval.chat_requests import REQUEST_COLUMNS
from noveval.files import read_tables, write_table
from noveval.judges import generation, instances, rewrites, tables
from noveval.judges.aggregation import TIE, Rules, aggregate, sub_runs
from noveval.judges.authors import AuthorsPrompts, apply_blocklist, blocked_titles
from noveval.judges.compute import Compute
from noveval.judges.grid import DERIVED, ideation_setup_name, split_change
from noveval.judges.prompts import calls_of, judge_requests
from noveval.judges.verdicts import calls_from_responses
from noveval.registry import load_registry
from noveval.weights import use_offline

log = logging.getLogger(__name__)

VERDICT_COLUMNS = [
    "model",
    "setup",
    "change",
    "instance_id",
    "run",
    "label",
    "verdict",
    "n_calls",
    "n_failed",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "cached_input_tokens",
    "cache_creation_tokens",
    "batch_calls",
    "latency_s",
    "web_searches",
]


def blocklisted(
    table: pd.DataFrame, upstream_root: str | None, pairs: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``table`` without the authors' blocked papers and partners (``upstream_root``: their
    blocklist's folder, None keeps every instance; ``pairs``: the pairwise instances a pointwise
    table's partners are found in, by text)."""
    if not upstream_root:
        return table
    kept = apply_blocklist(table, blocked_titles(upstream_root), pairs)
    log.info("blocklist: %d of %d instances removed", len(table) - len(kept), len(table))
    return kept


def load_instances(
    release_path: str,
    setup: str,
    format: str,
    instances_path: str,
    upstream_root: str | None = None,
    pairs_path: str | None = None,
) -> None:
    """Release YAML → instances table (without blocked papers where ``upstream_root`` is set;
    a pointwise file's blocked partners are found in the setup's pairwise file ``pairs_path``)."""
    table = instances.load_release(release_path, setup, format)
    pairs = instances.load_release(pairs_path, setup, "pairwise") if pairs_path else None
    instances.write_instances(blocklisted(table, upstream_root, pairs), instances_path)


def requests(
    instances_path: str,
    change: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    related_path: str | None = None,
    upstream_root: str | None = None,
) -> None:
    """Every call of one judge cell (``change``: its change name, whatever the form of the ideas
    in ``instances_path``; ``related_path``: the retrieval change's related work).

    ``settings['prompts'] == 'authors'`` renders the authors' prompts from ``upstream_root``.
    """
    change = split_change(change)[0]
    spec = load_registry(registry_path).model(model)
    authors = AuthorsPrompts(upstream_root) if settings["prompts"] == "authors" else None
    related = None
    if related_path:
        table = pd.read_parquet(related_path)
        related = {
            row.instance_id: [list(block) for block in row.related] for row in table.itertuples()
        }
    rows = judge_requests(
        instances.read_instances(instances_path).to_dict("records"),
        change=change,
        spec=spec,
        decoding={**decoding, "max_tokens": settings["max_tokens"]},
        calls=calls_of(change, settings["calls"], settings["calls_by_change"]),
        structured_output=settings["structured_output"],
        reasoning_chars=settings["reasoning_chars"],
        related=related,
        authors=authors,
        prompt_caching=settings["prompt_caching"],
        reasoning_summary=settings["reasoning_summary"],
    )
    log.info("%s/%s: %d calls", model, change, len(rows))
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def generation_requests(
    pairs_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    max_tokens: int,
    requests_path: str,
) -> None:
    """One generated D₋ idea per pair of the base setup, from its primary area only."""
    spec = load_registry(registry_path).model(model)
    rows = generation.generation_requests(
        instances.read_instances(pairs_path), spec, {**decoding, "max_tokens": max_tokens}
    )
    log.info("%s: %d ideas to generate", model, len(rows))
    write_table(rows, requests_path)


def generated_instances(
    pairs_path: str,
    responses_path: str,
    responses_cell: str,
    setup: str,
    pairwise_path: str,
    pointwise_path: str,
    upstream_root: str | None = None,
) -> None:
    """The generated setup's pairwise and pointwise instances (blocklist as ``load_instances``)."""
    pairwise, pointwise = generation.generated_setup(
        instances.read_instances(pairs_path), read_responses(responses_path, responses_cell), setup
    )
    instances.write_instances(blocklisted(pairwise, upstream_root), pairwise_path)
    instances.write_instances(blocklisted(pointwise, upstream_root, pairwise), pointwise_path)


def ideation_instances(
    pairs_path: str,
    stronger: tuple[str, str],
    weaker: tuple[str, str],
    responses_cell: str,
    instances_path: str,
) -> None:
    """Pairwise instances of a stronger vs a weaker generator ((model, responses path) each;
    ``responses_cell``: the generation cell of both)."""
    model, responses = stronger
    other, other_responses = weaker
    table = generation.ideation_setup(
        instances.read_instances(pairs_path),
        (model, read_responses(responses, responses_cell)),
        (other, read_responses(other_responses, responses_cell)),
        ideation_setup_name(model, other),
    )
    instances.write_instances(table, instances_path)


def rewrite_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
) -> None:
    """One rewrite request per idea: the purpose-mechanism form of a setup's ideas."""
    spec = load_registry(registry_path).model(model)
    table = instances.read_instances(instances_path)
    rows = rewrites.rewrite_requests(
        table,
        spec,
        {**decoding, "max_tokens": settings["rewrite_max_tokens"]},
        settings["structured_output"],
    )
    log.info("%s: %d rewrites", model, len(rows))
    write_table(rows, requests_path)


def rewritten_instances(
    setup: str,
    format: str,
    rewritten_path: str,
    release_path: str | None = None,
    instances_path: str | None = None,
    responses_path: str | None = None,
    responses_cell: str | None = None,
    upstream_root: str | None = None,
    pairs_path: str | None = None,
) -> None:
    """Purpose-mechanism instances: the release's ``{format}_plan`` file (blocklist as
    ``load_instances``, partners from ``pairs_path``), or the LLM rewrites of the (already
    filtered) instances (cell ``responses_cell`` of the rewrite model's rewrite batch)."""
    if release_path:
        pairs = instances.load_release(pairs_path, setup, "pairwise") if pairs_path else None
        table = instances.load_release(release_path, setup, format)
        table = blocklisted(table, upstream_root, pairs)
    else:
        table = rewrites.apply_rewrites(
            instances.read_instances(instances_path), read_responses(responses_path, responses_cell)
        )
    instances.write_instances(table, rewritten_path)


def related_work(
    instances_path: str,
    corpus_path: str,
    encoder: str,
    registry_path: str,
    top_k: int,
    related_path: str,
    weights_manifests: list[str] = (),
) -> None:
    """The top-k related abstracts per idea from the retrieval corpus; a hub encoder loads from
    its snapshot of ``weights_manifests`` (rule weights), with the hub off."""
    located = use_offline(weights_manifests)
    from noveval.judges import retrieval

    reference = load_registry(registry_path).encoder(encoder)
    table = retrieval.related_work(
        instances.read_instances(instances_path),
        retrieval.load_corpus(corpus_path),
        located.get(reference, reference),
        top_k,
    )
    write_table(table, related_path)


def verdicts(
    instances_path: str,
    responses_path: str,
    responses_cell: str,
    cell: dict,
    verdicts_path: str,
    protocol: dict,
) -> None:
    """Responses of one cell → aggregated verdict per instance (and run).

    ``no_aggregation`` reads the reference run's responses: its first call of each order, or with
    ``protocol['no_aggregation'] == 'sub_runs'`` one single-call run per call index (the mean of
    their metrics is reported); it costs no call of its own. ``protocol`` also holds the verdict
    format (``prompts``) and the tie rules (``even_split``, ``all_failed``).
    """
    table = instances.read_instances(instances_path)
    format = table["format"].iloc[0]
    responses = read_responses(responses_path, responses_cell)
    calls = calls_from_responses(responses, format, protocol["prompts"])
    if split_change(cell["change"])[0] in DERIVED:
        runs = calls["call"].max() + 1 if protocol["no_aggregation"] == "sub_runs" else None
        calls = sub_runs(calls, runs)
    rules = Rules(protocol["even_split"], protocol["all_failed"])
    aggregated = aggregate(calls, format, rules)
    frame = table[["instance_id", "label"]].merge(aggregated, on="instance_id", how="left")
    for key, value in cell.items():
        frame[key] = value
    log.info(
        "%s: %d instances, %d calls, %d failed or unparseable, %d ties",
        cell,
        len(frame),
        frame["n_calls"].sum(),
        frame["n_failed"].sum(),
        (frame["verdict"] == TIE).sum(),
    )
    write_table(frame[VERDICT_COLUMNS], verdicts_path)


def metrics(
    verdicts_paths: list[str],
    format: str,
    bootstrap: dict,
    parquet_path: str,
    csv_path: str,
    compute: dict[str, dict],
    substitutes: dict[str, str] | None = None,
) -> None:
    """One metrics row per judge × setup × change of one format (``compute``: the local
    judges' devices and price, ``noveval.judges.compute.local_compute``), with the model each
    judge stands in for (``substitutes``: successor → model; empty: itself)."""
    from noveval.judges import summary

    frame = read_tables(verdicts_paths)
    table = summary.metrics_table(
        frame,
        format,
        bootstrap["resamples"],
        bootstrap["seed"],
        method=bootstrap["method"],
        compute={model: Compute(**spec) for model, spec in compute.items()},
    )
    table.insert(
        table.columns.get_loc("model") + 1,
        "substitutes_for",
        [(substitutes or {}).get(model) for model in table["model"]],
    )
    write_table(table, parquet_path)
    table.to_csv(csv_path, index=False)


def report_tables(metrics_path: str, markdown_path: str) -> None:
    """Grid, tie-rate and flip-rate tables from the metrics alone."""
    tables.write(pd.read_parquet(metrics_path), markdown_path)


def cost_quality(metrics_paths: list[str], png_path: str) -> None:
    """The cost–quality scatter from the metrics alone."""
    from noveval.judges import figures

    figures.cost_quality(read_tables(metrics_paths), png_path)


def motivation(metrics_path: str, model: str, changes: list[str], png_path: str) -> None:
    """The motivating figure from the pairwise metrics alone."""
    from noveval.judges import figures

    figures.motivation(pd.read_parquet(metrics_path), png_path, model, changes)


def d_minus_sources(metrics_paths: list[str], png_path: str) -> None:
    """Judge quality by D₋ source (human or generator) from the metrics alone."""
    from noveval.judges import figures

    figures.d_minus_sources(read_tables(metrics_paths), png_path)


def ideation_report(metrics_path: str, csv_path: str, markdown_path: str) -> None:
    """Share awarded to the stronger generator, its difference from the reference and flips per
    change, from the metrics alone."""
    tables.write_ideation(pd.read_parquet(metrics_path), csv_path, markdown_path)


def controlled_study(metrics_path: str, png_path: str) -> None:
    """The controlled-study figure of one format: quality per judge × change, significance
    marked, one panel per setup."""
    from noveval.judges import figures

    table = pd.read_parquet(metrics_path)
    format = table["format"].iloc[0] if len(table) else "pairwise"
    label = "macro-F1 (%)" if format == "pointwise" else "strict accuracy (%)"
    figures.change_grid(table, png_path, "quality", f"{format}: {label}", marks=True)


def soft_accuracy(metrics_path: str, png_path: str) -> None:
    """Pairwise soft accuracy (a tie counts half) per judge × change, one panel per setup."""
    from noveval.judges import figures

    figures.change_grid(
        pd.read_parquet(metrics_path), png_path, "soft_accuracy", "soft accuracy (%)", marks=False
    )


def plan_format_figure(metrics_path: str, changes: list[str], png_path: str) -> None:
    """Pairwise strict accuracy of the cells on another form of the ideas (``changes``) beside
    the reference on the ideas as written, significance marked."""
    from noveval.judges import figures

    figures.change_grid(
        pd.read_parquet(metrics_path),
        png_path,
        "quality",
        "idea as a plan: strict accuracy (%)",
        marks=True,
        changes=changes,
    )


def plan_format(metrics_paths: list[str], csv_path: str) -> None:
    """Each change on another form of the ideas beside the same change on the ideas as written."""
    tables.write_plan_format(read_tables(metrics_paths), csv_path)


def flip_rates(
    verdicts_paths: dict[str, list[str]],
    baselines: dict[str, list[str] | None],
    csv_path: str,
    markdown_path: str,
) -> None:
    """Flip rates of the changes against their baselines (``verdicts_paths``: by format)."""
    verdicts = {format: read_tables(paths) for format, paths in verdicts_paths.items() if paths}
    tables.write_flip_rates(verdicts, baselines, csv_path, markdown_path)


def dataset_sizes(
    instances_paths: list[str], idea_formats: list[str], csv_path: str, markdown_path: str
) -> None:
    """Pairs and ideas per setup, format and idea format, from the instances judged."""
    loaded = [instances.read_instances(path) for path in instances_paths]
    tables.write_dataset_sizes(loaded, idea_formats, csv_path, markdown_path)


def expert_study(annotations_path: str, csv_path: str, markdown_path: str) -> None:
    """Counts of the release's expert re-judgements (errors, controls, whom the expert sides
    with)."""
    tables.write_expert_study(annotations_path, csv_path, markdown_path)


def _search_prompts(settings: dict, upstream_root: str | None):
    from noveval.literature.assisted_search import AssistedSearchPrompts
    from noveval.upstream import UpstreamSource

    if settings["prompts"] == "authors":
        return AssistedSearchPrompts(UpstreamSource("judges", Path(upstream_root)))
    return AssistedSearchPrompts()


def _shown_ideas(table: pd.DataFrame) -> dict[str, str]:
    """Every idea of every instance by ``instance_id|index``."""
    return {
        f"{instance_id}|{index}": idea
        for instance_id, ideas in zip(table["instance_id"], table["ideas"])
        for index, idea in enumerate(ideas)
    }


def _search_decoding(spec, decoding: dict, settings: dict, schema: dict):
    """The decoding and answer constraint of an assisted-search call: the judges' budget; our
    prompts' answers constrained by ``schema`` where the engine can. The budget is
    ``retrieval.max_tokens``, else the judges' ``max_tokens``."""
    from noveval.judges.prompts import response_format

    constrained = settings["structured_output"] and settings["prompts"] != "authors"
    budget = settings["retrieval"]["max_tokens"] or settings["max_tokens"]
    return {**decoding, "max_tokens": budget}, (
        response_format(spec, schema) if constrained else None
    )


def search_contribution_requests(
    instances_path: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
) -> None:
    """Step 1 of the assisted search: one contributions request per idea of a setup."""
    from noveval.literature import assisted_search

    spec = load_registry(registry_path).model(model)
    ideas = _shown_ideas(instances.read_instances(instances_path))
    call, constraint = _search_decoding(
        spec, decoding, settings, assisted_search.CONTRIBUTIONS_SCHEMA
    )
    rows = assisted_search.contribution_requests(
        ideas,
        _search_prompts(settings, upstream_root),
        spec,
        call,
        settings["retrieval"]["max_contributions"],
        constraint,
    )
    log.info("%s: %d contribution requests", model, len(rows))
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def search_query_requests(
    instances_path: str,
    responses_path: str,
    responses_cell: str,
    model: str,
    registry_path: str,
    decoding: dict,
    settings: dict,
    requests_path: str,
    upstream_root: str | None = None,
) -> None:
    """Step 2: one query-writing request per idea whose contributions could be read."""
    from noveval.literature import assisted_search

    spec = load_registry(registry_path).model(model)
    ideas = _shown_ideas(instances.read_instances(instances_path))
    answers = read_responses(responses_path, responses_cell)
    texts = {row.item_id: row.text for row in answers.itertuples() if pd.isna(row.error)}
    call, constraint = _search_decoding(spec, decoding, settings, assisted_search.QUERIES_SCHEMA)
    rows = assisted_search.query_requests(
        ideas,
        texts,
        _search_prompts(settings, upstream_root),
        spec,
        call,
        settings["retrieval"]["n_queries"],
        constraint,
    )
    if len(rows) < len(ideas):
        log.warning(
            "%d of %d ideas: no contributions could be read from the answer; they get no "
            "queries and no related work",
            len(ideas) - len(rows),
            len(ideas),
        )
    write_table(pd.DataFrame(rows, columns=REQUEST_COLUMNS), requests_path)


def searched_related_work(
    instances_path: str,
    queries_path: str,
    responses_path: str,
    responses_cell: str,
    retrieval: dict,
    semantic_scholar: dict,
    cache_dir: str,
    related_path: str,
) -> None:
    """Steps 3-5 of the assisted search: each idea's queries searched on Semantic Scholar, the
    candidates selected and formatted as the authors' related-work block (``related``: per
    idea a list holding that block, empty without candidates). ``queries_path``: the cell's
    query requests (none where no idea's contributions could be read: no idea searches)."""
    from noveval.literature import assisted_search
    from noveval.literature.semantic_scholar import from_settings

    table = instances.read_instances(instances_path)
    answers = read_responses(responses_path, responses_cell, queries_path)
    queries = {
        row.item_id: assisted_search.read_queries(None if pd.notna(row.error) else row.text)
        for row in answers.itertuples()
    }
    s2 = from_settings(semantic_scholar, Path(cache_dir))
    related, searched, empty = [], 0, 0
    for row in table.to_dict("records"):
        blocks = []
        for index, (idea, title) in enumerate(zip(row["ideas"], row["titles"])):
            asked = queries.get(f"{row['instance_id']}|{index}", [])
            searched += len(asked)
            chosen = assisted_search.select_candidates(
                assisted_search.search_candidates(s2, asked, retrieval["top_k"]),
                retrieval["top_k"],
                idea,
                title,
                retrieval["cutoff"],
            )
            empty += not chosen
            blocks.append([assisted_search.format_papers_for_prompt(chosen)] if chosen else [])
        related.append(blocks)
    log.info(
        "%d searches: %d requests sent to Semantic Scholar (retries included), %d answered "
        "from the cache; %d ideas without related work",
        searched,
        s2.requests_made,
        s2.requests_cached,
        empty,
    )
    write_table(
        pd.DataFrame({"instance_id": table["instance_id"], "related": related}), related_path
    )


def ai_scientist_check(
    instances_path: str,
    cell: dict,
    registry_path: str,
    decoding: dict,
    settings: dict,
    inference: dict,
    semantic_scholar: dict,
    search_cache_dir: str,
    journal_dir: str,
    verdicts_path: str,
    transcript_path: str,
    log_path: str,
    upstream_roots: dict[str, str] | None = None,
    weights_manifests: list[str] = (),
) -> None:
    """One AI-Scientist cell: each idea's loop of ``settings['rounds']`` rounds (calls through
    the model's journal in ``journal_dir``, searches through the cached Semantic Scholar client,
    without the idea's own paper and papers after ``settings['cutoff']``), written as verdicts
    and as a transcript of every round (JSON lines).

    ``settings``: ``rounds``, ``max_tokens``, ``effort`` (the calls' reasoning effort, for a
    model that has effort levels), ``cutoff``, ``all_failed``; ``upstream_roots`` (``judges``,
    ``novelty_checker``): the pinned files of the paper mode, else the builtin messages.
    """
    import json

    from noveval.engines.client import ClientSettings
    from noveval.engines.journal import Journal
    from noveval.engines.servers import serve
    from noveval.judges import ai_scientist
    from noveval.literature.semantic_scholar import from_settings
    from noveval.weights import local_weights

    table = instances.read_instances(instances_path)
    spec = load_registry(registry_path).model(cell["model"])
    prompts = (
        ai_scientist.Prompts.read(upstream_roots["novelty_checker"], upstream_roots["judges"])
        if upstream_roots
        else ai_scientist.Prompts.builtin()
    )
    call_decoding = {**decoding, "max_tokens": settings["max_tokens"]}
    if spec.effort_levels:
        call_decoding["reasoning_effort"] = settings["effort"]
    s2 = from_settings(semantic_scholar, Path(search_cache_dir))
    searchers = {
        row["instance_id"]: ai_scientist.searcher(s2, settings["cutoff"], list(row["titles"]))
        for row in table.to_dict("records")
    }
    found: dict[tuple[str, str], list[dict]] = {}

    def search(instance_id: str, query: str) -> list[dict]:
        papers = searchers[instance_id](query)
        found[(instance_id, query)] = papers
        return papers

    client_settings = ClientSettings(
        concurrency=1 if spec.engine == "llamacpp" else inference["concurrency"],
        request_timeout_s=inference["request_timeout_s"],
        max_retries=inference["max_retries"],
    )
    records = table.to_dict("records")
    probe = ai_scientist.Check(records[0]["ideas"][0], settings["rounds"]).messages(prompts)
    weights = local_weights(weights_manifests[0]) if weights_manifests else None
    job = "-".join(["judges", cell["dataset"], cell["setup"], "ai_scientist"])
    with (
        Journal(Path(journal_dir) / spec.name, job_name=job) as journal,
        serve(spec, log_path, inference["server_start_timeout_s"], 1, weights, probe) as endpoint,
    ):
        checks, calls = ai_scientist.run_checks(
            records,
            spec,
            endpoint,
            journal,
            client_settings,
            search,
            prompts,
            settings["rounds"],
            call_decoding,
        )
    verdicts = pd.DataFrame(ai_scientist.verdict_rows(checks, calls, settings["all_failed"]))
    frame = table[["instance_id", "label"]].merge(verdicts, on="instance_id", how="left")
    for key in ("model", "setup", "change"):
        frame[key] = cell[key]
    rounds = ai_scientist.transcript(checks, calls, found)
    log.info(
        "%s: %d ideas, %d calls, %d decided, %d Semantic Scholar searches (%d requests sent, "
        "%d answered from the cache)",
        cell,
        len(frame),
        len(calls),
        sum(check.decision is not None for check in checks.values()),
        sum(row["query"] is not None for row in rounds),
        s2.requests_made,
        s2.requests_cached,
    )
    write_table(frame[VERDICT_COLUMNS], verdicts_path)
    Path(transcript_path).write_text("".join(json.dumps(row) + "\n" for row in rounds))
