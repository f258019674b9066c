"""Match-based metrics for tasks that need no execution: exact match, precision / recall / F1 on answer items,
and corpus BLEU with the tokenisation made explicit. Per-sample scores are computed where the sample runs;
task values are aggregated on the controller from every worker's records."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.records import SampleRecord

BLEU_TOKENIZERS = ("13a", "intl", "char", "none", "zh", "ja-mecab", "ko-mecab", "flores101", "flores200")
DEFAULT_BLEU_TOKENIZER = "13a"


def exact_match(prediction: str, reference: str, doc: Mapping[str, Any]) -> dict[str, float]:
    return {"exact_match": float(prediction.strip() == reference.strip())}


def answer_items(text: str) -> set[str]:
    """The items of an answer: a Python/JSON literal list or set when it parses, else lines or comma-separated words."""
    text = text.strip()
    try:
        value = ast.literal_eval(text)
        if isinstance(value, (list, tuple, set, frozenset)):
            return {str(v).strip() for v in value}
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    parts = text.splitlines() if "\n" in text else text.replace(",", " ").split()
    return {p.strip() for p in parts if p.strip()}


def precision_recall_f1(prediction: str, reference: str, doc: Mapping[str, Any]) -> dict[str, float]:
    predicted, gold = answer_items(prediction), answer_items(reference)
    if not predicted and not gold:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    hits = len(predicted & gold)
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def bleu_tokenizer(metric: str) -> str | None:
    """`bleu` uses sacrebleu's 13a; `bleu[char]`, `bleu[intl]`, ... name another tokenizer. None: not a BLEU metric."""
    if metric == "bleu":
        return DEFAULT_BLEU_TOKENIZER
    if metric.startswith("bleu[") and metric.endswith("]"):
        tokenizer = metric[5:-1]
        if tokenizer not in BLEU_TOKENIZERS:
            raise CodeevalError(f"metric {metric!r}: unknown BLEU tokenizer; use one of {', '.join(BLEU_TOKENIZERS)}")
        return tokenizer
    return None


def corpus_bleu(metric: str, problems: Mapping[str, Sequence[SampleRecord]]) -> dict[str, float]:
    """sacrebleu's corpus BLEU (0-100) over every sample, each against its problem's reference."""
    try:
        import sacrebleu
    except ImportError:
        raise CodeevalError(f"metric {metric!r} needs sacrebleu: pip install 'pytest-codeeval[bleu]'") from None
    records = [r for recs in problems.values() for r in recs]
    if not records:
        return {}
    score = sacrebleu.corpus_bleu([r.solution for r in records], [[r.reference or "" for r in records]],
                                  tokenize=bleu_tokenizer(metric))
    return {metric: float(score.score)}


def sentence_bleu(metric: str, prediction: str, reference: str) -> float:
    import sacrebleu

    return float(sacrebleu.sentence_bleu(prediction, [reference], tokenize=bleu_tokenizer(metric)).score)
