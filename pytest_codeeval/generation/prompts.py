"""Prompt formats: raw completion (default), the tokenizer's chat template, bigcode-style instruction tokens,
a prefix, and fill-in-the-middle. The task's prompt stays what the cache and the solution are keyed on; only the
model sees this.

An instruction task's answer start (Task.answer_start, e.g. a function signature) follows the assistant token,
as bigcode-evaluation-harness builds instruction prompts; without instruction tokens it follows a newline there.
As there, the instruction tokens wrap an instruction task's prompt only (Task.instruction_task), after the prefix."""

from __future__ import annotations

from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import GenerationSettings


def format_prompt(
    prompt: str, settings: GenerationSettings, tokenizer: Any, *, answer_start: str = "", suffix: str | None = None,
    instruction: bool = False,
) -> str:
    """The text the model sees. With a suffix, the family's fill-in-the-middle layout of prefix and suffix (the
    instruction tokens and chat template do not apply: FIM models are completion models)."""
    if suffix is not None:
        from pytest_codeeval.generation.fim import fim_format

        return fim_format(tokenizer, settings.fim_format).text(settings.prefix + prompt, suffix)
    text = settings.prefix + prompt
    if settings.instruction_tokens and instruction:
        text = settings.prefix + wrap_instruction(prompt, settings.instruction_tokens)
    elif answer_start and not settings.chat_template:
        text += "\n"
    if settings.chat_template:
        if not getattr(tokenizer, "chat_template", None):
            raise CodeevalError(
                "--codeeval-chat-template: this model's tokenizer has no chat template; use "
                "--codeeval-instruction-tokens=USER,END,ASSISTANT or a raw prompt"
            )
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": text}], tokenize=False, add_generation_prompt=True
        )
    return text + answer_start


def wrap_instruction(prompt: str, tokens: tuple[str, str, str]) -> str:
    user, end, assistant = tokens
    return f"{user}{prompt}{end}{assistant}"
