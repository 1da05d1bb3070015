"""Compare models on several queries and rank them by bias, as WEFE does (Badilla,
Bravo-Marquez & Pérez 2020): ``wordlens <method> -m A -m B --query q1.yaml --query q2.yaml``
(:mod:`wordlens.comparison.runner`), the rankings and their correlations
(:mod:`wordlens.comparison.rankings`), and the page (:mod:`wordlens.comparison.report`)."""

from wordlens.comparison.rankings import LayerChoice, parse_layer_choice
from wordlens.comparison.runner import Comparison, read_comparison, run_comparison

__all__ = ["Comparison", "LayerChoice", "parse_layer_choice", "read_comparison", "run_comparison"]
