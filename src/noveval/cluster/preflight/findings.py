"""One pre-flight check's line (OK, WARN, FAIL or SKIP), and running a command for a check.

A FAIL or WARN names its fix, the one command or config line that resolves it, in backticks after
``; fix:`` (``Finding.fix``; tests/planning/test_preflight_fixes.py drives every check to it)."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field

COMMAND_TIMEOUT_S = 120

MAX_DETAIL = 300  # characters of a failed command's message in its finding's line


@dataclass(frozen=True)
class Finding:
    """What a check found, one line of the report: ``ok`` True (OK), False (FAIL) or None (SKIP:
    not needed or not possible here); ``warn``: it passed with something to look at (WARN);
    ``fix``: what resolves a FAIL or WARN (printed with those only)."""

    name: str
    ok: bool | None
    detail: str
    warn: bool = False
    fix: str = field(default="", compare=False)  # advice: findings equal whatever their fixes

    @property
    def status(self) -> str:
        return "WARN" if self.warn else {True: "OK", False: "FAIL", None: "SKIP"}[self.ok]

    def line(self) -> str:
        fix = f"; fix: {self.fix}" if self.fix and self.status in ("FAIL", "WARN") else ""
        return f"{self.status:<4}  {self.name}: {self.detail}{fix}"


def warning(name: str, detail: str, fix: str) -> Finding:
    """A finding that does not fail the pre-flight but asks to be looked at, and what to do."""
    return Finding(name, True, detail, warn=True, fix=fix)


def skipped(name: str, why: str) -> Finding:
    """A finding of a check that needs something this grid or host does not have."""
    return Finding(name, None, why)


def run_command(command: list[str], timeout_s: float = COMMAND_TIMEOUT_S) -> tuple[bool, str]:
    """Run ``command``: whether it succeeded, and its output (or why it failed)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except FileNotFoundError:
        return False, f"{command[0]} not found"
    except subprocess.TimeoutExpired:
        return False, f"{' '.join(command)} gave no answer in {timeout_s:.0f} s"
    if done.returncode != 0:
        said = " | ".join((done.stderr or done.stdout).split("\n")).strip(" |")
        return False, said[:MAX_DETAIL] or f"exit status {done.returncode}"
    return True, done.stdout


def version_numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))
