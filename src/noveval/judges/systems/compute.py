"""A local judge's cost: hours of its devices while its calls were answered, priced where a
price per device-hour is configured (API judges are priced per token, ``noveval.core.pricing``).

Its own module, apart from the metrics (``noveval.judges.statistics.summary``): the workflow reads
it when it builds the rules' params, without the statistics libraries.
"""

from __future__ import annotations

from dataclasses import dataclass

USD = "USD"


@dataclass(frozen=True)
class Compute:
    """What a local judge's calls cost: hours of its devices while they answered."""

    unit: str  # GPU | CPU
    devices: int  # GPUs of its job (1 for a CPU job: hours of the job)
    in_flight: int  # requests the server answers at once (they share the devices)
    usd_per_hour: float | None = None  # price of one device-hour; None: hours only

    @property
    def basis(self) -> str:
        """The cost's unit: USD where priced, else device-hours."""
        return USD if self.usd_per_hour is not None else f"{self.unit}-hours"

    def hours(self, latency_s: float) -> float:
        """Device-hours of calls that took ``latency_s`` seconds in all."""
        return self.devices * latency_s / self.in_flight / 3600


def local_compute(registry, models, concurrency: int, usd_per_hour: dict) -> dict[str, dict]:
    """The compute of each local judge among ``models`` as rule params (``Compute`` fields);
    API models are priced per token.

    ``usd_per_hour``: {'gpu': USD per GPU-hour or None, 'cpu': USD per CPU job-hour or None}.
    A llama.cpp server answers one request at a time; a vLLM server ``concurrency``.
    """
    compute = {}
    for spec in (registry.model(name) for name in dict.fromkeys(models)):
        if spec.engine == "api":
            continue
        unit = "GPU" if spec.gpus else "CPU"
        compute[spec.name] = {
            "unit": unit,
            "devices": spec.gpus or 1,
            "in_flight": 1 if spec.engine == "llamacpp" else concurrency,
            "usd_per_hour": usd_per_hour.get(unit.lower()),
        }
    return compute
