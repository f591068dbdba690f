"""noveval: reproduce NovBench and the judge-instability study of LLM novelty evaluation."""
