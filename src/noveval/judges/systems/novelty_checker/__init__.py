"""Scideator's Idea Novelty Checker: the check, its prompts, its literature search and ranking."""
