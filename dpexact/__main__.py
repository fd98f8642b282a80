"""``python -m dpexact`` runs the command line."""

from .cli.main import app

app(prog_name="dpexact")
