"""Tasks defined in a project's conftest.py: registration (with metric checks naming the file), user metrics,
resources as pytest fixtures requested by each sample, with the usual scopes, also under xdist, and tasks whose
prompts or references read other tasks' samples of the run (`Task.upstream`: a file's, a model's two passes)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from helpers import report
from servers import FakeServer

from pytest_codeeval.tasks.sql import QueryError, run_query, same_rows

pytestmark = pytest.mark.timeout(300)

SCOPED = '''
from pathlib import Path

import pytest

from pytest_codeeval.tasks import Task

LOG = Path(__file__).with_name("log.txt")


def log(line):
    with LOG.open("a") as fh:
        fh.write(line + "\\n")


@pytest.fixture(scope="session")
def shared():
    log("session up")
    yield "S"
    log("session down")


@pytest.fixture(scope="module")
def per_task(request):
    log(f"task up {request.node.name}")
    yield request.node.name
    log(f"task down {request.node.name}")


@pytest.fixture
def per_sample(request, shared, per_task):
    log(f"sample up {request.node.nodeid}")
    yield request.node.nodeid
    log(f"sample down {request.node.nodeid}")


class Scoped(Task):
    name = "scoped"
    metrics = ("exact_match",)
    fixtures = ("per_sample",)

    def __init__(self):
        super().__init__(requires_execution=False)

    def get_dataset(self):
        return [{"task_id": f"p{i}", "answer": str(i)} for i in range(4)]

    def get_prompt(self, doc):
        return "?"

    def get_reference(self, doc):
        return doc["answer"]

    def score(self, solution, reference, doc, resources):
        assert resources["per_sample"].startswith(f"codeeval::{self.name}::{doc['task_id']}::sample")
        return {"exact_match": float(solution == reference)}


class Other(Scoped):
    name = "other"


def pytest_codeeval_register_tasks(registry):
    registry.add(Scoped)
    registry.add(Other)
'''


def test_fixture_scopes(pytester: pytest.Pytester) -> None:
    """session: once per process; module: once per task; function: once per sample, torn down after it."""
    pytester.makeconftest(SCOPED)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=scoped,other", "-p", "no:randomly")
    result.assert_outcomes(passed=8)
    lines = (pytester.path / "log.txt").read_text().splitlines()
    ids = [f"codeeval::{t}::p{i}::sample0" for t in ("scoped", "other") for i in range(4)]  # --codeeval-tasks order
    samples = [line for i in ids for line in (f"sample up {i}", f"sample down {i}")]
    assert lines == ["session up", "task up scoped", *samples[:8], "task down scoped", "task up other", *samples[8:],
                     "task down other", "session down"]


def test_fixtures_under_xdist_give_the_same_metrics(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SCOPED)
    rows = [{"task": "scoped", "task_id": f"p{i}", "completion": c} for i, c in enumerate(["0", "1", "x", "3"])]
    (pytester.path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["--codeeval-load-generations=g.jsonl"]
    pytester.runpytest(*args, "--codeeval-report=one.json").assert_outcomes(passed=3, failed=1)
    pytester.runpytest(*args, "-n", "2", "--codeeval-report=two.json").assert_outcomes(passed=3, failed=1)
    one, two = (report(pytester.path / n)["tasks"]["scoped"]["metrics"] for n in ("one.json", "two.json"))
    assert one == two == {"exact_match": 0.75}
    counts = Counter(line.split(" ")[0] + " " + line.split(" ")[1] for line in (pytester.path / "log.txt").read_text().splitlines())
    assert counts["sample up"] == counts["sample down"] == 8  # 4 per run
    assert 2 <= counts["session up"] == counts["session down"] <= 3  # the plain run, then once per worker that ran one


def test_undefined_fixture_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SCOPED.replace('fixtures = ("per_sample",)', 'fixtures = ("per_sampel",)'))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=scoped")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *task 'scoped' requests fixture 'per_sampel', which is not defined (did you mean 'per_sample'?): define it in the conftest.py*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_unknown_metric_names_the_task_and_its_file(pytester: pytest.Pytester) -> None:
    conftest = pytester.makeconftest(SCOPED.replace("class Other(Scoped):", "class Other(Task):\n    metrics = ('exact_mach',)"))
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=scoped")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: task 'other' ({conftest}): unknown metric 'exact_mach' (did you mean 'exact_match'?); known metrics: *"])


def test_user_metrics_by_name(pytester: pytest.Pytester) -> None:
    """A scorer registered by name is usable by any task; Task.scorers attaches lm-eval style functions to one."""
    pytester.makeconftest('''
from pytest_codeeval.metrics import register_sample_scorer
from pytest_codeeval.tasks import Task

register_sample_scorer("length_ratio", lambda prediction, reference, doc: {"length_ratio": len(prediction) / len(reference)})


def contains(references, predictions, ignore_case=False):
    fold = str.lower if ignore_case else str
    return float(fold(references[0]) in fold(predictions[0]))


class Words(Task):
    name = "words"
    metrics = ("contains", "length_ratio")
    scorers = {"contains": contains}
    metric_options = {"contains": {"ignore_case": True}}
    aggregations = {"length_ratio": "median"}

    def __init__(self):
        super().__init__(requires_execution=False)

    def get_dataset(self):
        return [{"task_id": "a", "w": "cat"}, {"task_id": "b", "w": "dog"}, {"task_id": "c", "w": "emu"}]

    def get_prompt(self, doc):
        return "An animal:"

    def get_reference(self, doc):
        return doc["w"]


def pytest_codeeval_register_tasks(registry):
    registry.add(Words)
''')
    rows = [("a", "A CAT"), ("b", "cow"), ("c", "emus!")]
    (pytester.path / "g.jsonl").write_text("".join(json.dumps({"task_id": t, "completion": c}) + "\n" for t, c in rows))
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-tasks=words", "--codeeval-report=r.json")
    result.assert_outcomes(passed=2, failed=1)
    metrics = report(pytester.path / "r.json")["tasks"]["words"]["metrics"]
    assert metrics == {"contains": pytest.approx(2 / 3), "length_ratio": pytest.approx(5 / 3)}  # median of 5/3, 1, 5/3


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("create table orders (id integer, customer text, total real)")
        db.executemany("insert into orders values (?, ?, ?)", [(1, "ann", 10.0), (2, "bob", 5.5), (3, "ann", 2.5)])
    return path


CHAINED = '''
from pytest_codeeval.tasks import Task


class Animals(Task):
    name = "animals"
    metrics = ("exact_match",)

    def __init__(self):
        super().__init__(requires_execution=False)

    def get_dataset(self):
        return [{"task_id": "a", "w": "cat"}, {"task_id": "b", "w": "dog"}]

    def get_prompt(self, doc):
        return "An animal:"

    def get_reference(self, doc):
        return doc["w"]


class Retell(Animals):
    """Each prompt is made from the run's samples of `animals`, read through `upstream`."""

    name = "retell"

    def get_reference(self, doc):
        count = self.upstream.sample_count("animals", doc["task_id"])
        return f"{count}: " + ", ".join(self.upstream.solution("animals", doc["task_id"], i) for i in range(count))

    def upstream_samples(self, doc):
        return [("animals", doc["task_id"], i) for i in range(self.upstream.sample_count("animals", doc["task_id"]))]


def pytest_codeeval_register_tasks(registry):
    registry.add(Animals)
    registry.add(Retell)
'''


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_task_reads_other_tasks_samples_of_the_run(pytester: pytest.Pytester, workers: str) -> None:
    """A task's `upstream` is the run's samples of other tasks (HumanEvalPack's explain-synthesize reads describe's):
    their count and solutions, here a generations file's, in every process."""
    pytester.makeconftest(CHAINED)
    rows = [("animals", "a", "cat"), ("animals", "a", "lion"), ("animals", "b", "dog"),
            ("retell", "a", "2: cat, lion"), ("retell", "b", "1: cat")]
    (pytester.path / "g.jsonl").write_text(
        "".join(json.dumps({"task": t, "task_id": p, "completion": c}) + "\n" for t, p, c in rows)
    )
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", "-n", workers, "-rf")
    result.assert_outcomes(passed=3, failed=2)
    for failed in ("animals::a::sample1", "retell::b::sample0"):  # in either order under xdist
        result.stdout.fnmatch_lines([f"FAILED codeeval::{failed}*"])


RETOLD = '''
from pytest_codeeval.tasks import Task

ANIMALS = {"a": "cat", "b": "dog"}


class Animals(Task):
    name = "animals"
    metrics = ("exact_match",)

    def __init__(self):
        super().__init__(requires_execution=False)

    def get_dataset(self):
        return [{"task_id": key} for key in ANIMALS]

    def get_prompt(self, doc):
        return f"Name animal {doc['task_id']}:"

    def get_reference(self, doc):
        return ANIMALS[doc["task_id"]]


class Retell(Animals):
    """Its prompt is the model's own answer to `animals`: generated in a second pass."""

    name = "retell"

    def get_prompt(self, doc):
        return "Say again: " + self.upstream.solution("animals", doc["task_id"], 0) + "."

    def upstream_samples(self, doc):
        return [("animals", doc["task_id"], 0)]


def pytest_codeeval_register_tasks(registry):
    registry.add(Animals)
    registry.add(Retell)
'''


class Parrot(FakeServer):
    """Completions that name the animal a prompt asks for, or repeat what a prompt says again."""

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        prompt = body["prompt"]
        text = prompt.removeprefix("Say again: ").rstrip(".") if prompt.startswith("Say again: ") else (
            {"Name animal a:": " cat", "Name animal b:": " dog"}[prompt])
        return "text_completion", [{"index": 0, "finish_reason": "stop", "text": " " + text.strip()}]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_model_generates_the_samples_another_task_reads_first(pytester: pytest.Pytester, workers: str) -> None:
    """A model's prompts made from other samples' solutions: those are generated in a first pass (here left out of
    the selection by -k), then the prompts that read them; under xdist the controller sends both to its workers."""
    pytester.makeconftest(RETOLD)
    with Parrot() as server:
        result = pytester.runpytest_subprocess(
            "--codeeval-model=openai:fake", f"--codeeval-base-url={server.url}", "--codeeval-tasks=animals,retell",
            "-k", "retell", "--codeeval-report=r.json", "-n", workers,
        )
    result.assert_outcomes(passed=2)  # -k leaves `animals` out of collection
    prompts = sorted(body["prompt"] for body in server.seen)
    assert prompts == ["Name animal a:", "Name animal b:", "Say again: cat.", "Say again: dog."]
    assert report(pytester.path / "r.json")["generation"]["generated"] == 4


@pytest.mark.parametrize(
    "sql, message",
    [
        ("delete from orders", "not authorized"),
        ("attach database 'other.sqlite' as other", "not authorized"),
        ("select 1; drop table orders", "You can only execute one statement at a time."),
        ("with recursive n(x) as (select 1 union all select x + 1 from n) select count(*) from n", "stopped: step budget exhausted"),
        ("select zeroblob(100000000)", "string or blob too big"),
    ],
    ids=["write", "attach", "two-statements", "runaway", "huge"],
)
def test_untrusted_sql_is_read_only_and_bounded(shop: Path, sql: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(shop.parent)
    with pytest.raises(QueryError, match=message):
        run_query(shop, sql)
    assert run_query(shop, "select count(*) from orders") == [(3,)]
    assert sorted(p.name for p in shop.parent.iterdir()) == ["shop.sqlite"]


def test_execution_match_compares_rows_as_a_multiset(shop: Path) -> None:
    gold = "select customer, sum(total) from orders group by customer"
    assert same_rows(shop, "select customer, sum(total) from orders group by 1 order by 1 desc", gold)
    assert not same_rows(shop, "select customer, max(total) from orders group by customer", gold)
    assert not same_rows(shop, "select nonsense", gold)
