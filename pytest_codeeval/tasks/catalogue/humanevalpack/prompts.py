"""HumanEvalPack's prompts: its languages, BCEH's `--prompt` formats (`--codeeval-prompt`), stop words and
post-processing cut, and the descriptions humanevalexplainsynthesize is written from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc

LANGUAGES = ("python", "js", "java", "go", "cpp", "rust")
LANGUAGE_NAMES = {"python": "Python", "cpp": "C++", "js": "JavaScript", "java": "Java", "go": "Go", "rust": "Rust"}
EXTENSIONS = {"python": "py", "cpp": "cpp", "js": "js", "java": "java", "go": "go", "rust": "rs"}
# BCEH's stop words per language (from CodeGeeX); the braces languages stop where their function closes instead.
LANGUAGE_STOP_WORDS = {
    "python": ("\nclass", "\ndef", "\n#", "\n@", "\nprint", "\nif", "\nassert"),
    "go": ("\n//", "\nfunc main(", "struct", "\nfunc"),
    "cpp": (), "js": (), "java": (), "rust": (),
}
# --codeeval-prompt: how the instruction, the code it is about and the start of the answer are put together.
# `inp` is the instruction with its context (the code to fix or describe); `base` starts the answer.
PROMPT_FORMATS: dict[str, str] = {
    "instruct": "{inp}\n\n{base}",
    "octocoder": "Question: {inp}\n\nAnswer:\n{base}",
    "octogeex": "Question: {stripped}\n\nAnswer:\n{base}",
    "starchat": "<|system|>\n<|end|>\n<|user|>\n{inp}<|end|>\n<|assistant|>\n{base}",
    "starcodercommit": "<commit_before><commit_msg>{inp}<commit_after>{base}",
    "instructcodet5p": "Below is an instruction that describes a task. Write a response that appropriately "
                       "completes the request.\n\n### Instruction:\n{inp}\n\n### Response:{base}",
    "wizardcoder": "Below is an instruction that describes a task. Write a response that appropriately completes the "
                   "request.\n\n### Instruction:\n{inp}\n\n### Response:\n{base}",
    "codellama": "[INST] {stripped} [/INST] {base}",
    "deepseek": "You are an AI programming assistant, utilizing the Deepseek Coder model, developed by Deepseek "
                "Company, and you only answer questions related to computer science. For politically sensitive "
                "questions, security and privacy issues, and other non-computer science questions, you will refuse "
                "to answer\n"
                "### Instruction:\n{stripped}\n### Response:\n{base}",
    "tulu": "<|user|>\n{inp}\n<|assistant|>\n{base}",
    "gritlm": "<|user|>\n{inp}\n<|assistant|>\n{base}",
    "zephyr": "<|user|>\n{inp}</s>\n<|assistant|>\n{base}",
    "yi": "<|im_start|>user\n{inp}<|im_end|>\n<|im_start|>assistant\n{base}",
    "starchat2": "<|im_start|>user\n{inp}<|im_end|>\n<|im_start|>assistant\n{base}",
    "codeqwen": "<|im_start|>user\n{inp}<|im_end|>\n<|im_start|>assistant\n{base}",
    "codegemma": "<start_of_turn>user\n{inp}<end_of_turn>\n<start_of_turn>model\n{base}",
    "codellama-70b": "Source: user\n\n {stripped} Source: assistant\nDestination: user \n\n{base}",
    "aurora-m": "### Instruction:\n{inp}\n### Response:\n{base}",
}
FIX_FORMATS = ("file", "issue")  # formats only Fix has (it also words starcodercommit its own way)
DIFF_FORMATS = ("diff", "diff-carper")  # BCEH's patch formats for Fix: not implemented here, refused by name
PROMPTS = ("continue", *PROMPT_FORMATS, *FIX_FORMATS)
DEFAULT_PROMPT = "instruct"


def cut_at_each(text: str, words: Sequence[str]) -> str:
    """BCEH's cut: for each stop word in turn, drop everything from its first occurrence in what is left."""
    for word in words:
        if word in text:
            text = text[: text.find(word)]
    return text


def read_descriptions(path: Path, describe_task: str, rows: Sequence[Doc]) -> list[list[dict[str, Any]]]:
    """Descriptions per row from BCEH's generations JSON (a list per problem, in order) or a JSONL of
    `{"task_id", "completion"}` lines (lines with a 'task' key count only if it is the describe task)."""
    where = f"--codeeval-load-data-path={path}"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CodeevalError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    fix = ("expected BCEH's describe generations (a JSON list with one list of strings per problem) or a JSONL "
           "of describe's saved generations")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CodeevalError(f"{where}: not valid JSON at line {exc.lineno}; {fix}") from None
        if not all(isinstance(c, list) and all(isinstance(s, str) for s in c) for c in data):
            raise CodeevalError(f"{where}: not a list of lists of strings; {fix}")
        return [[{"description": s} for s in candidates] for candidates in data]
    by_id: dict[str, list[dict[str, Any]]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            entry = None
        if not isinstance(entry, dict) or not isinstance(entry.get("completion"), str) or "task_id" not in entry:
            raise CodeevalError(f"{where}:{lineno}: not a {{\"task_id\", \"completion\"}} line; {fix}")
        if entry.get("task", describe_task) == describe_task:
            by_id.setdefault(str(entry["task_id"]), []).append({"description": entry["completion"]})
    return [by_id.get(row["task_id"], []) for row in rows]
