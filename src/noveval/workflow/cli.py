"""The ``noveval`` command: subcommands that work beside the workflow (``noveval bundle import
PATH``, ``noveval status``), on the base install (no torch, no llama.cpp)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from noveval.workflow.bundle.crate import BundleError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="noveval", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    bundle = commands.add_parser("bundle", help="results bundles (docs/bundles.md)")
    actions = bundle.add_subparsers(dest="action", required=True)
    importing = actions.add_parser(
        "import",
        help="check a bundle, place its files in the results folder and mark up to date those "
        "whose code and params match this checkout",
    )
    importing.add_argument("path", type=Path, help="the bundle (results/bundle.zip of a run)")
    importing.add_argument(
        "--configfile",
        nargs="+",
        type=Path,
        default=[],
        help="the config files you will run with (as snakemake's; default config/config.yaml)",
    )
    status = commands.add_parser(
        "status",
        help="where a run stands, per track, dataset and model (safe beside a running snakemake)",
    )
    status.add_argument(
        "targets", nargs="*", default=["all"], help="the targets the run makes (default: all)"
    )
    status.add_argument(
        "--configfile", nargs="+", type=Path, default=[], help="the run's config files"
    )
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if arguments.command == "status":
        return _status(arguments.targets, arguments.configfile)
    try:
        return _import(arguments.path, arguments.configfile)
    except BundleError as error:
        print(f"noveval bundle import: {error}", file=sys.stderr)
        return 1


def _import(path: Path, configfiles: list[Path]) -> int:
    from noveval.workflow.bundle.importer import import_bundle, report

    print(report(*import_bundle(path, configfiles)))
    return 0


def _status(targets: list[str], configfiles: list[Path]) -> int:
    from noveval.workflow.status import STATUS_FILE, run_status, status_table

    rows, notes = run_status(Path.cwd(), configfiles, targets)
    print(status_table(rows, notes), end="")
    print(f"(also in {STATUS_FILE} under the results folder)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
