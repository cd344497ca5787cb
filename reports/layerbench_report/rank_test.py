"""The Mann-Whitney U test, exact: compare.py's test of two points' round medians.

Google Benchmark's compare.py runs this test over repetitions; here it runs over rounds, each
round's median one value. With few values the exact distribution of U is needed (the normal
approximation is poor below about 8 per side), and it is cheap: the number of arrangements
of n values against m with U = u is the coefficient of q^u in the Gaussian binomial
coefficient [n + m choose n]_q.
"""
from __future__ import annotations

from math import comb


def u_statistic(xs, ys) -> float:
    """U of xs against ys: the pairs (x, y) with x > y, a tie counting one half."""
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)


def u_counts(n: int, m: int) -> list:
    """counts[u]: how many of the comb(n + m, n) orderings of n values against m, all distinct,
    give U = u (u from 0 to n x m)."""
    counts = [1] + [0] * (n * m)
    # The product over i = 1..n of (1 - q^(m + i)) / (1 - q^i), in exact integers.
    for i in range(1, n + 1):
        for k in range(n * m, m + i - 1, -1):
            counts[k] -= counts[k - m - i]
        for k in range(i, n * m + 1):
            counts[k] += counts[k - i]
    return counts


def two_sided_p(xs, ys) -> float:
    """The exact two-sided p-value of U for xs against ys (no ties assumed: a tie makes it
    approximate), at most 1."""
    n, m = len(xs), len(ys)
    if n == 0 or m == 0:
        raise ValueError("the U test needs at least one value on each side")
    u = u_statistic(xs, ys)
    tail_u = min(u, n * m - u)
    counts = u_counts(n, m)
    tail = sum(counts[k] for k in range(int(tail_u) + 1))
    return min(1.0, 2 * tail / comb(n + m, n))


def least_p(n: int, m: int) -> float:
    """The smallest two-sided p the test can give with n values against m: when every value of
    one side is below every value of the other."""
    return min(1.0, 2 / comb(n + m, n))
