"""Reports: HTML pages, figures, and how numbers are shown in them and in console tables."""

from __future__ import annotations

import math
from typing import Any

#: Columns of result tables that hold p-values (:func:`format_p` shows them).
P_VALUE_COLUMNS = frozenset({"p_one_sided", "p_two_sided", "p_value"})
#: Those counted over a table's ``n_partitions`` permutation partitions.
PERMUTATION_P_COLUMNS = frozenset({"p_one_sided", "p_two_sided"})


def format_p(p: Any, n_partitions: Any = None, digits: int = 3) -> str:
    """A p-value as shown to a reader: ``digits`` decimals, but never ``0.000``.

    Below ``10**-digits`` it reads ``< 0.001`` (``digits=3``); where it was counted over
    ``n_partitions`` permutation partitions and ``1 / n_partitions`` is larger, below that it
    reads ``< 1/N`` (the resolution of the count). NaN or ``None`` (an undefined statistic)
    reads ``n/a``.

    >>> format_p(0.0), format_p(0.0004), format_p(0.0123), format_p(0.0, 70)
    ('< 0.001', '< 0.001', '0.012', '< 1/70')
    """
    if p is None or not math.isfinite(float(p)):
        return "n/a"
    p = float(p)
    floor = 10.0**-digits
    if n_partitions is not None and _is_count(n_partitions) and 1 / int(n_partitions) > floor:
        if p < 1 / int(n_partitions):
            return f"< 1/{int(n_partitions)}"
    elif p < floor:
        return f"< {floor:.{digits}f}"
    return f"{p:.{digits}f}"


def _is_count(value: Any) -> bool:
    try:
        return math.isfinite(float(value)) and int(value) > 0
    except (TypeError, ValueError):
        return False
