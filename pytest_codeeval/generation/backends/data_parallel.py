"""Data parallelism for the transformers backend: one replica per device, each in its own process.

The requests are sorted by prompt length and dealt out in turn, so every replica gets a like mix of short and
long prompts. Each process loads the model once on its device and sends completions back as they finish (the
cache keeps them even if the run is cut off). Row seeds depend only on (seed, task, problem, sample), so the
completions do not depend on how the requests were split."""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.backends.transformers import AUTO_BATCH
from pytest_codeeval.generation.backends.whole_import import whole_import
from pytest_codeeval.generation.base import Completion, GenerationRequest, GenerationSettings, ModelOptions
from pytest_codeeval.generation.models import ModelSpec

POLL_SECONDS = 1.0


def visible(devices: tuple[str, ...]) -> tuple[str, ...]:
    """`auto`: every visible CUDA device (one replica each)."""
    if devices != ("auto",):
        return devices
    with whole_import("torch"):
        import torch

    count = torch.cuda.device_count()
    if count == 0:
        raise CodeevalError("--codeeval-devices=auto: no CUDA device is visible; name devices, e.g. cpu,cpu")
    return tuple(f"cuda:{i}" for i in range(count))


def _replica(
    spec: ModelSpec,
    options: ModelOptions,
    precision: str,
    device: str,
    threads: int | None,
    requests: list[GenerationRequest],
    settings: GenerationSettings,
    auto_batch: int,
    out: Any,
) -> None:
    """A replica's process: load once on `device`, generate its share, report each completion, then the batch
    sizes it ran with (the automatic one may have been halved: the next replicas start from it)."""
    try:
        import torch

        from pytest_codeeval.generation.backends.transformers import TransformersBackend

        if threads:  # CPU replicas share the cores instead of each spinning on all of them
            torch.set_num_threads(threads)
        backend = TransformersBackend(spec, options, precision, device=device)
        backend.auto_batch = auto_batch
        out.put(("loaded", device))
        for completion in backend.generate(requests, settings):
            out.put(("done", completion.request.key, completion.text, completion.tokens))
        out.put(("finished", device, backend.batch_size, backend.auto_batch))
    except CodeevalError as exc:
        out.put(("error", str(exc)))
    except Exception as exc:  # noqa: BLE001 - any failure of a replica is reported by the parent in one line
        out.put(("error", f"--codeeval-devices: the replica on {device} failed: {type(exc).__name__}: {exc}"))


class DataParallelBackend:
    """Several TransformersBackend replicas behind the Backend contract."""

    name = "transformers"

    def __init__(self, spec: ModelSpec, options: ModelOptions, precision: str, devices: Sequence[str]) -> None:
        self.spec, self.options, self.precision, self.devices = spec, options, precision, tuple(devices)
        self.loads = 0
        self.per_device: dict[str, int] = {}
        self.batch_sizes: list[int] = []  # what each replica ran with (each backs off on its own)
        self.auto_batch = AUTO_BATCH  # the smallest automatic size a replica came down to

    def identity(self) -> dict[str, Any]:
        return self.spec.identity

    def usage(self) -> dict[str, Any]:
        smallest = {"batch_size": min(self.batch_sizes)} if self.batch_sizes else {}
        return {"replicas": dict(self.per_device), **smallest}

    def generate(
        self, requests: Sequence[GenerationRequest], settings: GenerationSettings, stop: threading.Event | None = None,
    ) -> Iterator[Completion]:
        from pytest_codeeval.generation.models import convert_gguf

        if self.spec.gguf_file:
            convert_gguf(self.spec)  # once here, not once per replica at the same time
        ordered = sorted(requests, key=lambda r: len(r.prompt))
        names = [f"{device}#{i}" for i, device in enumerate(self.devices)]
        shares = {name: ordered[i :: len(names)] for i, name in enumerate(names)}
        replica_of = {r.key: name for name, share in shares.items() for r in share}
        by_key = {r.key: r for r in requests}
        cpus = sum(device == "cpu" for device in self.devices)
        threads = max(1, (os.cpu_count() or 1) // cpus) if cpus else None
        context = multiprocessing.get_context("spawn")  # CUDA cannot be used in a forked child
        out = context.Queue()
        processes = {
            name: context.Process(
                target=_replica,
                daemon=True,
                args=(
                    self.spec,
                    self.options,
                    self.precision,
                    device,
                    threads if device == "cpu" else None,
                    shares[name],
                    settings,
                    self.auto_batch,
                    out,
                ),
            )
            for name, device in zip(names, self.devices, strict=False)
            if shares[name]
        }
        for process in processes.values():
            process.start()
        finished = 0
        try:
            while finished < len(processes) and not (stop is not None and stop.is_set()):  # replicas end below
                try:
                    message = out.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    dead = [name for name, p in processes.items() if p.exitcode not in (None, 0)]
                    if dead:
                        code = processes[dead[0]].exitcode
                        message = f"--codeeval-devices: the replica on {dead[0]} died (exit code {code})"
                        raise CodeevalError(message) from None
                    continue
                kind = message[0]
                if kind == "error":
                    raise CodeevalError(message[1])
                if kind == "loaded":
                    self.loads += 1
                elif kind == "finished":
                    finished += 1
                    self.auto_batch = min(self.auto_batch, message[3])
                    if message[2]:
                        self.batch_sizes.append(message[2])
                else:
                    _, key, text, tokens = message
                    self.per_device[replica_of[key]] = self.per_device.get(replica_of[key], 0) + 1
                    yield Completion(by_key[key], text, tokens)
        finally:
            for process in processes.values():
                if process.is_alive():
                    process.terminate()
                process.join()
