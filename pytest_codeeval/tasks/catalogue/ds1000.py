"""DS-1000 (Lai et al. 2022): data-science problems over seven libraries, judged by each problem's own test code.
Completion mode reads the hub's simplified release (xlangai/DS-1000: prompt, reference_code, metadata,
code_context); a sample runs as its code_context followed by `test_execution(code)` in the sandbox, like the
release's harness. Insertion mode reads the original release (ds1000_release.py), whose prompts mark the gap with
`[insert]`: the model fills it in between prefix and suffix, and the release's own test runs in the sandbox."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words

# subset name -> (the hub's metadata.library, the module a sample imports)
LIBRARIES = {
    "numpy": ("Numpy", "numpy"), "pandas": ("Pandas", "pandas"), "scipy": ("Scipy", "scipy"),
    "matplotlib": ("Matplotlib", "matplotlib"), "sklearn": ("Sklearn", "sklearn"), "pytorch": ("Pytorch", "torch"),
    "tensorflow": ("Tensorflow", "tensorflow"),
}
MODULE_OF = dict(LIBRARIES.values())
SIZES = {"all": 1000, "numpy": 220, "pandas": 291, "scipy": 106, "matplotlib": 155, "sklearn": 115, "pytorch": 68,
         "tensorflow": 45}
# the original release's libraries in the order bigcode's `all` runs them; Matplotlib has no insertion prompts
RELEASE_ORDER = ("Pandas", "Numpy", "Tensorflow", "Scipy", "Sklearn", "Pytorch")
EXTRA = "pip install 'pytest-codeeval[ds1000]'"
# Before the problem's code: one thread per library (their pools would not fit the sandbox's limits, and samples
# run side by side), matplotlib without a display, tensorflow quiet and on the CPU.
PRELUDE = """import os
for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
              "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
    os.environ[_name] = "1"
os.environ.update(MPLBACKEND="Agg", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="-1")
del _name
"""


class DS1000(Task):
    name = "ds1000-all-completion"
    subset = "all"
    mode = "completion"
    description = "DS-1000, all libraries, completion prompts; each problem's own tests (pass@k)"
    DATASET_PATH: ClassVar[str | None] = "xlangai/DS-1000"
    SPLIT = "test"
    size = 1000
    default_timeout = 120.0  # the release's harness allows 120 s per problem
    memory_limit = 4 * 1024**3  # room for a library and the problem's arrays (torch's CPU build imports within 1 GiB)
    required_fields: ClassVar[tuple[str, ...]] = ("prompt", "reference_code", "metadata", "code_context")
    metrics: ClassVar[tuple[str, ...]] = ("pass@k",)

    def __init__(self) -> None:
        super().__init__(stop_words=["</code>", "# SOLUTION END"], requires_execution=True)

    # -- data ------------------------------------------------------------------------------------------------
    def get_dataset(self) -> Sequence[Doc]:
        rows = self.hub_rows()
        if self.subset == "all":
            return rows
        library = LIBRARIES[self.subset][0]
        return [row for row in rows if row["metadata"]["library"] == library]

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc["metadata"]["problem_id"])

    def unsupported(self) -> str | None:
        if self.mode == "insertion" and self.subset == "matplotlib":
            return ("DS-1000 has no insertion prompts for Matplotlib (bigcode runs completion instead): run "
                    "ds1000-matplotlib-completion")
        return None

    def unavailable(self, doc: Doc | None = None) -> str | None:
        """Why this task (doc None) or this problem cannot run here: its library is not installed."""
        library = (doc["lib"] if self.mode == "insertion" else doc["metadata"]["library"]) if doc is not None else ""
        modules = [MODULE_OF[library]] if doc is not None else (
            [LIBRARIES[self.subset][1]] if self.subset != "all" else [])
        missing = [m for m in modules if find_spec(m) is None]
        return f"{', '.join(missing)} is not installed: {EXTRA} (tensorflow separately)" if missing else None

    # -- prompting ---------------------------------------------------------------------------------------------
    def get_prompt(self, doc: Doc) -> str:
        return doc["prompt"]

    def get_reference(self, doc: Doc) -> str:
        return doc["reference_code"]

    def get_solution(self, doc: Doc) -> str:
        return doc["reference_code"]

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """bigcode's: the text after the prompt's solution marker, cut at a stop word, stripped."""
        for start in ("BEGIN SOLUTION\n<code>", "# SOLUTION START"):
            generation = generation.split(start, 1)[-1]
        return self.join_completion(self.docs[idx], generation)

    def join_completion(self, doc: Doc, completion: str) -> str:
        for stop in self.stop_words:
            completion = completion.split(stop)[0]
        return completion.strip()

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        """The release's test program: the problem's context, then its test on the code (and its string test)."""
        context = doc["code_context"]
        tail = "test_string(code)\n" if "test_string(" in context else ""
        return f"{PRELUDE}{context}\ncode = {solution!r}\ntest_execution(code)\n{tail}"


class DS1000Insertion(DS1000):
    """Insertion mode: the original release's `[insert]` prompts, filled in the middle (Task.get_suffix); the
    solution is the middle alone, tested by the release's own test code."""

    name = "ds1000-all-insertion"
    mode = "insertion"
    description = "DS-1000, all libraries but Matplotlib, insertion prompts (fill-in-the-middle); pass@k"
    # listed as where it comes from: the GitHub repository's release zip (ds1000_release.RELEASE_URL), not a hub
    # dataset; get_dataset reads it, or the local ds1000_data directory --codeeval-dataset names
    DATASET_PATH = "HKUNLP/DS-1000"
    DATASET_NAME = "ds1000_data.zip"
    size = SIZES["all"] - SIZES["matplotlib"]
    required_fields = ()

    def get_dataset(self) -> Sequence[Doc]:
        from pytest_codeeval.tasks.catalogue.ds1000_release import cached_release, read_release

        root = self.dataset_override or cached_release(self.name)
        self._override_read = self.dataset_override is not None
        libraries = [LIBRARIES[self.subset][0]] if self.subset != "all" else (
            [lib for lib in RELEASE_ORDER if (root / lib / "Insertion").is_dir()] or list(RELEASE_ORDER))
        return [row for library in libraries for row in read_release(root, library, "Insertion")]

    def problem_id(self, doc: Doc, index: int) -> str:
        return f"{doc['lib']}/q{doc['problem_id']}"

    def _parts(self, doc: Doc) -> tuple[str, str]:
        """bigcode's split of the prompt at `[insert]`: each side stripped, the prefix ending and the suffix
        starting with a newline."""
        prefix, suffix = doc["prompt"].split("[insert]")
        return f"{prefix.strip()}\n", f"\n{suffix.strip()}\n"

    def get_prompt(self, doc: Doc) -> str:
        return self._parts(doc)[0]

    def get_suffix(self, doc: Doc) -> str:
        return self._parts(doc)[1]

    def postprocess_generation(self, generation: str, idx: int) -> str:
        """bigcode's: the middle the model wrote, cut at a stop word, stripped."""
        prefix = self.get_prompt(self.docs[idx])
        return self.join_completion(self.docs[idx], generation.removeprefix(prefix))

    def join_completion(self, doc: Doc, completion: str) -> str:
        return stop_at_stop_words(completion, self.stop_words).strip()

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        from pytest_codeeval.tasks.catalogue.ds1000_release import release_program

        return release_program(PRELUDE, dict(doc), solution)


def _subset(subset: str, mode: str) -> type[DS1000]:
    library = "all libraries" if subset == "all" else LIBRARIES[subset][0]
    insertion = mode == "insertion"
    if insertion and subset == "all":
        library = "all libraries but Matplotlib"
    how = " (fill-in-the-middle, the original release)" if insertion else ""
    description = f"DS-1000, {library}, {mode} prompts{how}; each problem's own tests (pass@k)"
    if insertion and subset == "matplotlib":
        description = "DS-1000, Matplotlib: the release has no insertion prompts (run ds1000-matplotlib-completion)"
    return type(f"DS1000{subset.title()}{mode.title()}", (DS1000Insertion if insertion else DS1000,), {
        "name": f"ds1000-{subset}-{mode}", "subset": subset, "mode": mode, "__module__": __name__,
        "size": (None if subset == "matplotlib" else SIZES[subset] - (SIZES["matplotlib"] if subset == "all" else 0))
        if insertion else SIZES[subset],
        "description": description,
    })


def register(registry: Any) -> None:
    for subset in ("all", *LIBRARIES):
        for mode in ("completion", "insertion"):
            registry.add(_subset(subset, mode))
