"""Verdicts: claims and the checker, derivations, lemmas, budgets, running a catalog.

- :mod:`~lnsym.checking.claims` — Claim, the Checker that schedules the engines, verdicts.
- :mod:`~lnsym.checking.proof` — Derivation and Step; inequality certificates.
- :mod:`~lnsym.checking.lemmas` — lemma schemas (a conclusion from checked premises).
- :mod:`~lnsym.checking.budget` — the wall-clock safety net.
- :mod:`~lnsym.checking.runner` — selecting and running items, in parallel if asked.
- :mod:`~lnsym.checking.catalog` — loading derivation modules.
"""
