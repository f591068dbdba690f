"""Running models and what running them costs: the engines (servers, clients, journals, provider
APIs), requests, batches and their chunks, one inference job, the spend ledger, weights and
encoders, and the workloads the plans count (calls, tokens, the pilot's measurements, scoring)."""
