"""JUnit XML for CI servers: one testcase per claim or derivation.

A passing item is a bare testcase; a verdict that misses its expectation is a
``<failure>`` (or an ``<error>`` for ERROR and TIMEOUT), whose message is the one-line
reason and whose text is the full account with the counterexample.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from lnsym.checking.claims import DerivationResult, Result
from lnsym.checking.verdicts import expectation
from lnsym.printing.evidence import counterexample_text


def junit_xml(results: list[tuple[str, Result | DerivationResult]]) -> str:
    """The JUnit document for ``(section name, result)`` pairs, as a string."""
    failures = sum(1 for _, r in results if not r.passed and r.verdict.decided)
    errors = sum(1 for _, r in results if not r.passed and not r.verdict.decided)
    total_time = sum(r.seconds for _, r in results)
    suite = ET.Element(
        "testsuite",
        name="lnsym",
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{total_time:.3f}",
    )
    for section, result in results:
        item_id = result.claim.id if isinstance(result, Result) else result.derivation.id
        case = ET.SubElement(
            suite, "testcase", classname=section, name=item_id, time=f"{result.seconds:.3f}"
        )
        properties = ET.SubElement(case, "properties")
        ET.SubElement(properties, "property", name="verdict", value=result.verdict)
        if not result.passed:
            tag = "failure" if result.verdict.decided else "error"
            account = describe_failure(result)
            element = ET.SubElement(case, tag, message=account.splitlines()[0], type=result.verdict)
            element.text = account
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def describe_failure(result: Any) -> str:
    """A readable multi-line account of a failed claim or derivation."""
    from lnsym.checking.claims import DerivationResult
    from lnsym.printing.printer import text

    if isinstance(result, DerivationResult):
        lines = [f"derivation {result.derivation.id}: {result.verdict}"]
        for step in result.steps:
            if not step.passed:
                lines.append(describe_failure(step))
        return "\n".join(lines)
    claim = result.claim
    wanted = expectation(claim.expect, claim.require)
    lines = [
        f"claim {claim.id}: {result.verdict}, expected {wanted}",
        f"  statement: {text(claim.statement)}",
    ]
    if claim.assumptions:
        lines.append("  assuming: " + "; ".join(text(a) for a in claim.assumptions))
    if result.reason:
        lines.append(f"  reason: {result.reason}")
    for e in result.evidence:
        lines.append(f"  {e.engine}: {e.outcome} — {e.detail}")
    if result.counterexample is not None:
        lines.append(f"  counterexample: {counterexample_text(result.counterexample, limit=10**6)}")
    return "\n".join(lines)
