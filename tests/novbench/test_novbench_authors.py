"""NovBench paper mode: the authors' prompts rendered from their scripts, the decoding switch, the
released perturbations of Table 5 and the release layout behind config/paper.yaml's URLs.

The expected prompts are built here from the shared copies of the authors' scripts, apart from the
project's code: the test cuts each script's prompt function out of its text and runs only that
function, in an empty namespace, on the raw JSON record. The reviewer models' requests are checked
the same way against the ai_researcher library their scripts call (its system prompt and sampling
cut out of a shared copy of the library at the pinned commit).
"""

from __future__ import annotations

import ast
import json
import random
import re
import textwrap
from pathlib import Path

import jinja2
import pandas as pd
import pytest
import yaml
from conftest import REPO, SAMPLE, run_snakemake, shared_file, write_yaml

from noveval.core import upstream
from noveval.core.registry import load_registry
from noveval.core.upstream import UpstreamError
from noveval.inference.engines import providers
from noveval.novbench import generation, grid, perturbation, records

REGISTRY = load_registry(REPO / "config" / "models.yaml")
SCRIPTS = "code/LLM_novelty_generate"
DECODING = {"temperature": 0.0, "seed": 0, "max_tokens": 64, "mode": "greedy"}
SETTINGS = {"few_shot_examples": 2, "seed": 7}
# registry model -> the authors' scripts of its kind, by strategy
CASES = {
    "gpt-4o": {"zero": "API_model_zero.py", "few": "API_model_few.py", "rag": "API_model_rag.py"},
    "qwen3-8b": {"zero": "zero_shot.py", "few": "few_shot.py", "rag": "RAG_prompt.py"},
    "sea-e": {"zero": "SEA_zero.py", "few": "SEA_few.py", "rag": "SEA_rag.py"},
}
ZERO_CHANGE_CASES = [(m, s, f) for m, files in CASES.items() for s, f in files.items()]


def upstream_root() -> Path:
    return shared_file("novbench", "upstream")


def scripts_prompt(script: str):
    """The script's prompt function, cut out of its text and defined in an empty namespace."""
    text = (upstream_root() / SCRIPTS / script).read_text(encoding="utf-8")
    snippet = re.search(r'^def build_novelty\w*\(.*?\):\n\s+return f""".*?"""\n', text, re.S | re.M)
    namespace: dict = {"__builtins__": {}}
    exec(snippet.group(0), namespace)  # noqa: S102 - the authors' f-string function only
    (function,) = [value for key, value in namespace.items() if key.startswith("build_novelty")]
    return function


def scripts_messages(script: str, prompt: str) -> list[dict]:
    """The messages list of the script: its system message (SEA) and the user prompt."""
    text = (upstream_root() / SCRIPTS / script).read_text(encoding="utf-8")
    system = re.findall(r'\{"role": "system", "content": "([^"]*)"\}', text)
    user = {"role": "user", "content": prompt}
    return [*({"role": "system", "content": s} for s in system), user]


def raw_records() -> dict[str, dict]:
    return {record["id"]: record for record in json.loads(SAMPLE.read_text(encoding="utf-8"))}


def seeded_draw(paper_id: str, ids: list[str], seed: int) -> list[str]:
    """The project's documented few-shot draw (the authors' had no seed): 2 of the other ids."""
    others = sorted(i for i in ids if i != paper_id)
    return [others[i] for i in random.Random(f"{seed}:{paper_id}").sample(range(len(others)), 2)]


def expected_prompt(script: str, strategy: str, record: dict, pool: dict[str, dict]) -> str:
    build = scripts_prompt(script)
    if strategy == "zero":
        return build(record["paper_novelty"])
    if strategy == "few":
        first, second = (pool[i] for i in seeded_draw(record["id"], list(pool), SETTINGS["seed"]))
        return build(
            record["paper_novelty"],
            first["paper_novelty"],
            second["paper_novelty"],
            first["output_format"],
            second["output_format"],
        )
    return build(record["paper_novelty"], record["retrieved_title"], record["retrieved_abstract"])


def authors_request(papers, paper_id: str, strategy: str, model: str, decoding=DECODING) -> dict:
    (row,) = generation.generation_requests(
        papers[papers["paper_id"] == paper_id],
        papers,
        strategy,
        REGISTRY.model(model),
        decoding,
        SETTINGS,
        prompts="authors",
        upstream_root=str(upstream_root()),
    )
    return row


@pytest.fixture(scope="module")
def papers():
    return records.load_release(SAMPLE)


@pytest.mark.parametrize(("model", "strategy", "script"), ZERO_CHANGE_CASES)
def test_authors_request_equals_the_prompt_their_script_builds(papers, model, strategy, script):
    pool = raw_records()
    row = authors_request(papers, "S001", strategy, model)
    expected = scripts_messages(script, expected_prompt(script, strategy, pool["S001"], pool))
    assert json.loads(row["messages"]) == expected
    content = expected[-1]["content"]
    assert str(pool["S001"]["paper_novelty"]) in content  # the list literal, as they inserted it
    if strategy == "few":
        assert "### Example 2" in content and "Positive Novelty Evaluations  \n-" in content
    if model == "sea-e":
        assert expected[0] == {"role": "system", "content": "You are a helpful assistant."}


def test_open_model_few_shot_keeps_its_own_apostrophe(papers):
    """few_shot.py says "it’s", API_model_few.py "it's": each model gets its own script's text."""
    open_model = json.loads(authors_request(papers, "S002", "few", "qwen3-8b")["messages"])
    hosted = json.loads(authors_request(papers, "S002", "few", "gpt-4o")["messages"])
    assert "### Now it’s your turn:" in open_model[0]["content"]
    assert "### Now it's your turn:" in hosted[0]["content"]


# --- the reviewer models: the scripts' prompt as custom_prompt of the ai_researcher library ----

REVIEWERS = {
    "cyclereviewer-8b": ("CycleReviewer", "cycle_reviewer.py"),
    "cyclereviewer-70b": ("CycleReviewer", "cycle_reviewer.py"),
    "deepreviewer-7b": ("Deep_review", "deep_reviewer.py"),
    "deepreviewer-14b": ("Deep_review", "deep_reviewer.py"),
}
REVIEWER_CASES = [(m, s) for m in REVIEWERS for s in ("zero", "few", "rag")]
SOURCES = ("ai_researcher", "openreviewer", "reviewer2")


def source_root(source: str) -> Path:
    """The shared copy of a pinned source beside the authors' scripts (model-code/<source>): the
    ai_researcher library, maxidl/openreviewer and ZhaolinGao/Reviewer2 at their pinned commits
    (src/noveval/core/upstream.yaml)."""
    return shared_file("novbench", "model-code", source)


def library_root() -> Path:
    return source_root("ai_researcher")


def source_roots() -> dict[str, str]:
    return {source: str(source_root(source)) for source in SOURCES}


def reviewer_script(model: str, strategy: str) -> str:
    """The script's name; the few-shot ones hold "it’s" as GBK bytes, read as such."""
    return f"{REVIEWERS[model][0]}_{strategy}.py"


def reviewer_prompt(script: str):
    text = (upstream_root() / SCRIPTS / script).read_bytes().decode("gbk")
    snippet = re.search(r'^def build_novelty\w*\(.*?\):\n\s+return f""".*?"""\n', text, re.S | re.M)
    namespace: dict = {"__builtins__": {}}
    exec(snippet.group(0), namespace)  # noqa: S102 - the authors' f-string function only
    (function,) = [value for key, value in namespace.items() if key.startswith("build_novelty")]
    return function


def library_request(model: str) -> tuple[str, dict]:
    """The library's system prompt and sampling for the scripts' call, cut out of its text:
    DeepReviewer's ``_generate_system_prompt`` run for "Fast Mode" (what ``mode="Fast Mode"``
    selects), CycleReviewer's ``system_prompt`` literal, and their ``SamplingParams``."""
    text = (library_root() / "ai_researcher" / REVIEWERS[model][1]).read_text(encoding="utf-8")
    if model.startswith("deepreviewer"):
        method = re.search(r"^    def _generate_system_prompt\(.*?(?=^    def )", text, re.S | re.M)
        namespace: dict = {"__builtins__": {}}
        exec(textwrap.dedent(method.group(0)), namespace)  # noqa: S102 - one string method
        system = namespace["_generate_system_prompt"](None, mode="Fast Mode")
    else:
        literal = re.search(r'system_prompt = \\\n\s+(""".*?""")', text, re.S).group(1)
        system = ast.literal_eval(literal)
    call = re.search(r"SamplingParams\((.*?)\)", text, re.S).group(1)
    sampling = dict(re.findall(r"(\w+)=([\w.]+)", call))
    if sampling["max_tokens"] == "max_tokens":  # evaluate's default
        sampling["max_tokens"] = re.search(r"def evaluate\(.*?max_tokens=(\d+)", text).group(1)
    return system, {key: float(value) for key, value in sampling.items()}


def expected_reviewer_content(model: str, strategy: str, record: dict, pool: dict) -> str:
    """The script's prompt (the 4 example arguments of few-shot: their call passes the paper's
    own sentences as a fifth, which fails), then the sentences as the other scripts insert them."""
    build = reviewer_prompt(reviewer_script(model, strategy))
    if strategy == "zero":
        prompt = build()
    elif strategy == "few":
        first, second = (pool[i] for i in seeded_draw(record["id"], list(pool), SETTINGS["seed"]))
        with pytest.raises(TypeError, match="takes 4 positional arguments but 5 were given"):
            build(record["paper_novelty"], first["paper_novelty"], second["paper_novelty"], 0, 0)
        prompt = build(
            first["paper_novelty"],
            second["paper_novelty"],
            first["output_format"],
            second["output_format"],
        )
    else:
        prompt = build(record["retrieved_title"], record["retrieved_abstract"])
    return prompt + str(record["paper_novelty"])


def reviewer_request(papers, paper_id: str, strategy: str, model: str, decoding=DECODING):
    (row,) = generation.generation_requests(
        papers[papers["paper_id"] == paper_id],
        papers,
        strategy,
        REGISTRY.model(model),
        decoding,
        SETTINGS,
        prompts="authors",
        upstream_root=str(upstream_root()),
        source_roots=source_roots(),
    )
    return row


@pytest.mark.parametrize(("model", "strategy"), REVIEWER_CASES)
def test_reviewer_request_is_the_library_call_of_their_script(papers, model, strategy):
    pool = raw_records()
    row = reviewer_request(papers, "S001", strategy, model, {**DECODING, "mode": "authors"})
    system, sampling = library_request(model)
    expected = expected_reviewer_content(model, strategy, pool["S001"], pool)
    assert json.loads(row["messages"]) == [
        {"role": "system", "content": system},
        {"role": "user", "content": expected},
    ]
    assert {key: row[key] for key in sampling} == sampling
    assert row["seed"] is None
    if strategy == "few":
        assert "### Now it’s your turn:" in expected
    if model.startswith("deepreviewer"):
        assert "Your thinking mode is Fast Mode" in system
        assert sampling == {"temperature": 0.4, "top_p": 0.95, "max_tokens": 35000}
    else:
        assert sampling == {"temperature": 0.4, "top_p": 0.95, "max_tokens": 7000}


def test_reviewer_requests_fit_their_servers_context(papers):
    """The library's token limit plus the longest prompt of the sample (4 characters a token
    would be generous; 2 is a floor for English) fits the model's context length."""
    for model in REVIEWERS:
        spec = REGISTRY.model(model)
        for strategy in ("zero", "few", "rag"):
            rows = generation.generation_requests(
                papers,
                papers,
                strategy,
                spec,
                DECODING,
                SETTINGS,
                "authors",
                str(upstream_root()),
                source_roots(),
            )
            for row in rows:
                characters = sum(len(m["content"]) for m in json.loads(row["messages"]))
                assert row["max_tokens"] + characters / 2 <= spec.context_length, model


def test_the_library_sampling_reaches_the_local_server(papers):
    authors_decoding = {**DECODING, "mode": "authors"}
    row = reviewer_request(papers, "S001", "zero", "deepreviewer-7b", authors_decoding)
    endpoint = providers.Endpoint(base_url="http://127.0.0.1:1/v1", api_key="-", served_model="m")
    sent = providers.provider_for(endpoint).arguments(row)
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"]) == (0.4, 0.95, 35000)
    assert "seed" not in sent
    hosted = authors_request(papers, "S001", "zero", "gpt-4o")
    assert hosted["top_p"] is None and "top_p" not in providers.provider_for(endpoint).arguments(
        hosted
    )


PINNED_AT = {
    "ai_researcher": "zhu-minjun/Researcher/f07184701ee722575f144ecfbf753460a7e45160/",
    "openreviewer": "maxidl/openreviewer/31798b43b5fc7a20b28e38821a6684fa0e8ca3f8/",
    "reviewer2": "ZhaolinGao/Reviewer2/74265130d7da55d44288d68d04e86741c465e626/",
}


@pytest.mark.parametrize("name", SOURCES)
def test_the_reviewer_sources_are_pinned_at_a_commit_and_checked(name):
    source = upstream.UpstreamSource(name, source_root(name))
    for path, pin in upstream.pinned(name).items():
        assert source.text(path)
        assert pin.url == f"https://raw.githubusercontent.com/{PINNED_AT[name]}{path}"


def test_reviewer_models_need_the_library(papers):
    with pytest.raises(ValueError, match="'deepreviewer-7b' needs the folder of the pinned ai_res"):
        generation.generation_requests(
            papers,
            papers,
            "zero",
            REGISTRY.model("deepreviewer-7b"),
            DECODING,
            SETTINGS,
            "authors",
            str(upstream_root()),
        )


# --- Llama-OpenReviewer and Reviewer2: their cards' prompt format around the open-model prompt --

OPEN_SCRIPTS = {"zero": "zero_shot.py", "few": "few_shot.py", "rag": "RAG_prompt.py"}
THREE_SECTIONS = (
    "Positive Novelty Evaluations\n-\n\n"
    "Neutral Novelty Evaluations\n-\n\n"
    "Negative Novelty Evaluations\n-"
)


def card_text(source: str, path: str) -> str:
    return (source_root(source) / path).read_text(encoding="utf-8")


def openreviewer_templates() -> tuple[str, str]:
    """generate.py's two templates (the ones the model card shows), cut out of its text."""
    text = card_text("openreviewer", "llm_training/generate.py")
    system, user = (
        re.search(rf'^{name} = """(.*?)"""', text, re.S | re.M).group(1)
        for name in ("SYSTEM_PROMPT_TEMPLATE", "USER_PROMPT_TEMPLATE")
    )
    return system, user


def reviewer2_prompt() -> str:
    """The review model's Llama-2 prompt of demo.py (its second prompt_Llama_2)."""
    found = re.findall(r"prompt_Llama_2 = (\(.*?\n    \))", card_text("reviewer2", "demo.py"), re.S)
    return ast.literal_eval(found[-1])


@pytest.mark.parametrize("strategy", ["zero", "few", "rag"])
def test_llama_openreviewer_gets_its_cards_templates_around_the_open_prompt(papers, strategy):
    pool = raw_records()
    row = reviewer_request(papers, "S001", strategy, "llama-openreviewer-8b")
    system, user = openreviewer_templates()
    prompt = expected_prompt(OPEN_SCRIPTS[strategy], strategy, pool["S001"], pool)
    assert json.loads(row["messages"]) == [
        {"role": "system", "content": system.format(review_fields=THREE_SECTIONS)},
        {"role": "user", "content": user.format(paper_text=prompt)},
    ]
    assert (
        "# Review\n\nPositive Novelty Evaluations\n-\n\nNeutral"
        in json.loads(row["messages"])[0]["content"]
    )
    assert (row["temperature"], row["max_tokens"]) == (0.0, 64)  # the run's decoding
    assert row["top_p"] is None  # a column of every request table; null is never sent
    endpoint = providers.Endpoint(base_url="http://127.0.0.1:1/v1", api_key="-", served_model="m")
    assert "top_p" not in providers.provider_for(endpoint).arguments(row)


@pytest.mark.parametrize("strategy", ["zero", "few", "rag"])
def test_reviewer2_prompt_is_its_demos_llama2_prompt_around_the_open_prompt(papers, strategy):
    """The registry's chat template renders the request to demo.py's review prompt, with the
    open models' prompt where the demo puts its review instructions."""
    pool = raw_records()
    row = reviewer_request(papers, "S002", strategy, "reviewer2")
    template = REGISTRY.model("reviewer2").chat_template.removeprefix("pypi:noveval/")
    chat = jinja2.Environment().from_string((REPO / "src/noveval" / template).read_text())
    rendered = chat.render(messages=json.loads(row["messages"]), bos_token="<s>", eos_token="</s>")
    demo = reviewer2_prompt()
    head = demo[: demo.index("<</SYS>>\n") + len("<</SYS>>\n")]
    prompt = expected_prompt(OPEN_SCRIPTS[strategy], strategy, pool["S002"], pool)
    assert rendered == f"<s>{head}{prompt}[/INST]"
    assert head.startswith("[INST] <<SYS>>\nYou are a helpful, respectful and honest assistant.")
    plain = chat.render(messages=[{"role": "user", "content": "Hello"}], bos_token="<s>")
    assert plain == "<s>[INST] Hello[/INST]"  # the server start's check request


def test_builtin_prompts_stay_the_default(papers):
    (row,) = generation.generation_requests(
        papers.head(1), papers, "zero", REGISTRY.model("gpt-4o"), DECODING, SETTINGS
    )
    roles = [message["role"] for message in json.loads(row["messages"])]
    assert roles == ["system", "user"]


def test_authors_prompts_need_the_scripts_and_check_their_digest(papers, tmp_path):
    with pytest.raises(ValueError, match="needs the folder of the authors' scripts"):
        generation.generation_requests(
            papers, papers, "zero", REGISTRY.model("gpt-4o"), DECODING, SETTINGS, "authors"
        )
    script = tmp_path / SCRIPTS / "API_model_zero.py"
    script.parent.mkdir(parents=True)
    script.write_text((upstream_root() / SCRIPTS / "API_model_zero.py").read_text() + "\n")
    with pytest.raises(UpstreamError, match="API_model_zero.py: SHA-256"):
        generation.generation_requests(
            papers,
            papers,
            "zero",
            REGISTRY.model("gpt-4o"),
            DECODING,
            SETTINGS,
            "authors",
            str(tmp_path),
        )


def test_decoding_authors_sends_no_temperature_or_seed(papers):
    authors = authors_request(papers, "S001", "zero", "gpt-4o", {**DECODING, "mode": "authors"})
    greedy = authors_request(papers, "S001", "zero", "gpt-4o", {**DECODING, "mode": "greedy"})
    assert authors["temperature"] is None and authors["seed"] is None
    assert (greedy["temperature"], greedy["seed"]) == (0.0, 0)
    assert (authors["max_tokens"], greedy["max_tokens"]) == (None, 64)  # they sent no cap
    assert authors["request_id"] != greedy["request_id"]
    with pytest.raises(ValueError, match="decoding.mode 'sampled' is unknown"):
        generation.call_decoding({**DECODING, "mode": "sampled"})


# --- the authors' perturbation releases (Final_data_change.json, Final_data_del.json) ----------

NOT_A_LITERAL = "['Paraphrase one.', 'It's a paraphrase whose quote breaks the literal.']"


def write_releases(tmp_path: Path) -> dict[str, Path]:
    """Two records of the sample in the release format: change (strings), del (lists)."""
    pool = raw_records()
    change = [
        {**pool["S001"], "paper_novelty": NOT_A_LITERAL},
        {**pool["S002"], "paper_novelty": str(["A valid paraphrased literal sentence."])},
    ]
    deleted = [
        {**pool["S001"], "paper_novelty": pool["S001"]["paper_novelty"][:1]},
        {**pool["S002"], "paper_novelty": pool["S002"]["paper_novelty"][:1]},
    ]
    paths = {"change": tmp_path / "change.json", "del": tmp_path / "del.json"}
    paths["change"].write_text(json.dumps(change))
    paths["del"].write_text(json.dumps(deleted))
    return paths


def test_change_and_del_releases_load_as_given(tmp_path):
    paths = write_releases(tmp_path)
    change = records.load_perturbation_release(paths["change"]).set_index("paper_id")
    deleted = records.load_perturbation_release(paths["del"]).set_index("paper_id")
    assert change.loc["S001", "novelty_text"] == NOT_A_LITERAL
    assert list(change.loc["S001", "descriptions"]) == [NOT_A_LITERAL]
    assert list(change.loc["S002", "descriptions"]) == ["A valid paraphrased literal sentence."]
    first = raw_records()["S001"]["paper_novelty"][0]
    assert deleted.loc["S001", "novelty_text"] == str([first])
    with pytest.raises(ValueError, match="'paper_novelty' is a string but not a list literal"):
        records.load_release(paths["change"])


def test_released_papers_are_the_baseline_and_the_change_goes_into_the_prompt(tmp_path, papers):
    paths = write_releases(tmp_path)
    releases = {kind: records.load_perturbation_release(path) for kind, path in paths.items()}
    baseline = perturbation.released_papers(papers, releases)
    assert list(baseline["paper_id"]) == ["S001", "S002"]
    assert baseline.iloc[0]["novelty_text"] == str(raw_records()["S001"]["paper_novelty"])
    (row,) = generation.generation_requests(
        releases["change"].head(1),
        papers,
        "zero",
        REGISTRY.model("gpt-4o"),
        DECODING,
        SETTINGS,
        "authors",
        str(upstream_root()),
    )
    build = scripts_prompt("API_model_zero.py")
    assert json.loads(row["messages"])[0]["content"] == build(NOT_A_LITERAL)
    with pytest.raises(ValueError, match=r"1 papers of the perturbation release .*ids S001"):
        perturbation.released_papers(papers[papers["paper_id"] != "S001"], releases)


def release_config(paths: dict[str, Path]) -> dict:
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    section = config["novbench"]
    section["models"] = ["smollm2-135m", "gpt-4o"]
    section["datasets"]["release"] = {
        "path": str(SAMPLE),
        "models": ["gpt-4o"],
        "perturbations_release": {k: str(p) for k, p in paths.items()},
    }
    return config


def test_grid_runs_a_release_dataset_on_its_models_with_the_released_inputs(tmp_path):
    paths = write_releases(tmp_path)
    config = release_config(paths)
    built = grid.novbench_grid(config, REGISTRY)
    cells = {(c.model, c.strategy, c.perturbation) for c in built.cells_of("release")}
    kinds = ("none", "change", "del")
    assert cells == {("gpt-4o", s, k) for s in ("zero", "few", "rag") for k in kinds}
    assert (
        built.inputs_path("r", "release", "change")
        == "r/novbench/release/inputs/release_change.parquet"
    )
    assert built.inputs_path("r", "release", "none") == "r/novbench/release/inputs/none.parquet"
    assert built.inputs_path("r", "sample", "del") == "r/novbench/sample/inputs/del.parquet"
    assert built.paraphrased()  # the sample's change cells still use our paraphrases
    config["novbench"]["datasets"]["sample"] = None
    assert not grid.novbench_grid(config, REGISTRY).paraphrased()
    config["novbench"]["datasets"]["release"]["models"] = ["gpt-5"]
    with pytest.raises(ValueError, match=r"models \['gpt-5'\] are not in novbench.models"):
        grid.novbench_grid(config, REGISTRY)


# --- the authors' release layout and config/paper.yaml's URLs --------------------------------

LAYOUT = yaml.safe_load((REPO / "src/noveval/novbench/release_layout.yaml").read_text())
RAW = re.compile(r"https://raw\.githubusercontent\.com/([^/]+/[^/]+)/([0-9a-f]{40})/(.+)")


def paper_urls() -> list[str]:
    text = (REPO / "config" / "paper.yaml").read_text()
    return re.findall(r"https://raw\.githubusercontent\.com/njust-winchy/\S+", text)


def test_every_pinned_url_of_the_paper_config_is_in_the_authors_layout():
    urls = paper_urls()
    paths = {RAW.match(url).group(3) for url in urls}
    releases = {f"rebuttal_result/Final_data_{kind}.json" for kind in ("change", "del")}
    assert releases <= paths
    for url in urls:
        repo, commit, path = RAW.match(url).groups()
        assert (repo, commit) == (LAYOUT["repo"], LAYOUT["commit"]), url
        assert path in LAYOUT["files"], f"{path} is not in the authors' repository at {commit}"


def test_layout_digest_matches_the_shared_coling_release():
    import hashlib

    digest = hashlib.sha256(shared_file("novbench", "coling2020_pairs.json").read_bytes())
    assert LAYOUT["files"]["rebuttal_result/Final_data_coling.json"]["sha256"] == digest.hexdigest()
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    for name, entry in config["novbench"]["datasets"].items():
        if entry and entry.get("sha256"):
            path = RAW.match(entry["url"]).group(3)
            assert LAYOUT["files"][path]["sha256"] == entry["sha256"], name


@pytest.mark.workflow
def test_workflow_builds_authors_requests_from_fetched_scripts_and_released_inputs(tmp_path):
    """Plumbing: rule upstream_file copies the script the request rule needs (config `upstream`),
    the release dataset holds the released papers and its change cell the released inputs."""
    paths = write_releases(tmp_path)
    results = tmp_path / "results"
    overlay = write_yaml(
        tmp_path / "overlay.yaml",
        {
            "results": str(results),
            "upstream": {"novbench": str(upstream_root())},
            "decoding": {"mode": "authors"},
            "novbench": {
                "prompts": "authors",
                "datasets": {
                    "sample": {
                        "path": str(SAMPLE),
                        "perturbations_release": {k: str(p) for k, p in paths.items()},
                    }
                },
            },
        },
    )
    cell = results / "novbench/sample/smollm2-135m/zero-change/requests.parquet"
    run_snakemake(str(cell), "--cores", "1", "--configfile", "config/config.yaml", str(overlay))
    rows = pd.read_parquet(cell)
    assert list(rows["item_id"]) == ["S001", "S002"]
    assert rows["temperature"].isna().all() and rows["seed"].isna().all()
    messages = json.loads(rows.iloc[0]["messages"])
    assert messages == [{"role": "user", "content": scripts_prompt("zero_shot.py")(NOT_A_LITERAL)}]
    assert (results / "downloads/upstream/novbench" / SCRIPTS / "zero_shot.py").is_file()
    assert len(records.read_papers(results / "novbench/sample/papers.parquet")) == 2
