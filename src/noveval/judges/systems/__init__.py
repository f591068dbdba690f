"""The dedicated novelty judges behind one interface (``base``): AI-Scientist's novelty check and
the Idea Novelty Checker, and a local judge's device cost."""
