"""Reproducing the five papers: their published numbers (:mod:`wordlens.reproduce.published`)."""
