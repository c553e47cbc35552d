"""Exact values for people: worked examples and exercise sheets.

- :mod:`~lnsym.exact.examples` — a worked example at exact inputs (``lnsym example``).
- :mod:`~lnsym.exact.exercises` — exercise sheets whose answers are checked.
- :mod:`~lnsym.exact.exercise_math` — the exact arithmetic the exercises use.
"""
