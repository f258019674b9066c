"""The one table of runners: every language and judge named once, "module:Class", made on first use; nothing
registers itself at import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_nothing_registers_at_import() -> None:
    """Building the task registry leaves the runners' table as it was (in a fresh interpreter): HumanEvalPack's
    runners are found by name, their module imported when a sample first asks for one."""
    code = (
        "import json, sys\n"
        "from pytest_codeeval import runners\n"
        "from pytest_codeeval.tasks import build_registry\n"
        "before = sorted(runners.RUNNERS)\n"
        "names = build_registry().names()\n"
        "module = 'pytest_codeeval.tasks.catalogue.humanevalpack.runners'\n"
        "imported = module in sys.modules\n"
        "found = type(runners.get_runner('humanevalpack-go')).__name__\n"
        "print(json.dumps([len(names), sorted(runners.RUNNERS) == before, imported, found, module in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    n_tasks, unchanged, imported, found, imported_after = json.loads(out)
    assert n_tasks > 100 and unchanged and not imported and found == "PackGo" and imported_after


def test_one_table_names_every_runner() -> None:
    """Every entry of `runners.RUNNERS` is a Runner's "module:Class"; every language of `runners.MODULES` is
    there, by MultiPL-E's name; a task's `python` finds Python's, and a judge module's class is named in JUDGES
    (judges/base.py holds their shared path, no judge)."""
    import importlib

    from pytest_codeeval import judges, runners
    from pytest_codeeval.runners.base import Runner

    for name, spec in runners.RUNNERS.items():
        module, cls = spec.split(":")
        assert issubclass(getattr(importlib.import_module(module), cls), Runner), name
    assert set(runners.MODULES) | set(runners.JUDGES) == set(runners.RUNNERS)
    assert type(runners.get_runner("python")).__name__ == "Python"
    judged = {f"{judges.__name__}.{path.stem}" for path in Path(judges.__file__).parent.glob("*.py")
              if not path.stem.endswith("_harness") and path.stem not in ("__init__", "base")}
    assert judged == {spec.split(":")[0] for spec in runners.JUDGES.values() if spec.startswith(judges.__name__)}
