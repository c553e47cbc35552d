"""Exact values for people: worked examples and exercise sheets.

- :mod:`~lnsym.exact.closed_form` — the named quantities and their closed forms, the one
  oracle both of the below check the IR against.
- :mod:`~lnsym.exact.examples` — a worked example at exact inputs (``lnsym example``), with
  its parts ``example_inputs``, ``example_ir``, ``example_check``, ``example_record`` and
  ``example_labels``, and ``values`` and ``value_format`` for its exact values.
- :mod:`~lnsym.exact.exercises` — exercise sheets whose answers are checked, with their parts
  ``exercise_options``, ``exercise_model``, ``exercise_draft``, ``exercise_writing``, the
  kinds ``exercise_forward`` and ``exercise_derivatives``, and ``nice_data``.
- :mod:`~lnsym.exact.exercise_math` — the exact arithmetic the exercises use (re-exported).
"""
