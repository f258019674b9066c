"""The compiled languages' MultiPL-E rows run end to end: a correct completion written the way MultiPL-E's prompts
expect it (what a model writes before the row's stop tokens: Go's and D's close the function, the others leave
the closing brace to the tests) passes on HumanEval/0 (a float list), /2 (a float result) and /29 (an empty
list in the tests), and a wrong one fails. The rows are the offline translation, which tests/languages/test_builder_rows.py
holds to MultiPL-E's builder; a language whose toolchain is missing (Swift's: Debian has none) skips with what to
install."""

from __future__ import annotations

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.languages import get_language

pytestmark = pytest.mark.timeout(600)
CLOSE, TRUNCATE, PREFIX = (
    "HumanEval_0_has_close_elements",
    "HumanEval_2_truncate_number",
    "HumanEval_29_filter_by_prefix",
)
# per language: a correct completion of each problem, and a wrong one of HumanEval/2 (the number unchanged)
COMPLETIONS: dict[str, dict[str, str]] = {
    "go": {
        CLOSE: "    for i := range numbers {\n        for j := range numbers {\n"
        "            d := numbers[i] - numbers[j]\n            if i != j && d < threshold && -d < threshold {\n"
        "                return true\n            }\n        }\n    }\n    return false\n}\n",
        TRUNCATE: "    return number - float64(int(number))\n}\n",
        PREFIX: "    result := []string{}\n    for _, s := range strings {\n"
        "        if len(s) >= len(prefix) && s[:len(prefix)] == prefix {\n            result = append(result, s)\n"
        "        }\n    }\n    return result\n}\n",
        "wrong": "    return number\n}\n",
    },
    "rs": {
        CLOSE: "    for i in 0..numbers.len() {\n        for j in 0..numbers.len() {\n"
        "            if i != j && (numbers[i] - numbers[j]).abs() < threshold {\n                return true;\n"
        "            }\n        }\n    }\n    false\n",
        TRUNCATE: "    number - number.floor()\n",
        PREFIX: "    strings.into_iter().filter(|s| s.starts_with(&prefix)).collect()\n",
        "wrong": "    number\n",
    },
    "cpp": {
        CLOSE: "    for (size_t i = 0; i < numbers.size(); i++)\n        for (size_t j = 0; j < numbers.size(); j++)\n"
        "            if (i != j && std::abs(numbers[i] - numbers[j]) < threshold) return true;\n    return false;\n",
        TRUNCATE: "    return number - (long)number;\n",
        PREFIX: "    std::vector<std::string> out;\n"
        "    for (auto &s : strings) if (s.rfind(prefix, 0) == 0) out.push_back(s);\n    return out;\n",
        "wrong": "    return number;\n",
    },
    "java": {
        CLOSE: "        for (int i = 0; i < numbers.size(); i++)\n            for (int j = 0; j < numbers.size(); j++)\n"
        "                if (i != j && Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n"
        "        return false;\n",
        TRUNCATE: "        return number - (long) number;\n",
        PREFIX: "        ArrayList<String> out = new ArrayList<String>();\n"
        "        for (String s : strings) if (s.startsWith(prefix)) out.add(s);\n        return out;\n",
        "wrong": "        return number;\n",
    },
    "cs": {
        CLOSE: "        for (int i = 0; i < numbers.Count; i++)\n            for (int j = 0; j < numbers.Count; j++)\n"
        "                if (i != j && Math.Abs(numbers[i] - numbers[j]) < threshold) return true;\n"
        "        return false;\n",
        TRUNCATE: "        return number - (long)number;\n",
        PREFIX: "        List<string> result = new List<string>();\n"
        "        foreach (string s in strings) if (s.StartsWith(prefix)) result.Add(s);\n        return result;\n",
        "wrong": "        return number;\n",
    },
    "scala": {
        CLOSE: "        numbers.indices.exists(i => numbers.indices.exists(j => i != j && "
        "math.abs(numbers(i) - numbers(j)) < threshold))\n",
        TRUNCATE: "        number - number.toLong\n",
        PREFIX: "        strings.filter(_.startsWith(prefix))\n",
        "wrong": "        number\n",
    },
    "d": {
        CLOSE: "{\n    foreach (i, a; numbers)\n        foreach (j, b; numbers)\n"
        "            if (i != j && abs(a - b) < threshold) return true;\n    return false;\n}\n",
        TRUNCATE: "{\n    return number - floor(number);\n}\n",
        PREFIX: "{\n    string[] result;\n    foreach (s; strings)\n"
        "        if (s.length >= prefix.length && s[0 .. prefix.length] == prefix) result ~= s;\n    return result;\n}\n",
        "wrong": "{\n    return number;\n}\n",
    },
    "hs": {
        CLOSE: " or [abs (a - b) < threshold | (i, a) <- zip [(0 :: Int) ..] numbers, (j, b) <- zip [0 ..] numbers, i /= j]\n",
        TRUNCATE: " number - fromIntegral (floor number :: Int)\n",
        PREFIX: " filter (\\s -> take (length prefix) s == prefix) strings\n",
        "wrong": " number\n",
    },
    "swift": {
        CLOSE: "    for i in 0..<numbers.count {\n        for j in 0..<numbers.count {\n"
        "            if i != j && abs(numbers[i] - numbers[j]) < threshold {\n                return true\n"
        "            }\n        }\n    }\n    return false\n",
        TRUNCATE: "    return number - number.rounded(.down)\n",
        PREFIX: "    return strings.filter { $0.hasPrefix(prefix) }\n",
        "wrong": "    return number\n",
    },
    "ml": {
        CLOSE: " let indexed = List.mapi (fun i x -> (i, x)) numbers in\n"
        "  List.exists (fun (i, a) -> List.exists (fun (j, b) -> i <> j && abs_float (a -. b) < threshold) indexed)"
        " indexed\n",
        TRUNCATE: " number -. float_of_int (int_of_float number)\n",
        PREFIX: " List.filter (fun s -> String.length s >= String.length prefix &&\n"
        "    String.sub s 0 (String.length prefix) = prefix) strings\n",
        "wrong": " number\n",
    },
}

# MultiPL-E's own rows compare a C# list result with List.Equals, which is reference equality: such a problem fails
# whatever the completion, in MultiPL-E's evaluation and here alike (the rows are its builder's)
UNSOLVABLE = {("cs", PREFIX): "failed"}


def _stops_where_a_model_would(name: str, completion: str) -> bool:
    """Whether the completion is what generation would keep: none of the language's stop tokens inside it."""
    return not any(stop in completion.rstrip("\n") for stop in get_language(name).stop)


@pytest.mark.parametrize("name", sorted(COMPLETIONS))
def test_correct_completions_pass_and_a_wrong_one_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    missing = get_language(name).unavailable()
    if missing:
        pytest.skip(missing)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    task = f"multiple-{name}"
    completions = COMPLETIONS[name]
    assert all(_stops_where_a_model_would(name, text) for text in completions.values())
    lines = [
        {"task": task, "task_id": TRUNCATE if problem == "wrong" else problem, "completion": text}
        for problem, text in completions.items()
    ]
    write_jsonl(pytester.path / "gen.jsonl", lines)
    result = pytester.runpytest(
        "--codeeval-load-generations=gen.jsonl", f"--codeeval-tasks={task}", "--codeeval-report=r.json", "-q"
    )
    problems = report(pytester.path / "r.json")["tasks"][task]["problems"]
    verdicts = {(problem, sample["status"]) for problem, found in problems.items() for sample in found["samples"]}
    expected = {(problem, UNSOLVABLE.get((name, problem), "passed")) for problem in completions if problem != "wrong"}
    expected.add((TRUNCATE, "failed"))
    assert verdicts == expected, result.stdout.str()[-3000:]
