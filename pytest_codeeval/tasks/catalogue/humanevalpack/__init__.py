"""HumanEvalPack (OctoPack, Muennighoff et al. 2023): HumanEval's 164 problems in six languages, three scenarios.

Synthesize writes a function from its docstring, Fix repairs a buggy one (shown its tests or its docstring), Explain
describes a function in words and then writes it back from the description alone. Everything that decides a
score follows bigcode-evaluation-harness's `humanevalpack.py`: the `--prompt` formats (`--codeeval-prompt`), stop
words, the post-processing that cuts a completion where its function closes, the imports put before a program,
the tests after it, and the time limits. https://huggingface.co/datasets/bigcode/humanevalpack
"""

from __future__ import annotations

from pytest_codeeval.tasks.catalogue.humanevalpack.tasks import register

__all__ = ["register"]
