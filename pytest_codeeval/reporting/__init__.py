"""Reporting: the terminal summary, failure texts, and the JSON, Markdown and HTML reports."""
