"""Judges: Python programs run their own way and read by their own rules (a task's `runner`, YAML's `judge:`).
Each is named in `runners.JUDGES`; a harness that runs in the sandbox lives beside its judge."""
