"""Access: the Hugging Face token for gated models, API keys, the Semantic Scholar key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from noveval.cluster.preflight.findings import Finding, skipped
from noveval.cluster.preflight.grid import Grid
from noveval.cluster.preflight.network import provider_network_check
from noveval.cluster.preflight.served import not_runnable_checks, served_check, substitution_checks
from noveval.core.registry import Registry
from noveval.literature.semantic_scholar import API_KEY_ENV as S2_API_KEY_ENV


def hub_token(env: Mapping[str, str]) -> str | None:
    """The Hugging Face token: HF_TOKEN, else the file `hf auth login` writes."""
    if env.get("HF_TOKEN"):
        return env["HF_TOKEN"]
    home = Path(env.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
    token_file = Path(env.get("HF_TOKEN_PATH") or home / "token")
    if not token_file.is_file():
        return None
    return token_file.read_text().strip() or None


def gated_check(model: str, repo_id: str, token: str | None) -> Finding:
    """A gated model: a token, and the hub's word that it grants access (licence accepted)."""
    name = f"access {model}"
    if not token:
        fix = "`export HF_TOKEN=<a token with access>` (or `hf auth login`)"
        return Finding(name, False, f"{repo_id} is gated: no Hugging Face token", fix=fix)
    from huggingface_hub import auth_check
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError

    try:
        auth_check(repo_id, token=token)
    except GatedRepoError:
        fix = f"accept the licence at `https://huggingface.co/{repo_id}` with the token's account"
        return Finding(name, False, f"{repo_id}: the token has no access", fix=fix)
    except (HfHubHTTPError, OSError) as error:
        fix = "`hf auth whoami` answering on this host (HF_TOKEN, the network, HF_ENDPOINT)"
        return Finding(name, False, f"{repo_id}: the hub did not confirm access ({error})", fix=fix)
    return Finding(name, True, f"{repo_id}: the token has access")


def api_key_checks(registry: Registry, models: Iterable[str], env: Mapping[str, str]) -> list:
    """One line per key variable of the grid's hosted models."""
    users: dict[str, list[str]] = {}
    for name in sorted(models):
        spec = registry.model(name)
        if spec.engine == "api":
            users.setdefault(spec.api_key_env, []).append(name)
    return [
        Finding(
            f"key {variable}",
            bool(env.get(variable)),
            f"{'set' if env.get(variable) else 'not set'}, for {', '.join(names)}",
            fix=f"`export {variable}=...` (README step 3)",
        )
        for variable, names in sorted(users.items())
    ]


def semantic_scholar_key_check(needed: bool, env: Mapping[str, str]) -> Finding:
    """The Semantic Scholar key (``S2_API_KEY``) when the grid searches the literature."""
    name = f"key {S2_API_KEY_ENV}"
    if not needed:
        return skipped(name, "no literature search in the grid")
    found = bool(env.get(S2_API_KEY_ENV))
    return Finding(
        name,
        found,
        f"{'set' if found else 'not set'}, for Semantic Scholar (judges.retrieval.search, the "
        "AI-Scientist check, the Idea Novelty Checker); without it a run stops before its first "
        "job",
        fix=f"`export {S2_API_KEY_ENV}=...`, or `literature.semantic_scholar.anonymous: true` "
        "in the config for the shared anonymous limit",
    )


def searches_literature(config: dict) -> bool:
    """Whether the judges' grid searches Semantic Scholar: the retrieval change through it, or
    the AI-Scientist check, or the Idea Novelty Checker."""
    judges = config.get("judges") or {}
    search = (judges.get("retrieval") or {}).get("search")
    retrieval = "retrieval" in (judges.get("changes") or []) and search == "semantic_scholar"
    return retrieval or bool({"ai_scientist", "novelty_checker"} & set(judges.get("systems") or {}))


def access_checks(grid: Grid) -> list[Finding]:
    """Hub access to gated models, API keys, hosted models still served, substitutions."""
    token = hub_token(grid.env)
    found = [gated_check(s.name, s.reference, token) for s in grid.specs if s.gated]
    found += api_key_checks(grid.registry, grid.models, grid.env)
    found += [served_check(spec, grid.env) for spec in grid.specs if spec.engine == "api"]
    found.append(semantic_scholar_key_check(searches_literature(grid.config), grid.env))
    found.append(provider_network_check(grid.site_path, grid.site, grid.specs))
    found += not_runnable_checks(grid.registry, grid.not_runnable)
    return found + substitution_checks(grid.config["judges"].get("substitutions") or {})
