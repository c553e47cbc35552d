"""Rendering of claims, derivations and results: printers, templates, figures."""
