"""The verdict on a claim: a typed enum whose values are the words users and JSON see.

>>> Verdict.PROVED == "PROVED", Verdict.VERIFIED.support, Verdict.TIMEOUT.decided
(True, 2, False)
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """What checking concluded, from the strongest support of "holds" to undecided.

    A ``StrEnum``: each member equals its name as a string (``Verdict.PROVED == "PROVED"``),
    so JSON, JUnit and reports show the same words as before the type existed.
    """

    PROVED = "PROVED"  # for every d, by the general engine or a lemma
    VERIFIED = "VERIFIED"  # exactly, for the dimensions listed
    CONSISTENT = "CONSISTENT"  # numeric samples only
    REFUTED = "REFUTED"  # an exact counterexample, re-checked
    ERROR = "ERROR"  # undecided: an engine failed or declined
    TIMEOUT = "TIMEOUT"  # undecided: the wall-clock safety net ran out

    @property
    def support(self) -> int:
        """How strongly the verdict supports "the claim holds": 3, 2, 1, or 0."""
        return _SUPPORT.get(self, 0)

    @property
    def decided(self) -> bool:
        """Whether the engines reached a conclusion (not ERROR or TIMEOUT)."""
        return self not in (Verdict.ERROR, Verdict.TIMEOUT)


_SUPPORT = {Verdict.PROVED: 3, Verdict.VERIFIED: 2, Verdict.CONSISTENT: 1}


def expectation(expect: str, require: str) -> str:
    """What a claim must get, in words: ``REFUTED`` or ``PROVED or stronger``."""
    return str(Verdict.REFUTED) if expect == "refuted" else f"{require} or stronger"
