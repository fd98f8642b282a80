"""Command-line interface (``dpexact``)."""
