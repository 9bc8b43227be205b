"""Scheduling a job over Ray: chunks of positions or games go to workers (at most two chunks
per worker in flight, so an input of any size streams), results are stored as they arrive, a
progress bar shows rate and ETA, and a summary closes the run."""

import contextlib
import hashlib
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import ray
from tqdm import tqdm

from .lines import position_key, position_lines
from .store import Store
from .worker import positions_task, selfplay_task


@dataclass
class Binary:
    """The flank binary the workers run: its bytes in the object store, SHA-256 and version."""

    path: str
    sha256: str
    version: str
    ref: List = field(default_factory=list)

    @staticmethod
    def inspect(path: str) -> "Binary":
        """Hashes the binary and asks its version (``flank --version``); ValueError when it is
        not a flank binary. :meth:`upload` then puts it in Ray's object store."""
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        proc = subprocess.run([path, "--version"], capture_output=True, text=True)
        version = (proc.stdout.strip().splitlines() or [""])[0]
        if proc.returncode != 0 or not version.startswith("flank "):
            raise ValueError(f"{path} is not a flank binary (`--version` says "
                             f"{version[:60]!r})")
        return Binary(path, sha, version)

    def upload(self) -> None:
        """Puts the binary's bytes in Ray's object store (after :func:`connect`)."""
        with open(self.path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ValueError(f"{self.path} changed while the run started")
        self.ref = [ray.put(data)]  # in a list: tasks fetch it only when their node lacks it

    @property
    def label(self) -> str:
        """Version and short hash, as stored with every row: ``flank 0.1.0 sha256:1234abcd…``."""
        return f"{self.version} sha256:{self.sha256[:16]}"


def connect(address: Optional[str], workers: Optional[int], threads: int) -> int:
    """Starts a local Ray (``workers`` × ``threads`` CPUs; default all cores, so cores /
    ``threads`` tasks at once) or joins the cluster at ``address``; returns the number of tasks
    that run at once."""
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address:
        ray.init(address=address, **quiet)
        cpus = int(ray.cluster_resources().get("CPU", 1))
    else:  # always a new local Ray, never one some other driver left running
        cpus = workers * threads if workers else (os.cpu_count() or 1)
        ray.init(address="local", num_cpus=max(cpus, threads), include_dashboard=False, **quiet)
    return max(1, cpus // threads)


def worker_env() -> Dict[str, str]:
    """Environment the flank processes get: FLANK_DATA (absolute) when the driver has it."""
    data = os.environ.get("FLANK_DATA")
    return {"FLANK_DATA": os.path.abspath(data)} if data else {}


def auto_chunk(todo: int, workers: int) -> int:
    """Positions per task when ``--chunk`` is not given: about eight tasks per worker (the last
    tasks of a batch spread well), between 1 and 64 positions (a ``flank`` process's start, about
    half a second to load the trained weights, is then small against its work)."""
    return max(1, min(64, todo // (8 * workers)))


@dataclass
class Tally:
    """What a run did: the summary and the exit code come from it."""

    done: int = 0
    skipped: int = 0
    bad: int = 0
    failed: int = 0
    wrong: int = 0
    nodes: int = 0
    positions: int = 0


class Runner:
    """One run of one job kind against one store."""

    def __init__(self, store: Store, binary: Binary, workers: int, threads: int,
                 chunk: Optional[int], progress: bool, command: str):
        self.store, self.binary, self.workers = store, binary, workers
        self.threads, self.chunk, self.progress, self.command = threads, chunk, progress, command
        self.tally = Tally()
        self.state = "finished"
        self.pending: Dict = {}
        self.bar: Optional[tqdm] = None
        self.run = 0

    def report(self, text: str) -> None:
        """A message above the progress bar (stderr)."""
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def _wait(self, handle, block_until: int) -> None:
        """Handles finished tasks until at most ``block_until`` are in flight."""
        while len(self.pending) > block_until:
            ready, _ = ray.wait(list(self.pending), num_returns=1)
            for ref in ready:
                what = self.pending.pop(ref)
                try:
                    handle(what, ray.get(ref))
                except Exception as e:  # a task failed after its retries: record, go on
                    self.tally.failed += 1
                    reason = str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)
                    self.store.add_failure(self.run, what[0], reason)
                    self.report(f"flankray: task {what[0]} failed: {reason}")

    # ---- solve / analyze ----

    def run_positions(self, kind: str, options: str, path: str, args: List[str]) -> Tally:
        """Runs ``flank KIND ARGS`` over every position line of ``path`` not yet in the store."""
        self.run = self.store.start_run(kind, options, path, self.binary.label, self.command,
                                        self.workers)
        todo = 0
        for line in position_lines(path):
            if line.error is None and not self.store.has_position(kind, options,
                                                                  position_key(line.text)):
                todo += 1
        if self.chunk is None:  # each flank process loads its weights (~0.5 s): amortise that
            self.chunk = auto_chunk(todo, self.workers)
        self.bar = tqdm(total=todo, unit="pos", disable=not self.progress, file=sys.stderr,
                        dynamic_ncols=True)
        start = time.time()

        def handle(what, res):
            texts = dict(what[1])
            for line, error in res["bad"]:
                self._bad(path, line, error)
            rows = [(line, texts[line], obj) for line, obj in res["results"]]
            self.tally.done += self.store.add_positions(kind, options, path, rows,
                                                        self.binary.label, self.run,
                                                        res["worker"])
            for line, obj in res["results"]:
                self.tally.nodes += int(obj.get("nodes") or 0)
                if obj.get("ok") is False:
                    self.tally.wrong += 1
                    self.report(f"flankray: {path}:{line}: score {obj.get('score')} "
                                f"(best {obj.get('best')}), listed {obj.get('expected')}")
            self.bar.update(len(res["results"]) + len(res["bad"]))
            elapsed = max(time.time() - start, 1e-9)
            self.bar.set_postfix_str(f"{self.tally.nodes / elapsed / 1e6:.1f} Mn/s")

        chunk: List[Tuple[int, str]] = []
        with self._running():
            for line in position_lines(path):
                if line.error is not None:
                    self._bad(path, line.number, line.error)
                    continue
                if self.store.has_position(kind, options, position_key(line.text)):
                    self.tally.skipped += 1
                    continue
                chunk.append((line.number, line.text))
                if len(chunk) == self.chunk:
                    self._submit_positions(args, chunk, handle)
                    chunk = []
            if chunk:
                self._submit_positions(args, chunk, handle)
            self._wait(handle, 0)
        return self.tally

    def _submit_positions(self, args: List[str], chunk: List[Tuple[int, str]], handle) -> None:
        self._wait(handle, 2 * self.workers - 1)
        ref = positions_task.options(num_cpus=self.threads).remote(
            self.binary.ref, self.binary.sha256, args, chunk, worker_env())
        lines = f"lines {chunk[0][0]}-{chunk[-1][0]}" if len(chunk) > 1 else f"line {chunk[0][0]}"
        self.pending[ref] = (lines, chunk)

    def _bad(self, path: str, line: int, error: str) -> None:
        self.tally.bad += 1
        self.store.add_bad_line(self.run, path, line, error)
        self.report(f"flankray: {path}:{line}: {error}")

    # ---- selfplay ----

    def run_selfplay(self, options: str, args: List[str], first: int, games: int) -> Tally:
        """Plays games ``first .. first + games`` not yet in the store."""
        self.run = self.store.start_run("selfplay", options, None, self.binary.label,
                                        self.command, self.workers)
        done = self.store.done_games(options, first, games)
        self.tally.skipped = len(done)
        todo = [g for g in range(first, first + games) if g not in done]
        if self.chunk is None:
            self.chunk = 2
        self.bar = tqdm(total=len(todo), unit="game", disable=not self.progress,
                        file=sys.stderr, dynamic_ncols=True)

        def handle(what, res):
            self.tally.done += self.store.add_games(options, res["header"], res["games"],
                                                    self.binary.label, self.run, res["worker"])
            for _, record in res["games"]:
                fields = record.split("\t")
                self.tally.positions += len(fields[4].split(",")) if len(fields) > 4 else 0
            self.bar.update(len(res["games"]))

        with self._running():
            i = 0
            while i < len(todo):
                j = i + 1  # a task: consecutive indices, at most `chunk`
                while j < len(todo) and j - i < self.chunk and todo[j] == todo[j - 1] + 1:
                    j += 1
                self._wait(handle, 2 * self.workers - 1)
                ref = selfplay_task.options(num_cpus=self.threads).remote(
                    self.binary.ref, self.binary.sha256, args, todo[i], j - i, worker_env())
                self.pending[ref] = (f"games {todo[i]}-{todo[j - 1]}", None)
                i = j
            self._wait(handle, 0)
        return self.tally

    @contextlib.contextmanager
    def _running(self):
        """The scheduling of a run: records how it ended (``finished``, ``interrupted`` by
        Ctrl-C or SIGTERM, ``failed``) and always closes it (:meth:`_close`)."""
        try:
            yield
        except KeyboardInterrupt:
            self.state = "interrupted"
            raise
        except Exception:
            self.state = "failed"
            raise
        finally:
            self._close()

    def _close(self) -> None:
        for ref in list(self.pending):
            ray.cancel(ref, force=True)
        self.pending.clear()
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        t = self.tally
        self.store.finish_run(self.run, self.state, t.done, t.skipped, t.bad, t.failed, t.nodes)
