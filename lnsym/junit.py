"""JUnit XML for CI servers: one testcase per claim or derivation.

A passing item is a bare testcase; a verdict that misses its expectation is a
``<failure>`` (or an ``<error>`` for ERROR and TIMEOUT), whose message is the one-line
reason and whose text is the full account with the counterexample.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from lnsym.claims import DerivationResult, Result


def junit_xml(results: list[tuple[str, Result | DerivationResult]]) -> str:
    """The JUnit document for ``(section name, result)`` pairs, as a string."""
    from lnsym.pytest_plugin import describe_failure

    failures = sum(1 for _, r in results if not r.passed and r.verdict not in ("ERROR", "TIMEOUT"))
    errors = sum(1 for _, r in results if not r.passed and r.verdict in ("ERROR", "TIMEOUT"))
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
            tag = "error" if result.verdict in ("ERROR", "TIMEOUT") else "failure"
            account = describe_failure(result)
            element = ET.SubElement(case, tag, message=account.splitlines()[0], type=result.verdict)
            element.text = account
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
