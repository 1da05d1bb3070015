"""``python -m wordlens``: the ``wordlens`` command line."""

from wordlens.cli import app

if __name__ == "__main__":
    app(prog_name="wordlens")
