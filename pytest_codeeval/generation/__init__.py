"""Generation: how a model completes prompts, run once per session before any sample executes. The contract
(base.py: requests in, completions out) with one module per backend (backends/), the session's engine that answers
from the cache first (engine.py, cache.py), prompt formats and fill-in-the-middle (prompts.py, fim.py), chat replies
turned into completions (chat_reply.py), and the generation files of other tools (files.py, multipl_e_files.py)."""
