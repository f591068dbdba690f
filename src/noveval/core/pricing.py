"""The price of a hosted-API call from its token counts, as the judge study priced its runs.

USD per million tokens: uncached input at the input price, cache reads at the model's
``cached_input`` price (10% of input where the registry gives none), cache writes at its
``cache_creation`` price (1.25x input where none), output (reasoning included) at the output
price; a call made through a provider's batch API costs half. ``input_tokens`` counts the
uncached input only: OpenAI reports cache hits inside its input count, so the client subtracts
them (``Usage.from_openai``). A hosted web search is priced per call (USD per thousand calls),
batch or not.
"""

from __future__ import annotations

from dataclasses import dataclass

CACHE_READ_SHARE = 0.10
CACHE_WRITE_SHARE = 1.25
BATCH_SHARE = 0.5


@dataclass(frozen=True)
class Usage:
    """Token counts of one call and whether it went through a batch API."""

    input_tokens: int = 0  # uncached input
    output_tokens: int = 0
    cached_input_tokens: int = 0  # cache reads
    cache_creation_tokens: int = 0  # cache writes
    batch: bool = False
    web_searches: int = 0  # the Responses API's web_search_call items (priced per call)


def cost_usd(prices: dict, usage: Usage, per_thousand_searches: float = 0.0) -> float:
    """USD of one call under ``prices`` (``input``, ``output``, optional ``cached_input``,
    ``cache_creation``: USD per million tokens) and ``per_thousand_searches`` (USD per thousand
    web searches)."""
    input_price = prices["input"]
    cached = prices.get("cached_input")
    creation = prices.get("cache_creation")
    cost = (
        usage.input_tokens * input_price
        + usage.cached_input_tokens
        * (cached if cached is not None else input_price * CACHE_READ_SHARE)
        + usage.cache_creation_tokens
        * (creation if creation is not None else input_price * CACHE_WRITE_SHARE)
        + usage.output_tokens * prices["output"]
    ) / 1e6
    searches = usage.web_searches * per_thousand_searches / 1e3
    return (cost * BATCH_SHARE if usage.batch else cost) + searches
