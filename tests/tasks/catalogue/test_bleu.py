"""The BLEU catalogue (CoNaLa, Concode, CodeXGLUE code-to-text and text-to-text): every name listed without loading
data, the reference self-check and a generations file (passing and failing samples, -n 2 too) on real-schema rows,
and prompts, references and post-processing exactly as bigcode-evaluation-harness makes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.tasks import builtin_registry

pytestmark = pytest.mark.timeout(300)
pytest.importorskip("sacrebleu")

DATA = Path(__file__).parents[2] / "data"
FILES = {
    "conala": "conala/conala.jsonl", "concode": "conala/concode.jsonl",
    **{f"codexglue_code_to_text-{lang}": f"codexglue/code_to_text-{lang}.jsonl"
       for lang in ("python", "go", "ruby", "java", "javascript", "php")},
    "codexglue_code_to_text-python-left": "codexglue/code_to_text-python.jsonl",
    **{f"codexglue_text_to_text-{pair}": f"codexglue/text_to_text-{pair}.jsonl" for pair in ("da_en", "lv_en", "no_en", "zh_en")},
}
DATASETS = [f"--codeeval-dataset={name}={DATA / path}" for name, path in FILES.items()]


def rows(task: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / FILES[task]).read_text(encoding="utf-8").splitlines()]


def test_every_name_is_listed_without_loading_data(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    assert result.ret == 0
    listed = result.stdout.str()
    for name in FILES:
        assert name in listed
    assert "code_x_glue_ct_code_to_text:ruby" in listed and "neulab/conala" in listed


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_reference_answers_score_perfectly(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytest.importorskip("mosestokenizer")
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=conala,concode,codexglue_*",
                                           *DATASETS, "--codeeval-report=r.json", "--codeeval-strict", *workers)
    total = sum(len(rows(t)) for t in FILES)
    result.assert_outcomes(passed=total)
    tasks = report(pytester.path / "r.json")["tasks"]
    assert set(tasks) == set(FILES)
    for name, data in tasks.items():
        for metric, value in data["metrics"].items():
            assert value == pytest.approx(100.0 if metric == "codexglue_bleu" else 1.0), (name, metric)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_generations_file_passes_and_fails(pytester: pytest.Pytester, workers: list[str]) -> None:
    """A one-line answer per row: right, or a near miss. Scores equal the BLEU of the same answers computed directly."""
    pytest.importorskip("mosestokenizer")
    from pytest_codeeval.metrics.bleu import codexglue_sentence_bleu, nmt_bleu

    conala = rows("conala")
    answers = [c["snippet"] for c in conala[:2]] + ["words = open('myfile').split()"]
    lines = [{"task": "conala", "task_id": str(c["question_id"]), "completion": a} for c, a in zip(conala, answers, strict=True)]
    lines.append({"task": "codexglue_code_to_text-go", "task_id": "0", "completion": "NewSTM makes a new STM ."})
    (pytester.path / "g.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", *DATASETS, "--codeeval-report=r.json", *workers)
    result.assert_outcomes(passed=2, failed=2)  # a BLEU task's sample passes when its BLEU is perfect
    tasks = report(pytester.path / "r.json")["tasks"]
    assert tasks["conala"]["metrics"]["nmt_bleu[smooth]"] == pytest.approx(
        nmt_bleu(answers, [c["snippet"] for c in conala], smooth=True))
    assert tasks["conala"]["metrics"]["exact_match"] == pytest.approx(2 / 3)
    reference = tasks["codexglue_code_to_text-go"]["problems"]["0"]["samples"][0]["reference"]
    assert reference == "NewSTM initiates a new STM instance using serializable snapshot isolation by default."
    assert tasks["codexglue_code_to_text-go"]["metrics"]["codexglue_bleu"] == pytest.approx(
        codexglue_sentence_bleu("NewSTM makes a new STM .", reference))


def test_missing_hub_names_the_local_file_option(pytester: pytest.Pytester) -> None:
    from pytest_codeeval.tasks.loading import hub_reachable

    if hub_reachable():
        pytest.skip("the hub answers here")
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=concode")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: concode: no data here: *code_x_glue_tc_text_to_code*--codeeval-dataset=concode=PATH"])


@pytest.mark.parametrize("task", ["conala", "concode", "codexglue_code_to_text-python", "codexglue_code_to_text-go",
                                  "codexglue_code_to_text-python-left", "codexglue_text_to_text-da_en"])
def test_prompts_and_postprocessing_are_bigcodes(task: str) -> None:
    if task.startswith("codexglue_code_to_text"):
        pytest.importorskip("mosestokenizer")
    registry = builtin_registry()
    registry.use_datasets([(task, DATA / FILES[task])])
    instance = registry.get(task)
    for index, expected in enumerate(BCEH[task]):
        doc = instance.docs[index]
        prompt = instance.get_prompt(doc)
        assert prompt == expected["prompt"]
        assert instance.get_reference(doc) == expected["reference"]
        assert instance.postprocess_generation(prompt + expected["completion"], index) == expected["post"]


# What bigcode-evaluation-harness (8fc5bae) gives for the first rows of the test data: its own task classes run
# on them (get_prompt, get_reference, postprocess_generation of prompt + COMPLETION), written down here.
BCEH = {
    'conala': [
        {
            'prompt': "Answer the following instructions in one line of Python code:\n\nInstruction:\nconvert a list of integers into a single integer                   \nSolution:\nr = int(''.join(map(str, x)))                   \nInstruction:\nhow to convert a datetime string back to datetime object?                   \nSolution:\ndatetime.datetime.strptime(str, '%m/%d/%Y')                   \nInstruction:\ncopy the content of file 'file.txt' to file 'file2.txt'                   \nSolution:\n",
            'reference': "shutil.copy('file.txt', 'file2.txt')",
            'completion': "shutil.copy('file.txt', 'file2.txt')\n",
            'post': "shutil.copy('file.txt', 'file2.txt')",
        },
        {
            'prompt': "Answer the following instructions in one line of Python code:\n\nInstruction:\nconvert a list of integers into a single integer                   \nSolution:\nr = int(''.join(map(str, x)))                   \nInstruction:\nhow to convert a datetime string back to datetime object?                   \nSolution:\ndatetime.datetime.strptime(str, '%m/%d/%Y')                   \nInstruction:\ncheck if all elements in list `mylist` are the same                   \nSolution:\n",
            'reference': 'len(set(mylist)) == 1',
            'completion': ' len(set(mylist))==1\nInstruction',
            'post': 'len(set(mylist))==1\nInstruction',
        },
    ],
    'concode': [
        {
            'prompt': 'Answer the following instructions in a one line of Java code:\n\nInstruction:\nget the distance of map coordinates to the center                    \nSolution:\nfloat function ( int arg0 , int arg1 ) { int loc0 = arg0 - cx ; int loc1 = arg1 - cy ; return getSquaredDistance ( loc0 , loc1 ) ; }                   \nInstruction:\ncheck if details are parsed                   \nSolution:\nboolean function ( ) { return isParsed ; }                   \nInstruction:\ncheck if details are parsed                   \nSolution:\n',
            'reference': 'boolean function ( ) { return isParsed ; }',
            'completion': 'boolean function ( ) { return isParsed ; }\n',
            'post': 'boolean function ( ) { return isParsed ; }',
        },
    ],
    'codexglue_code_to_text-python': [
        {
            'prompt': 'def get_vid_from_url(url):\n        \n        return match1(url, r\'youtu\\.be/([^?/]+)\') or \\\n          match1(url, r\'youtube\\.com/embed/([^/?]+)\') or \\\n          match1(url, r\'youtube\\.com/v/([^/?]+)\') or \\\n          match1(url, r\'youtube\\.com/watch/([^/?]+)\') or \\\n          parse_query_param(url, \'v\') or \\\n          parse_query_param(parse_query_param(url, \'u\'), \'v\')\n""" The goal of this function is to:\n',
            'reference': 'Extracts video ID from URL.',
            'completion': 'Extracts video ID from URL.\nmore"""',
            'post': 'Extracts video ID from URL.',
        },
        {
            'prompt': 'def sina_xml_to_url_list(xml_data):\n    \n    rawurl = []\n    dom = parseString(xml_data)\n    for node in dom.getElementsByTagName(\'durl\'):\n        url = node.getElementsByTagName(\'url\')[0]\n        rawurl.append(url.childNodes[0].data)\n    return rawurl\n""" The goal of this function is to:\n',
            'reference': 'str - > list Convert XML to URL List. From Biligrab.',
            'completion': '  Parse a string."""\n',
            'post': 'Parse a string."""',
        },
    ],
    'codexglue_code_to_text-go': [
        {
            'prompt': 'func NewSTM(c *v3.Client, apply func(STM) error, so ...stmOption) (*v3.TxnResponse, error) {\n\topts := &stmOptions{ctx: c.Ctx()}\n\tfor _, f := range so {\n\t\tf(opts)\n\t}\n\tif len(opts.prefetch) != 0 {\n\t\tf := apply\n\t\tapply = func(s STM) error {\n\t\t\ts.Get(opts.prefetch...)\n\t\t\treturn f(s)\n\t\t}\n\t}\n\treturn runSTM(mkSTM(c, opts), apply)\n}\n/* The goal of this function is to:\n',
            'reference': 'NewSTM initiates a new STM instance using serializable snapshot isolation by default.',
            'completion': 'NewSTM initiates a new STM instance.\n*/',
            'post': 'NewSTM initiates a new STM instance.',
        },
    ],
    'codexglue_code_to_text-python-left': [
        {
            'prompt': 'def get_vid_from_url(url):\n        """',
            'reference': 'Extracts video ID from URL.',
            'completion': 'Extracts video ID from URL.\n        """',
            'post': 'Extracts video ID from URL.',
        },
        {
            'prompt': 'def sina_xml_to_url_list(xml_data):\n    """',
            'reference': 'str - > list Convert XML to URL List. From Biligrab.',
            'completion': '\n        str -> list\n        Convert XML to URL List.\n"""',
            'post': 'str -> list',
        },
    ],
    'codexglue_text_to_text-da_en': [
        {
            'prompt': 'Translate the following documentation from Danish to English:\n\nDanish:\n2 . Udfyld felterne i hvert trin i vejledningen .                    \nEnglish:\n2 . Fill in the fields in each step of the guide .                    \nDanish:\n* Vise rapporter med finansposter og saldi .                    \nEnglish:\n* View reports that show general ledger entries and balances .                    \nDanish:\n4 . Kør modellen , og udgiv den som en webtjeneste .\n                   \nEnglish:\n',
            'reference': '4 . Run the model , and publish it as a web service .',
            'completion': '4 . Run the model .\n',
            'post': '4 . Run the model .',
        },
        {
            'prompt': 'Translate the following documentation from Danish to English:\n\nDanish:\n2 . Udfyld felterne i hvert trin i vejledningen .                    \nEnglish:\n2 . Fill in the fields in each step of the guide .                    \nDanish:\n* Vise rapporter med finansposter og saldi .                    \nEnglish:\n* View reports that show general ledger entries and balances .                    \nDanish:\nI denne procedure kommer du til at planlægge ud fra et behov fra en salgsordre . Behovslinjerne repræsenterer salgslinjer og ikke komponentlinjer som ved produktionsbehov .\n                   \nEnglish:\n',
            'reference': 'In this procedure , you will plan for demand from a sales order . Demand lines represent sales lines and not component lines , as in production demand .',
            'completion': 'In this procedure\n',
            'post': 'In this procedure',
        },
    ],
}
