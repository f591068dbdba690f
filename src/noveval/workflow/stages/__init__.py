"""The stages of the rules outside the tracks: inference, the plan, the pilot, the report, the
downloads of weights and upstream files; one module per rule, named as the rule."""
