"""Every command that the README and the pages under docs/ give in a fenced shell block is run
here as written (in a copy of the checkout beside the shared data), or listed in
:data:`NOT_RUN` with the reason it cannot run here. A new command fails the suite until it is one
or the other; a command that no longer works fails it too.

Every name the pages give (with config/README.md) exists: the repository's paths, the package's
modules and what they define, the workflow's rules and targets, the config's keys. A renamed or
moved one fails the suite until the pages name it again."""

from __future__ import annotations

import ast
import glob
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import REPO, SHARED_DATA, config_schema, snakemake_env, write_yaml

from noveval.inference.workloads import BATCH_WINDOW_HOURS

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("**/*.md"))]
SHELLS = {"bash", "sh", "shell", "console"}
PAPER = "--configfile config/config.yaml config/paper.yaml"
COSTS = ("api_cost_usd", "api_cost_batch_usd", "gpu_hours")  # the plan's totals the docs state

# Commands that cannot run here, each with why, and where its parts are tested instead.
NOT_RUN = {
    "make run": "the embedded default end to end takes 15 minutes on 2 cores; the embedded_run "
    "fixture runs the same config on 2 papers, 2 pairs and 2 ideas",
    "make test": "this suite is what it runs (CI runs it through .ci/run)",
    "snakemake spend --cores 1 --configfile config/config.yaml my-overlay.yaml": "the overlay "
    "of the embedded run; tests/planning/test_budget.py runs `snakemake spend` on the embedded run",
    f"snakemake pilot --profile profiles/slurm {PAPER}": "the paper grid's pilot serves vLLM "
    "models on GPUs and pays the providers; tests/planning/test_slurm.py runs the pilot on the CI "
    "cluster with the embedded model and gpt-4o on the loopback server",
    "export OPENAI_API_KEY=... GEMINI_API_KEY=... ANTHROPIC_API_KEY=...": "a placeholder for "
    "real keys, before the paid run below",
    f"snakemake --profile profiles/slurm {PAPER}": "the paper grid itself (GPU-hours, paid "
    "calls); test_paper_run runs its judges and NovBench sections on the release copies through "
    "the loopback providers",
    f"snakemake --cores 1 bundle {PAPER}": "needs the paper grid's outputs; "
    "tests/workflow/test_bundles.py exports the embedded run the same way",
    "pip install -e .": "the base install, done here by make setup (with the extras)",
    f"noveval bundle import results/bundle.zip {PAPER}": "needs the paper grid's bundle; "
    "tests/workflow/test_bundles.py imports the embedded run's into a fresh clone",
    f"noveval status {PAPER}": "reads a running paper grid; tests/workflow/test_status.py runs "
    "it on the embedded run killed and rerun",
    f"snakemake --cores 4 all reproduction {PAPER}": "rebuilds the paper grid's tables from its "
    "bundle; tests/workflow/test_bundles.py rebuilds the embedded run's, with no model rule",
    "cat > release.yaml <<'YAML'\njudges:\n  datasets: {release: ../shared/data/novelty-eval}   "
    "# sample: null would drop the shipped sample\nYAML": "the overlay of the command below",
    "snakemake --cores 2 judges --configfile config/config.yaml release.yaml": "SmolLM2 judging "
    "the whole release copies takes several minutes on 2 cores; test_paper_run judges them "
    "through the loopback providers",
}


def fenced_commands(path: Path) -> list[str]:
    return commands_in(path.read_text(encoding="utf-8"))


def commands_in(text: str) -> list[str]:
    """The commands of a page's fenced shell blocks: continued lines joined, a heredoc kept with
    its command, comments and the shell prompt dropped."""
    commands, block, heredoc = [], None, None
    for line in text.splitlines():
        fence = re.match(r"^\s*```(\w*)", line)
        if fence and heredoc is None:
            block = None if block is not None else (fence.group(1) in SHELLS)
            continue
        if not block:
            continue
        if heredoc is not None:
            commands[-1] += "\n" + line
            if line.strip() == heredoc:
                heredoc = None
            continue
        text = re.sub(r"\s+#\s.*$|^#.*$", "", line).removeprefix("$ ").strip()
        if not text:
            continue
        if commands and commands[-1].endswith("\\"):
            commands[-1] = commands[-1][:-1].rstrip() + " " + text
        else:
            commands.append(text)
        if found := re.search(r"<<-?\s*'?(\w+)'?", text):
            heredoc = found.group(1)
    return [" ".join(c.split()) if "\n" not in c else c for c in commands]


def documented() -> dict[str, str]:
    """Every fenced command, with the page that gives it."""
    return {c: page.name for page in PAGES for c in fenced_commands(page)}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout (no results, environments or history) beside a link to the shared
    data, as a user's clone sits: commands run in it write nothing into this one."""
    root = tmp_path_factory.mktemp("user")
    copy = root / "noveval"
    ignored = shutil.ignore_patterns(
        ".git", ".venv", "results", ".snakemake", "__pycache__", "*.egg-info"
    )
    shutil.copytree(REPO, copy, ignore=ignored)
    (root / "shared").symlink_to(SHARED_DATA.parent)
    return copy


def run(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """The command as a user's shell runs it, with this environment's tools first on PATH and no
    conda (the shipped site file asks for conda deployment)."""
    environment = snakemake_env(**env)
    environment["PATH"] = ":".join(
        part for part in environment["PATH"].split(":") if not shutil.which("conda", path=part)
    )
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=environment, capture_output=True, text=True,
        timeout=1800,
    )  # fmt: skip


def test_every_fenced_command_is_run_or_says_why_not():
    commands = documented()
    run_here = set(RUNS)
    assert set(commands) == run_here | set(NOT_RUN), {
        "not listed": sorted(set(commands) - run_here - set(NOT_RUN)),
        "no longer documented": sorted((run_here | set(NOT_RUN)) - set(commands)),
    }
    assert not run_here & set(NOT_RUN)


def dry_run_of_the_paper_grid(checkout: Path, command: str, **_) -> None:
    """The dry run plans the whole paper grid with no conda, no key and no cluster."""
    done = run(command, checkout)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rule infer_api:" in done.stdout and "judges_verdicts" in done.stdout
    assert "conda" not in done.stderr.lower()
    (total,) = set(re.findall(r"^total\s+(\d+)$", done.stdout, re.MULTILINE))
    assert stated(r"for the papers' grids it lists ([\d,]+) jobs") == [int(total)]


def stated(pattern: str, page: str = "README.md") -> list[float]:
    """The numbers a page states where ``pattern`` (its groups the numbers) matches."""
    text = " ".join((REPO / page).read_text(encoding="utf-8").split())
    found = re.search(pattern, text)
    assert found, f"{page} no longer states {pattern!r}"
    return [float(group.replace(",", "")) for group in found.groups()]


def plan_of_the_paper_grid(checkout: Path, command: str, **_) -> None:
    done = run(command, checkout)
    assert done.returncode == 0, done.stderr[-3000:]
    plan = (checkout / "results" / "plan" / "compute_plan.md").read_text()
    assert "- claude-sonnet-4-5: not runnable: retired on 2026-11-30; its 91 judge cells" in plan
    assert "workflow/envs/inference-vllm.yaml" in plan  # each job's environment, with no conda here
    table = pd.read_csv(checkout / "results" / "plan" / "compute_plan.csv")
    totals = table[table["model"] == "all"].set_index("track")
    live, batch, gpu = (totals.at["total", column] for column in COSTS)
    grid = totals.loc[["novbench", "judges"]].sum()  # what `all` calls
    steps = table[(table["model"] != "all") & (table["track"] == "novbench_construction")]
    validation = steps[steps["step"].str.startswith("extraction/")]["api_cost_usd"].sum()
    build = steps[steps["step"].str.startswith("build/")]["api_cost_usd"].sum()
    construction = totals.at["novbench_construction", "api_cost_usd"]
    assert validation + build == pytest.approx(construction, abs=0.05)  # rows rounded to cents
    hosted = steps.groupby(steps["step"].str.split("/").str[0])["hosted_hours"].sum()
    concurrency = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["inference"]
    assert stated(
        r"prices `all` at ([\d,]+) USD of API calls at live prices \(([\d,]+) through batch APIs\) "
        r"and ([\d,]+) GPU-hours, and times it at ([\d,]+) hours of hosted calls, ([\d,]+) in "
        r"flight \(([\d,]+) through batch APIs\), and ([\d,]+) hours of GPU jobs on a node per "
        r"partition \(site `gpus_at_once`\); `reproduction` adds ([\d,]+) USD and ([\d,]+) hours "
        r"\(the validation calls of NovBench's appendix\), `build_benchmarks` ([\d,]+) USD and "
        r"([\d,]+) hours \(([\d,]+) USD in all\)"
    ) == [
        round(grid["api_cost_usd"]), round(grid["api_cost_batch_usd"]), round(gpu),
        round(grid["hosted_hours"]), concurrency["concurrency"], BATCH_WINDOW_HOURS,
        round(totals.at["total", "gpu_wall_hours"]), round(validation),
        round(hosted["extraction"]), round(build), round(hosted["build"]), round(live),
    ]  # fmt: skip
    novbench, judges = totals.loc["novbench"], totals.loc["judges"]
    assert stated(
        r"NovBench ([\d,]+) GPU-hours and ([\d,]+) USD of API calls at live prices; the judges "
        r"([\d,]+) USD \(([\d,]+) through batch APIs\); the construction ([\d,]+) USD; in all "
        r"([\d,]+) USD \(([\d,]+) through batch APIs\)",
        "docs/cluster.md",
    ) == [
        round(novbench["gpu_hours"]), round(novbench["api_cost_usd"]),
        round(judges["api_cost_usd"]), round(judges["api_cost_batch_usd"]),
        round(totals.at["novbench_construction", "api_cost_usd"]), round(live), round(batch),
    ]  # fmt: skip
    assert stated(
        r"For the paper grid: ([\d,]+) calls and ([\d,]+) USD at live prices \(([\d,]+) through",
        "docs/judges-paper-grid.md",
    ) == [judges["requests"], round(judges["api_cost_usd"]), round(judges["api_cost_batch_usd"])]


def preflight_of_the_paper_grid(checkout: Path, command: str, **_) -> None:
    """Preflight fails here (no cluster, no key, no hub), naming the retired judge's cells; every
    unpinned hub model any rule loads, the Idea Novelty Checker's encoder among them, is named as
    locked at its first download by the command it gives; each FAIL and WARN names its fix."""
    # no SLURM cluster configured: sinfo fails at once (a missing file it retries for 60 s)
    done = run(command, checkout, S2_API_KEY="", SLURM_CONF="/dev/null")
    assert done.returncode != 0
    lines = done.stdout.splitlines()
    (retired,) = [line for line in lines if line.startswith("WARN  model claude-sonnet-4-5:")]
    assert retired.startswith(
        "WARN  model claude-sonnet-4-5: not runnable: retired on 2026-11-30: its 91 cells are "
        "skipped; claude-sonnet-4-5-20250929 is not served; cannot be reproduced: "
    )
    assert retired.endswith(
        "; fix: `judges.substitutions: {claude-sonnet-4-5: <successor>}` in the config runs "
        "another model in its place, reported as a substitution, not like-for-like"
    )
    # config/paper.yaml locks the unpinned ones at their first download (fetch_weights)
    (revisions,) = [line for line in lines if line.startswith("OK    revisions:")]
    assert "specter2-base (allenai/specter2_base)" in revisions
    assert revisions.endswith(f"`snakemake --cores 1 fetch_weights {PAPER}` downloads them all")
    failed = [line for line in lines if line.startswith(("FAIL ", "WARN "))]
    assert failed  # no key, no cluster here
    assert [line for line in failed if not re.search(r"; fix: .*`[^`]+`", line)] == []


def overlay_run(checkout: Path, command: str, embedded_run, **_) -> None:
    """``my-overlay.yaml``: the embedded run's own datasets, models and results as an overlay on
    the default; every output is there, so nothing reruns."""
    overlay = embedded_run.config
    for track in ("novbench", "judges"):
        overlay[track]["datasets"]["sample"] = None
    write_yaml(checkout / "my-overlay.yaml", overlay)
    keys = {name: embedded_run.env[name] for name in ("NOVEVAL_TEST_KEY", "S2_API_KEY")}
    done = run(command, checkout, **keys)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Nothing to be done" in done.stdout + done.stderr


def judge_card_run(checkout: Path, command: str, **_) -> None:
    """The test config's custom judge on the shipped sample: its card has a row for every cell of
    both setups (its formats, the variant, both changes), the paper's judges as published (none
    ran here), its unparseable answers counted; the leaderboard lists it."""
    done = run(command, checkout)
    assert done.returncode == 0, done.stderr[-3000:]
    cards = checkout / "results" / "judges" / "cards"
    text = (cards / "terse.md").read_text()
    assert (cards / "terse.png").stat().st_size > 0
    measurements = pd.read_parquet(cards / "terse.parquet")
    assert set(measurements["setup"]) == {"human-only", "human-plus-generated"}
    expected = {("pointwise", "reference"), ("pointwise", "low_reasoning")}
    expected |= {("pairwise", c) for c in ("reference", "wording:plain", "low_reasoning")}
    expected |= {("pairwise", "reviewers_cue")}
    for _, rows in measurements.groupby("setup"):
        assert set(zip(rows["format"], rows["change"])) == expected
    calls = [
        pd.read_parquet(path)
        for path in (checkout / "results" / "judges").glob("**/custom/terse/**/calls.parquet")
    ]
    assert len(calls) == 2 * len(expected)
    assert measurements["unparseable"].sum() <= sum(len(c) for c in calls)
    for heading in ("strict_accuracy", "macro_f1", "order consistency", "resampling stability"):
        assert heading in text
    assert "| published |" in text and "| this run |" not in text
    board = pd.read_csv(cards / "leaderboard.csv")
    assert set(board["judge"]) == {"terse"}


def novbench_card_run(checkout: Path, command: str, **_) -> None:
    """The test config's custom evaluator on the shipped sample: its card has the four metrics
    with intervals, the paired test against the paper's zero-shot cell run beside it, the
    unpaired check against the nearest published row and Table 2; the leaderboard lists it."""
    done = run(command, checkout)
    assert done.returncode == 0, done.stderr[-3000:]
    cards = checkout / "results" / "test-novbench-card" / "novbench" / "cards"
    text = (cards / "terse.md").read_text()
    paired = "| paired: Wilcoxon signed-rank | smollm2-135m zero |"
    for metric in ("Relevance", "Coverage", "Clarity", "DistAcc"):
        assert f"| sample | none | {metric} {paired}" in text
    assert "## Table 2 (published)" in text and "| emnlp2023 | gpt-4o | zero | none |" in text
    board = pd.read_csv(cards / "leaderboard.csv")
    assert board[["evaluator", "dataset", "perturbation"]].values.tolist() == [
        ["terse", "sample", "none"]
    ]
    # SmolLM2 is no model of Table 2: the nearest published row was not run here
    nearest = f"{board.at[0, 'nearest_model']} {board.at[0, 'nearest_strategy']}"
    assert f"| unpaired: published value | {nearest} |" in text and "not run here" in text


RUNS = {
    "snakemake --cores 2 novbench --configfile config/config.yaml "
    ".test/config-novbench-card/config.yaml": novbench_card_run,
    "snakemake --cores 2 judges --configfile config/config.yaml "
    ".test/config-judge-card/config.yaml": judge_card_run,
    f"snakemake -n --profile profiles/slurm {PAPER}": dry_run_of_the_paper_grid,
    f"snakemake --cores 1 plan {PAPER}": plan_of_the_paper_grid,
    f"snakemake preflight --profile profiles/slurm {PAPER}": preflight_of_the_paper_grid,
    "snakemake --cores 2 --configfile config/config.yaml my-overlay.yaml": overlay_run,
}


@pytest.mark.workflow
@pytest.mark.parametrize("command", sorted(RUNS))
def test_a_documented_command_runs_as_written(command, checkout, request):
    assert command in documented(), f"{command!r} is no longer in the docs"
    needs = {"embedded_run"} & set(RUNS[command].__code__.co_varnames)
    fixtures = {name: request.getfixturevalue(name) for name in needs}
    RUNS[command](checkout, command, **fixtures)


def test_the_commands_are_read_from_their_fences(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Run\n\n```bash\n$ snakemake -n \\\n    --cores 1  # a comment\n# only a comment\n"
        "cat > a.yaml <<'YAML'\nx: 1\nYAML\nls\n```\n\n```yaml\nnot: a command\n```\n"
    )
    assert fenced_commands(page) == [
        "snakemake -n --cores 1",
        "cat > a.yaml <<'YAML'\nx: 1\nYAML",
        "ls",
    ]


def test_no_conda_reaches_the_commands():
    """The runs above stand for a machine without conda: none is on their PATH."""
    path = run("echo $PATH", REPO).stdout.strip()
    assert not shutil.which("conda", path=path) and Path(sys.executable).parent.as_posix() in path
    assert (
        yaml.safe_load((REPO / "profiles" / "slurm" / "site.yaml").read_text())[
            "software_deployment"
        ]
        == "conda"
    )


def test_the_pages_stay_short_and_their_links_resolve():
    """A README a newcomer reads at once, pages of at most 300 lines, and every relative link
    naming a file (and heading) that exists."""
    assert len((REPO / "README.md").read_text().splitlines()) <= 120
    for page in [*PAGES, REPO / "config" / "README.md"]:
        text = page.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 300, page.name
        for target, anchor in re.findall(r"\]\(([^)#:\s]+\.md)(?:#([\w-]+))?\)", text):
            linked = page.parent / target
            assert linked.is_file(), f"{page.name}: {target}"
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {re.sub(r"[^\w -]", "", h.lower()).replace(" ", "-") for h in headings}
            assert not anchor or anchor in slugs, f"{page.name}: {target}#{anchor}"


# The names the pages give: where a repository path, a module, a rule or a config key is meant.
NAMED_PAGES = [*PAGES, REPO / "config" / "README.md"]
PACKAGE = REPO / "src" / "noveval"
ROOTS = ("src/", "workflow/", "tests/", "config/", "docs/", "benchmarks/", ".test/", "profiles/")
ROOTS += ("data/sample/", ".ci/")  # data/ itself also names the authors' data folders
PROSE_PATH = re.compile(rf"(?<![\w/.-])(?:{'|'.join(map(re.escape, ROOTS))})[^\s`),;]*")
FILE_ENDINGS = (".yaml", ".yml", ".py", ".json", ".md", ".csv", ".j2", ".txt", ".parquet")
# Files a page's commands name that no checkout holds, each with why.
EXAMPLE_FILES = {
    "my-overlay.yaml": "the reader's own overlay (test_a_documented_command_runs_as_written "
    "writes it from the embedded run)",
    "release.yaml": "written by the heredoc just before the command that reads it",
    "...": "the rest of the command, elided",
}  # a placeholder (<overlay>) is not checked either
# Names that look like a rule's (a rule family's prefix) or a config key but are not, with why.
NOT_RULES = {
    "build_novelty_prompt": "the authors' NovBench function that paper mode reads its prompt from",
    "build_novelty_rag_prompt": "the authors' NovBench function of the RAG prompt",
}
NOT_CONFIG_KEYS = {
    "weights.commit": "a field of the reproduction report's conditions (reproduction.report)",
}
# Snakemake options and whether they take one value (True) or a list up to the next option.
SNAKEMAKE_VALUES = {"--cores": True, "-c": True, "-j": True, "--jobs": True, "--profile": True}
SNAKEMAKE_VALUES |= {"--report": True, "--sdm": True, "--configfile": False, "--forcerun": False}


def prose_of(text: str) -> str:
    """A page's prose: its fenced blocks left out."""
    return re.sub(r"^\s*```.*?^\s*```[^\n]*$", "", text, flags=re.MULTILINE | re.DOTALL)


def code_spans(prose: str) -> list[str]:
    """Every inline code span of a page's prose, its whitespace collapsed."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def tree_paths(text: str) -> list[str]:
    """The paths a layout tree lists (a fenced block without a language whose lines start with a
    path and its description)."""
    paths = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        paths += re.findall(r"^([\w.-]+/[\w./-]*)\s{2,}\S", block, re.MULTILINE)
    return paths


def workflow_rules() -> set[str]:
    """The workflow's rules and targets, read from its rule declarations."""
    names = set()
    for source in [REPO / "workflow" / "Snakefile", *(REPO / "workflow" / "rules").glob("*.smk")]:
        text = source.read_text(encoding="utf-8")
        names |= set(re.findall(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:", text, re.MULTILINE))
        names |= set(re.findall(r"^\s*use rule \w+ as (\w+)", text, re.MULTILINE))
    return names


def schema() -> dict:
    """The config schema as the workflow validates with it (its lists of names filled in)."""
    return yaml.safe_load(Path(config_schema()).read_text())


def config_key_exists(node: dict, key: list[str]) -> bool:
    """Whether the dotted key (``<name>`` or ``*`` for any name) is declared under the schema
    ``node``: by its properties, its property names, or a schema for any other name."""
    if not key:
        return True
    first, rest = key[0], key[1:]
    branches = [node]
    for branch in branches:
        for combined in ("oneOf", "anyOf", "allOf"):
            branches += branch.get(combined, [])
        if isinstance(branch.get("items"), dict):
            branches.append(branch["items"])
    for branch in branches:
        properties = branch.get("properties", {})
        open_names = branch.get("additionalProperties")
        allowed = branch.get("propertyNames", {}).get("enum")
        if first in properties and config_key_exists(properties[first], rest):
            return True
        if first == "*" and any(config_key_exists(p, rest) for p in properties.values()):
            return True
        named = allowed is None or first in allowed or first == "*"  # open: the user's names
        if isinstance(open_names, dict) and named:
            if config_key_exists(open_names, rest):
                return True
        if allowed is not None and first in allowed and open_names is None:
            return not rest
    return False


def defined_names(body: list[ast.stmt]) -> dict[str, list[ast.stmt]]:
    """The names a module or class body defines (imported ones included), each with its body."""
    names = {}
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[statement.name] = getattr(statement, "body", [])
        elif isinstance(statement, ast.Assign):
            names |= {t.id: [] for t in statement.targets if isinstance(t, ast.Name)}
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names[statement.target.id] = []
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0]: [] for a in statement.names}
    return names


def module_name_exists(dotted: str) -> bool:
    """Whether ``noveval.a.b[.Name[.attribute]]`` is a module of the package, or a name that one
    defines (read from its source, nothing imported); a placeholder ends the name."""
    parts = re.match(r"noveval((?:\.[A-Za-z_]\w*)*)", dotted).group(1).split(".")[1:]
    folder, body = PACKAGE, None
    while parts and body is None:
        if (folder / parts[0]).is_dir():
            folder = folder / parts.pop(0)
        elif (folder / f"{parts[0]}.py").is_file():
            body = ast.parse((folder / f"{parts.pop(0)}.py").read_text(encoding="utf-8")).body
        elif (folder / "__init__.py").is_file():
            body = ast.parse((folder / "__init__.py").read_text(encoding="utf-8")).body
        else:
            return False
    for part in parts:
        names = defined_names(body)
        if part not in names:
            return False
        body = names[part]
    return True


def repository_path_exists(path: str) -> bool:
    """Whether a path (``<x>`` and ``{x}`` any name, ``{a,b}`` both, ``...`` any folders, ``*``
    any name) names at least one file or folder of the checkout."""
    if found := re.search(r"\{([^{}]*,[^{}]*)\}", path):
        return all(
            repository_path_exists(path[: found.start()] + choice + path[found.end() :])
            for choice in found.group(1).split(",")
        )
    pattern = re.sub(r"<[^<>]+>|\{[^{}]*\}", "*", path).replace("...", "**")
    return bool(glob.glob(str(REPO / pattern), recursive=True, include_hidden=True))


def snakemake_names(command: str) -> tuple[list[str], list[str]]:
    """The rules and targets a Snakemake command names, and its config files."""
    words = re.sub(r"<[^<>]*>", "<placeholder>", command.split("\n")[0]).split()
    starts = [i for i, word in enumerate(words) if re.fullmatch(r"(.*/)?snakemake", word)]
    if not starts:
        return [], []
    rules, configs, option, skip = [], [], None, False
    for word in words[starts[0] + 1 :]:
        if skip:
            skip = False
        elif word.startswith("-"):
            option, skip = word, SNAKEMAKE_VALUES.get(word, False)
        elif option == "--configfile":
            configs += [] if word in EXAMPLE_FILES or word.startswith("<") else [word]
        elif re.fullmatch(r"[a-z][a-z0-9_]*", word):
            rules.append(word)
    return rules, configs


def span_names(span: str, families: set[str]) -> dict[str, list[str]]:
    """What an inline code span names: a repository path, a module, a config key (a value after
    ``: `` left out) or a rule (a name that starts like a family of rules)."""
    word = span.split(": ")[0].rstrip(":")
    if " " in word:
        return {}
    if word.startswith((*ROOTS, "noveval/")):
        return {"path": [re.sub(r"^noveval/", "src/noveval/", word)]}
    if re.match(r"\w+/(.*(/|\.\w+))?$", word) and (PACKAGE / word.split("/")[0]).is_dir():
        return {"path": [f"src/noveval/{word}"]}  # a package folder's (not a batch's name)
    if word.startswith("noveval.") and not word.endswith(FILE_ENDINGS):
        return {"module": [word]}
    if re.fullmatch(r"[a-z_]+(\.[\w<>*-]+)+", word) and word not in NOT_CONFIG_KEYS:
        return {"config key": [word]}
    if re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", word) and word.split("_")[0] in families:
        return {"rule": [word]} if word not in NOT_RULES else {}
    return {}


def page_names(page: Path, text: str, families: set[str]) -> dict[str, list[str]]:
    """Every repository path, module, config key and rule a page names: in its code spans, its
    links, its layout trees, its prose (a path under a repository folder), after the word
    "rule", and in its Snakemake commands (the targets, the config files)."""
    prose = prose_of(text)
    names = {"path": tree_paths(text), "module": [], "config key": [], "rule": []}
    for link in re.findall(r"\]\(([^)#:\s]+)[)#]", text):  # a URL is no path
        names["path"].append((page.parent / link).resolve().relative_to(REPO).as_posix())
    bare = re.sub(r"`[^`]+`|\]\([^)]*\)", "", prose)
    names["path"] += [path.rstrip(".:") for path in PROSE_PATH.findall(bare)]
    names["rule"] += re.findall(r"\brules? `(\w+)`", prose)
    spans = code_spans(prose)
    for command in [*commands_in(text), *(span for span in spans if "snakemake" in span)]:
        targets, configs = snakemake_names(command)
        names["rule"] += targets
        names["path"] += configs
    for span in spans:
        for kind, found in span_names(span, families).items():
            names[kind] += found
    return names


def broken_names(pages: dict[Path, str], rules: set[str]) -> list[str]:
    """Every name a page (its place in the checkout, its text) gives that does not exist, as
    ``page: kind `name```; a results path is an output, not checked."""
    config = schema()
    exists = {
        "path": lambda path: (
            path.startswith("results/") or repository_path_exists(path.split("::")[0])
        ),
        "module": module_name_exists,
        "config key": lambda key: (
            key.split(".")[0] not in config["properties"]
            or config_key_exists(config, key.split("."))
        ),
        "rule": rules.__contains__,
    }
    families = {rule.split("_")[0] for rule in rules if "_" in rule}
    return sorted(
        {
            f"{page.relative_to(REPO)}: {kind} `{name}`"
            for page, text in pages.items()
            for kind, names in page_names(page, text, families).items()
            for name in names
            if not exists[kind](name)
        }
    )


def named_pages() -> dict[Path, str]:
    return {page: page.read_text(encoding="utf-8") for page in NAMED_PAGES}


def test_every_name_the_pages_give_exists():
    assert broken_names(named_pages(), workflow_rules()) == []


def test_a_renamed_rule_fails_the_check_naming_it():
    pages, rules = named_pages(), workflow_rules()
    architecture = REPO / "docs" / "architecture.md"
    renamed = {architecture: pages[architecture].replace("novbench_score", "novbench_scoring")}
    assert broken_names(renamed, rules) == ["docs/architecture.md: rule `novbench_scoring`"]
    without = broken_names(pages, rules - {"judges_card"})
    assert "docs/architecture.md: rule `judges_card`" in without
    assert all(finding.endswith("rule `judges_card`") for finding in without)


def test_each_kind_of_name_is_checked():
    """A page naming a moved path, module and name, an unknown config key, rule and target
    is faulted on each; what it names that is no repository name passes."""
    page = REPO / "docs" / "new.md"
    text = (
        "Read `src/noveval/models.schema.yaml`, tests/workflow/test_layer.py, "
        "[the grid](../src/noveval/judges/paths.py), `noveval.judges.paths` and "
        "`noveval.judges.grid.build.CONTROLLED`; set `inference.max_retry` or "
        "`judges.custom.terse.variant`; rule `judges_cards` runs `judges_cardz`.\n\n"
        "```bash\nsnakemake --cores 1 plans --configfile config/configs.yaml my-overlay.yaml\n"
        "```\n\n"
        "Fine: `src/noveval/core/models.schema.yaml`, `noveval.judges.grid.cells.CONTROLLED`, "
        "`noveval.judges.systems.base.DedicatedJudge.decide`, `inference.retry_for`, "
        "`judges.custom.terse.variants`, `judges.datasets.<name>`, `construction.*.expected`, "
        "rule `judges_card`, `results/judges/cards/{judge}.md`, `weights.commit`, "
        "`build_novelty_prompt`, `workflow/envs/<name>.post-deploy.sh`, "
        "`src/noveval/core/published/{novbench,judges}.csv`, `prompts/judges/`, "
        "[a page](https://example.org/x.py), `snakemake --cores 2 judges --configfile <overlay>`."
    )
    assert broken_names({page: text}, workflow_rules()) == [
        f"docs/new.md: {finding}"
        for finding in [
            "config key `inference.max_retry`",
            "config key `judges.custom.terse.variant`",
            "module `noveval.judges.grid.build.CONTROLLED`",
            "module `noveval.judges.paths`",
            "path `config/configs.yaml`",
            "path `src/noveval/judges/paths.py`",
            "path `src/noveval/models.schema.yaml`",
            "path `tests/workflow/test_layer.py`",
            "rule `judges_cards`",
            "rule `judges_cardz`",
            "rule `plans`",
        ]
    ]
