"""Judges of the user's (config ``judges.custom``): the entry, its requests, its stability card's
statistics and report."""
