"""A stage function called with a Snakemake job's fields, bound by the function's parameter
names (so a stage's ``run(job)`` need not forward each field by hand)."""

from __future__ import annotations

import inspect

_MISSING = object()


class JobBindingError(TypeError):
    """A stage function's required parameter that its rule holds under no matching name."""


def _places(name: str) -> tuple[str, tuple[str, ...]]:
    """Where a parameter ``name`` is looked up: the field's name and the job's fields, in order."""
    if name.endswith("_paths"):
        return name.removesuffix("_paths"), ("input",)
    if name.endswith("_path"):
        return name.removesuffix("_path"), ("input", "output", "params")
    return name, ("params", "wildcards")


def _names(fields):
    """The names of a job's field: a Snakemake named list's, a hand-made namespace's, none of a
    plain list."""
    if hasattr(fields, "keys"):
        return fields.keys()
    return vars(fields) if hasattr(fields, "__dict__") else ()


def _bound(job, name: str):
    """The value of the parameter ``name`` in ``job``, or _MISSING."""
    field, kinds = _places(name)
    for kind in kinds:
        fields = getattr(job, kind)
        if field in _names(fields):
            value = getattr(fields, field)
            return list(value) if name.endswith("_paths") else value
    return _MISSING


def call_with_job(function, job, **given):
    """Call ``function`` with the fields of the Snakemake job ``job`` (or a hand-made one of
    namespaces), bound by name:

    - a parameter ``<name>_path`` takes the rule's named input ``<name>``, else its named output
      ``<name>``, else its param ``<name>`` (a path the config gives, as ``registry``);
    - a parameter ``<name>_paths`` takes ``list(input.<name>)``;
    - any other parameter takes the rule's param ``<name>``, else its wildcard ``<name>``;
    - a value in ``given`` comes first (``target=RequestsTarget.of_job(job)``, a cell built from
      the wildcards); a parameter with a default may be found nowhere.

    A required parameter found nowhere raises JobBindingError naming the rule, the function and
    the parameter."""
    arguments = dict(given)
    for name, parameter in inspect.signature(function).parameters.items():
        if name in given or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        value = _bound(job, name)
        if value is not _MISSING:
            arguments[name] = value
        elif parameter.default is parameter.empty:
            field, (*kinds, last) = _places(name)
            where = f"{', '.join(kinds)} or {last}" if kinds else last
            raise JobBindingError(
                f"rule {job.rule}: {function.__module__}.{function.__qualname__} takes {name!r}, "
                f"but the rule has no {where} named {field!r}"
            )
    return function(**arguments)
