"""Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), averaged over problems."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def estimate_pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn from n (c correct) is correct; numerically stable."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def usable_ks(ks: Iterable[int], counts: Sequence[tuple[int, int]]) -> list[int]:
    """The k values that every problem has enough samples for."""
    smallest = min((n for n, _ in counts), default=0)
    return [k for k in ks if k <= smallest]


def pass_at_k(counts: Sequence[tuple[int, int]], ks: Iterable[int]) -> dict[str, float]:
    """{"pass@k": mean over problems} for each usable k, from per-problem (n samples, c correct)."""
    return {
        f"pass@{k}": math.fsum(estimate_pass_at_k(n, c, k) for n, c in counts) / len(counts)
        for k in usable_ks(ks, counts)
    }
