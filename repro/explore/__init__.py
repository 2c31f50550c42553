"""Config-space explorer: generated launch commands through sglang's real launch path,
each raise site minimised to a command, re-run, and checked for fixes (docs/repro.md)."""
