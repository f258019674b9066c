"""JUnit XML that agrees with the run's exit status. pytest writes a failing sample as a failure, although failing
samples are results (the run exits 0 unless --codeeval-strict), and it knows nothing of gates. So, after pytest
wrote the file: a failing sample that did not fail the run keeps its verdict in its properties and output but is
no failure, and each gate is a test case of its own, failing when the gate failed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from pytest_codeeval.evaluation.outcome import RunOutcome

VERDICTS_THAT_ARE_RESULTS = ("failed", "timeout")  # an unjudged sample (`error`) fails the run: it stays a failure


def reconcile(path: Path, outcome: RunOutcome) -> None:
    tree = ET.parse(path)
    root = tree.getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    if suite is None:
        return
    if not outcome.facts.settings.strict:
        for case in suite.iter("testcase"):
            _result_not_failure(suite, case)
    for gate in outcome.gates.results if outcome.gates else ():
        case = ET.SubElement(suite, "testcase", classname="codeeval.gates", name=f"{gate.kind}: {gate.message}",
                             time="0")
        if not gate.passed:
            ET.SubElement(case, "failure", message=gate.message).text = gate.message
            _count(suite, "failures", 1)
        _count(suite, "tests", 1)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _result_not_failure(suite: ET.Element, case: ET.Element) -> None:
    status = next((p.get("value") for p in case.iter("property") if p.get("name") == "codeeval_status"), None)
    failure = case.find("failure")
    if status not in VERDICTS_THAT_ARE_RESULTS or failure is None:
        return
    case.remove(failure)
    out = case.find("system-out")
    if out is None:
        out = ET.SubElement(case, "system-out")
    out.text = f"sample {status}: {failure.get('message') or ''}\n{failure.text or ''}\n{out.text or ''}"
    _count(suite, "failures", -1)


def _count(suite: ET.Element, attribute: str, delta: int) -> None:
    suite.set(attribute, str(int(suite.get(attribute, "0")) + delta))
