"""The judge-instability track: LLMs as pointwise and pairwise novelty judges.

Sub-packages by concern: ``grid`` (the names, cells and inputs of the grid), ``systems`` (the
dedicated judges), ``statistics`` (measures, tables, figures), ``cards`` (judges of the user's),
``stages`` (one module per rule); beside them the instances, prompts, verdicts and the results
layout (``layout``)."""
