"""The compute plan: calls, tokens, GPU-hours and API cost of a grid, with no model and no GPU.

Input tokens come from rendered prompts: each NovBench cell's prompts are rendered (by the same
functions the requests rule uses) for the papers at hand, their characters counted and divided by
``chars_per_token`` (4: the usual rule of thumb for English with BPE tokenizers), and the mean per
call is scaled to the dataset's paper count. A dataset whose file is not on disk yet (declared by
URL and size: ``noveval.novbench.releases``) is stood in for by the shipped sample's papers. Output
tokens per call of a generation are an assumption: ``answer_tokens`` (the mean length of the
model answers in NovBench's human-evaluation files), plus ``reasoning_tokens`` for models that
reason, capped at ``decoding.max_tokens``; a judge call's are calibrated on the judge study's
published costs (``noveval.judges.statistics.calibration``), capped at ``judges.max_tokens``.
GPU-hours = GPUs x (startup + output tokens / throughput) per job, with the registry's
``throughput_tokens_per_s``; prefill is neglected (an order of magnitude faster). A call with
the hosted web search (the agentic judge) is assumed to search ``web_searches_per_call`` times,
each priced at the registry's ``price_per_thousand_web_searches``. The AI-Scientist check is
planned at its most: every idea runs all its rounds, each searching Semantic Scholar once, round
r's call carrying the r rounds' messages, ``FOUND_PAPER_TOKENS`` for each paper of the r - 1
searches shown and the r - 1 earlier answers.

A model the pilot measured (``plan.measured``, ``noveval.inference.measured``) has its measured
output tokens per call (per track), throughput and server start in place of these assumptions.
"""
