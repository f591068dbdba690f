"""The judge-instability track: LLMs as pointwise and pairwise novelty judges."""
