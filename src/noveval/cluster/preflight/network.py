"""Where hosted-API inference runs on compute nodes, that they reach each provider."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from noveval.cluster.preflight.findings import Finding, run_command, skipped
from noveval.cluster.preflight.slurm import job_step
from noveval.cluster.resources import api_inference_on_host
from noveval.core.registry import ModelSpec
from noveval.inference.engines.providers import provider_class

# Run on a compute node with the URLs as arguments: a TCP connect and, for https, a TLS handshake
# to each, one line per URL (the standard library only: any Python of the node runs it).
REACH_SCRIPT = """
import socket, ssl, sys, urllib.parse
for url in sys.argv[1:]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=10) as connection:
            if parts.scheme == "https":
                context = ssl.create_default_context()
                context.wrap_socket(connection, server_hostname=parts.hostname).close()
        print("reached", url)
    except OSError as error:
        print("unreachable", url, error)
"""


def provider_urls(specs: Iterable[ModelSpec]) -> list[str]:
    """The base URLs of the hosted models among ``specs``, each once."""
    urls = (
        spec.base_url or provider_class(spec.api).default_base_url  # the SDK's default
        for spec in specs
        if spec.engine == "api"
    )
    return sorted(set(urls))


# Where compute nodes cannot reach the providers: hosted-API inference on the login node.
ON_HOST = "`api_inference: host` in the site file (hosted-API inference on this host)"


def reach_check(ok: bool, output: str, where: str, urls: list[str]) -> Finding:
    """The report of REACH_SCRIPT run on ``where``: OK when every provider was reached."""
    name = "provider network"
    if not ok:
        fix = f"the site file's `account` and `qos` as SLURM takes them, or {ON_HOST}"
        return Finding(name, False, f"{where}: {output}", fix=fix)
    said = [line.split(" ", 1) for line in output.splitlines() if " " in line]
    unreachable = [rest for word, rest in said if word == "unreachable"]
    if unreachable or sum(word == "reached" for word, _ in said) != len(urls):
        return Finding(
            name,
            False,
            f"{where} cannot reach {'; '.join(unreachable) or 'every provider'}: hosted-API "
            "inference runs there (site file api_inference: slurm)",
            fix=ON_HOST,
        )
    return Finding(name, True, f"{where} reaches {', '.join(urls)}")


def provider_network_check(site_path: str, site: dict, specs: list[ModelSpec]) -> Finding:
    """Where hosted-API inference runs: on this host (the site file's default), or, with
    ``api_inference: slurm``, on compute nodes, which must then reach each provider of the grid
    (checked from a job step on the site's CPU partition)."""
    urls = provider_urls(specs)
    if not urls:
        return skipped("provider network", "no hosted model in the grid")
    try:
        on_host = api_inference_on_host(site_path)
    except ValueError as error:  # the site file's line says what
        fix = f"correct the key it names in `{site_path}` (docs/cluster.md#site-settings)"
        return Finding("provider network", False, str(error), fix=fix)
    if on_host:
        return skipped("provider network", "hosted-API inference runs on this host")
    partitions = site.get("partitions") or {}
    cpu = [
        name for name, settings in sorted(partitions.items()) if not (settings or {}).get("max_gpu")
    ]
    if not cpu:
        fix = f"a CPU partition (`max_gpu: 0`) under `partitions`, or {ON_HOST}"
        return Finding("provider network", False, "no CPU partition in the site file", fix=fix)
    command = [*job_step(site, cpu[0]), sys.executable, "-c", REACH_SCRIPT, *urls]
    return reach_check(*run_command(command), f"a node of partition {cpu[0]}", urls)
