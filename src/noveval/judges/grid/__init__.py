"""The judge grid: its names (changes, idea forms, setups, cells), the grid built from a config,
and the files each rule reads."""
