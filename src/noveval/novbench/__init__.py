"""The NovBench track: models write novelty evaluations of a paper from its novelty claims, scored
against expert reviewers on Relevance, Coverage, Clarity and Correctness (DistAcc)."""
