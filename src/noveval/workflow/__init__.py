"""The workflow adapter: what the rules import (wildcards, stage binding) and the stages of the
rules that belong to no track (inference, the plan, the pilot, the report, downloads)."""
