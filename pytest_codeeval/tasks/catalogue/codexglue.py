"""CodeXGLUE (Lu et al. 2021) as bigcode-evaluation-harness runs it: code-to-text (documentation of a function,
six languages, and Python from its signature only) scored by CodeXGLUE's smoothed sentence BLEU-4, and
documentation translation (text-to-text, two-shot) scored by `evaluate`'s smoothed corpus BLEU."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.metrics import FIRST_SAMPLE
from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.catalogue.conala import two_shot_prompt
from pytest_codeeval.tasks.registry import TaskRegistry

CODE_LANGUAGES = ("python", "java", "javascript", "ruby", "php", "go")
QUOTES = ('"""', "'''")
# what follows the code in the prompt, by language; the first line of what the model writes after it is the answer
DOC_HEADER = {
    "python": '\n""" The goal of this function is to:\n', "ruby": "\n=begin The goal of this function is to:\n",
}
OTHER_HEADER = "\n/* The goal of this function is to:\n"
_LONE_QUOTE_AT_END = (re.compile(r"[^'\"][']\s*$"), re.compile(r"[^'\"][\"]\s*$"))


@lru_cache(maxsize=1)
def _detokenizer():
    try:
        from mosestokenizer import MosesDetokenizer
    except ImportError:
        raise CodeevalError("codexglue_code_to_text tasks need mosestokenizer (and perl) for their references: "
                            "pip install 'pytest-codeeval[bleu]'") from None
    return MosesDetokenizer("en")


def docstring_reference(doc: Doc) -> str:
    """The harness's reference: the docstring tokens joined and Moses-detokenized. It drops a leading "r" (meant
    for r\"\"\" docstrings) from every docstring, also from words such as "returns": that is kept, as the scores
    people compare with were computed so."""
    text = " ".join(doc["docstring_tokens"]).replace("\n", "")
    if text.startswith("r"):
        text = text[1:]
    return str(_detokenizer()(text.strip().split()))


def docstring_opening(prefix: str) -> str:
    """The code before the docstring, cut before any quote that opens it, then one triple quote."""
    for quote in QUOTES:
        if quote in prefix:
            prefix = prefix[: prefix.index(quote)]
            break
    for pattern in _LONE_QUOTE_AT_END:
        found = pattern.search(prefix)
        if found:
            prefix = prefix[: found.start()]
    return prefix + '"""'


class CodeToText(Task):
    """The whole function without its docstring, then a comment that asks for its goal."""

    DATASET_PATH = "code_x_glue_ct_code_to_text"
    code_language = "python"
    metrics = ("codexglue_bleu",)
    # as the harness: each problem's first sample (`gen[0]`); the all-samples value comes beside it
    aggregations: ClassVar[Mapping[str, str]] = {"codexglue_bleu": FIRST_SAMPLE}
    pass_threshold = 100.0  # a perfect sentence BLEU: the reference's words
    id_field = "id"
    required_fields = ("id", "code", "docstring", "docstring_tokens")

    def __init__(self) -> None:
        stops = list(QUOTES) if self.code_language == "python" else ["\n"]
        super().__init__(stop_words=stops, requires_execution=False)

    @property
    def header(self) -> str:
        return DOC_HEADER.get(self.code_language, OTHER_HEADER)

    def get_prompt(self, doc: Doc) -> str:
        code = doc["code"]
        if self.code_language != "python":
            return code + self.header
        at = code.index(doc["docstring"])
        before = docstring_opening(code[:at]).strip()
        for quote in QUOTES:
            before = before.strip().removesuffix(quote)
        after = code[at + len(doc["docstring"]) :]
        for quote in QUOTES:
            after = after.replace(quote, "")
        return before + after + self.header

    def get_reference(self, doc: Doc) -> str:
        return docstring_reference(doc)

    def postprocess_generation(self, generation: str, idx: int) -> str:
        # the first line after the header; as in the harness, stop words only stopped generation
        return generation.split(self.header)[1].strip().split("\n")[0]


class CodeToTextLeft(CodeToText):
    """Python from the function's signature alone, as InCoder evaluated it (Fried et al. 2022)."""

    name = "codexglue_code_to_text-python-left"
    description = "CodeXGLUE code-to-text, Python, from the signature only (smoothed BLEU-4)"
    DATASET_NAME = "python"
    size = 14918

    def get_prompt(self, doc: Doc) -> str:
        return docstring_opening(doc["code"][: doc["code"].index(doc["docstring"])])

    def postprocess_generation(self, generation: str, idx: int) -> str:
        text = generation  # prompt and completion: the prompt ends with the opening triple quote
        # the harness reads past each triple quote in the text, up to the next one
        answer = text.strip().split("\n")[0].strip()
        for quote in QUOTES:
            if quote in text:
                text = text[text.index(quote) + 3 :]
                answer = text.strip().split("\n")[0].strip().split(quote, 1)[0]
        return answer


TRANSLATION_SOURCES = {"da_en": "danish", "zh_en": "chinese", "no_en": "norwegian", "lv_en": "latvian"}
# bigcode-evaluation-harness's two examples per source language (from each config's training split)
TRANSLATION_SHOTS = {
    "danish": (
        ("2 . Udfyld felterne i hvert trin i vejledningen . ", "2 . Fill in the fields in each step of the guide . "),
        ("* Vise rapporter med finansposter og saldi . ",
         "* View reports that show general ledger entries and balances . "),
    ),
    "chinese": (
        ("返回 与 筛选器 初始化 由 平台 的 MCDRemoteSystemPlatformFilter 对象 。 ",
         "Returns an MCDRemoteSystemPlatformFilter object initialized with a filter by platform . "),
        ("用于 将 本地 的 （ 调用 ） 应用 程序 可 见性 首选 项 设置 发现 远程 系统 时 的 类 。 ",  # noqa: RUF001 (the data's own)
         "A class used to set the local ( calling ) application visibility preference when discovering remote "
         "systems ."),
    ),
    "norwegian": (
        ("Kosttypesaldo = Kostsentersaldo + Kostobjektsaldo ",
         "Cost Type Balance = Cost Center Balance + Cost Object Balance "),
        ("* Vise en liste over bokføringsgrupper som du posterer til kontoen . ",
         "* See a list of posting groups that post to that account . "),
    ),
    "latvian": (
        ("# # &lt; a name = &quot; 6-change-the-status-of-the-conversion-record-to-ready &quot; &gt; &lt; / a &gt; "
         "6 . Mainiet pārveidošanas ieraksta statusu uz Gatavs ",
         "# # 6 . Change the status of the conversion record to Ready "),
        ("title : Preču saņemšanas reģistrēšana pirkšanas pasūtījumā ",
         "title : Record the receipt of goods on the purchase order "),
    ),
}
TRANSLATION_SIZES = {"da_en": 1000, "zh_en": 1000, "no_en": 1000, "lv_en": 1000}


class TextToText(Task):
    """Microsoft documentation translated to English, two-shot, one line."""

    DATASET_PATH = "code_x_glue_tt_text_to_text"
    metrics = ("nmt_bleu[smooth]",)
    aggregations: ClassVar[Mapping[str, str]] = {"nmt_bleu[smooth]": FIRST_SAMPLE}  # as the harness: `gen[0]`
    pass_threshold = 1.0
    id_field = "id"
    required_fields = ("id", "source", "target")

    def __init__(self) -> None:
        super().__init__(stop_words=["\n"], requires_execution=False)

    def get_prompt(self, doc: Doc) -> str:
        language = TRANSLATION_SOURCES[str(self.DATASET_NAME)]
        entry = f"Translate the following documentation from {language.title()} to English:\n"
        return two_shot_prompt(entry, TRANSLATION_SHOTS[language], doc["source"], (language.title(), "English"))

    def get_reference(self, doc: Doc) -> str:
        return doc["target"].strip()

    def postprocess_generation(self, generation: str, idx: int) -> str:
        return generation.split("\nEnglish:\n", 3)[-1].strip()


CODE_SIZES = {"python": 14918, "java": 10955, "javascript": 3291, "ruby": 1261, "php": 14014, "go": 8122}


def register(registry: TaskRegistry) -> None:
    for language in CODE_LANGUAGES:
        registry.add(type(f"CodeToText_{language}", (CodeToText,), {
            "name": f"codexglue_code_to_text-{language}", "DATASET_NAME": language, "code_language": language,
            "size": CODE_SIZES[language],
            "description": f"CodeXGLUE code-to-text, {language}: a function's documentation (smoothed BLEU-4)",
        }))
    registry.add(CodeToTextLeft)
    for pair, language in TRANSLATION_SOURCES.items():
        registry.add(type(f"TextToText_{pair}", (TextToText,), {
            "name": f"codexglue_text_to_text-{pair}", "DATASET_NAME": pair, "size": TRANSLATION_SIZES[pair],
            "description": f"CodeXGLUE documentation translation, {language.title()} to English, two-shot (BLEU)",
        }))
