"""The judge study's stages: one module per rule (rule judges_<stage> runs stage <stage>'s run)."""
