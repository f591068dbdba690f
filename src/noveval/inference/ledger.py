"""The spend a run's calling jobs keep while they run, and the caps they obey (config ``budget``).

Every calling job keeps its journal's spend in a ledger file of its own
(``{cache}/ledger/{track}/{job}.json``, so no two processes write one file) and reads the whole
ledger before each slice of its calls: past a cap it stops (:class:`BudgetExceeded`), its
answered calls kept in the journal, so a rerun with a raised cap sends only the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from noveval.inference.engines.journal import read_records

LEDGER = "ledger"  # the ledger's folder in the journals' cache


class BudgetExceeded(RuntimeError):
    """A cap of ``budget`` is reached: the calls not sent yet wait for a larger one."""


@dataclass(frozen=True)
class Budget:
    """Config key ``budget``: the caps in USD (None: no cap)."""

    max_usd: float | None = None
    tracks: dict[str, float] = field(default_factory=dict)
    assumed_prompt_tokens: int = 2000  # a call whose requests are not rendered yet
    check_every_calls: int = 50  # calls a job sends between two reads of the ledger

    @classmethod
    def from_config(cls, config: dict) -> Budget:
        return cls(**(config.get("budget") or {}))

    @property
    def capped(self) -> bool:
        return self.max_usd is not None or bool(self.tracks)

    def caps(self, track: str) -> list[tuple[str, float, str | None]]:
        """(config key, cap, track it counts; None: every track) of the caps ``track`` obeys."""
        caps = [] if self.max_usd is None else [("budget.max_usd", self.max_usd, None)]
        if track in self.tracks:
            caps.append((f"budget.tracks.{track}", self.tracks[track], track))
        return caps


def ledger_path(cache_dir: str | Path, track: str, job: str) -> Path:
    return Path(cache_dir) / LEDGER / track / f"{job}.json"


def record_spend(cache_dir: str | Path, track: str, job: str, journal: Path) -> float:
    """Write the spend of ``job``'s journal to its ledger file (replaced whole); returns it."""
    spent = journal_cost(journal)
    path = ledger_path(cache_dir, track, job)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps({"usd": spent}))
    os.replace(partial, path)
    return spent


def ledger_spend(cache_dir: str | Path, track: str | None = None) -> float:
    """USD the ledger holds: every job's, or ``track``'s."""
    folder = Path(cache_dir) / LEDGER
    pattern = f"{track}/*.json" if track else "*/*.json"
    return sum(json.loads(path.read_text())["usd"] for path in folder.glob(pattern))


def journal_cost(path: Path) -> float:
    """The cost column's sum of one journal (0 where it does not exist yet)."""
    return sum(r.get("cost_usd") or 0.0 for r in read_records(path)) if path.exists() else 0.0


def require_room(budget: Budget, cache_dir: str | Path, track: str, job: str) -> None:
    """Raise :class:`BudgetExceeded` when the ledger has reached a cap ``track`` obeys."""
    for key, cap, counted in budget.caps(track):
        spent = ledger_spend(cache_dir, counted)
        if spent >= cap:
            raise BudgetExceeded(
                f"{job}: {spent:.4f} USD spent, {key} = {cap:g} USD reached; its calls not sent "
                "yet wait (the answered ones are journaled): a rerun with a larger cap sends "
                "only those"
            )


@dataclass(frozen=True)
class Spending:
    """Where a calling job stands in the ledger (inference, the AI-Scientist check, the Idea
    Novelty Checker): the caps it obeys, the journals' folder that holds the ledger and the track
    its spend counts in."""

    budget: Budget
    cache_dir: str | Path
    track: str = "judges"

    @classmethod
    def of(cls, budget: dict | None, cache_dir: str | Path) -> Spending:
        return cls(Budget.from_config({"budget": budget}), cache_dir)

    def send(
        self, pending: list, journal_path: Path, send: Callable[[list], object], sliced: bool = True
    ) -> None:
        """``send`` the pending calls in slices of ``check_every_calls`` (at once when no cap is
        set, or not ``sliced``), reading the ledger before each and writing the journal's spend
        after it."""
        job = f"{journal_path.parent.name}__{journal_path.stem}"  # one ledger file per journal
        size = self.budget.check_every_calls if self.budget.capped and sliced else len(pending)
        for start in range(0, len(pending), max(size, 1)):
            require_room(self.budget, self.cache_dir, self.track, job)
            send(pending[start : start + size])
            record_spend(self.cache_dir, self.track, job, journal_path)


def send_within(
    spending: Spending | None, pending: list, journal_path: Path, send: Callable[[list], object]
) -> None:
    """``send`` the pending calls through ``spending`` (:meth:`Spending.send`), or at once where
    the caller keeps no ledger (None)."""
    if spending is None:
        send(pending)
    else:
        spending.send(pending, journal_path, send)
