"""The package version (one place; the package, reports and downloads read it)."""

__version__ = "0.1.0"
