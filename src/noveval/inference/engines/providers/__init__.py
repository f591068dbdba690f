"""The hosted and local servers' wire APIs as providers: one class per API of the model
registry's ``api`` (``openai_api``: chat, responses; ``anthropic_api``: messages), registered by
name in ``PROVIDERS`` and found with :func:`provider_for`. A new API is one class with
``@register`` in a module imported here (docs/extending.md)."""

from noveval.inference.engines.providers import anthropic_api, openai_api
from noveval.inference.engines.providers.base import (
    PROVIDERS,
    BatchApi,
    BatchFailed,
    Endpoint,
    Outcome,
    Provider,
    provider_class,
    provider_for,
    register,
)

__all__ = [
    "PROVIDERS",
    "BatchApi",
    "BatchFailed",
    "Endpoint",
    "Outcome",
    "Provider",
    "anthropic_api",
    "openai_api",
    "provider_class",
    "provider_for",
    "register",
]
