"""Test support shipped with the tests, not the library (the API fuzz oracle)."""
