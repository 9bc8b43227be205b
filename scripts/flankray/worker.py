"""The Ray tasks: each runs the ``flank`` binary on one chunk of positions or games and returns its
results; the driver alone writes the store.

The binary travels through Ray's object store (one copy per node, cached on disk by its SHA-256;
copies no worker has started using for a day are deleted), so a cluster's machines need neither
the repository nor a shared file system. A ``flank``
process dies with the worker that started it (``PR_SET_PDEATHSIG`` on Linux), so a killed worker
leaves no orphan solving on.
"""

import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Dict, List, Tuple

import ray

#: ``flank solve``/``analyze`` report a bad input line as ``flank: line N: reason`` and exit 2.
BAD_LINE = re.compile(r"^flank: line (\d+): (.*)$", re.MULTILINE)


class FlankCrashed(RuntimeError):
    """The ``flank`` process died from a signal (killed, out of memory): the task is retried."""


class FlankFailed(RuntimeError):
    """``flank`` refused the job itself (bad options, missing data): retrying would not help."""


def worker_name() -> str:
    """``host:pid`` of this worker process (stored with each result)."""
    return f"{socket.gethostname()}:{os.getpid()}"


try:  # loaded before any fork: the child only calls into it
    _LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:  # not Linux with glibc: no death signal
    _LIBC = None


def _die_with_parent() -> None:
    """In the child before exec: receive SIGKILL when the worker process dies (Linux only)."""
    if _LIBC is not None:
        _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


#: Cached binaries this worker process has checked (path -> SHA-256).
_CHECKED: Dict[str, str] = {}


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def local_binary(binary: List, sha256: str) -> str:
    """The path of the flank binary on this node: ``binary[0]`` is the ObjectRef of its bytes,
    fetched and written once per node under the temp directory, named by its SHA-256. A cached
    copy is checked against the SHA-256 once per worker process and fetched again if it
    differs (a damaged or truncated file)."""
    root = os.path.join(tempfile.gettempdir(), "flankray-bin")
    cache = os.path.join(root, sha256)
    path = os.path.join(cache, "flank")
    # A checked copy is still there unless another run's pruning took it (then fetched again).
    if _CHECKED.get(path) == sha256 and os.path.isfile(path):
        return path
    if not (os.path.isfile(path) and _sha256_file(path) == sha256):
        data = ray.get(binary[0])
        if hashlib.sha256(data).hexdigest() != sha256:
            raise FlankFailed("the flank binary arrived corrupted (SHA-256 differs)")
        os.makedirs(cache, exist_ok=True)
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    # The copy's time says when a worker last started using it (what pruning goes by).
    os.utime(path)
    _CHECKED[path] = sha256
    prune_binaries(root, keep=sha256)
    return path


#: Cached binaries unused for this long (no worker process started using them) are deleted.
PRUNE_AFTER_S = 24 * 3600


def prune_binaries(root: str, keep: str, now: float = None) -> List[str]:
    """Deletes the cached binaries under ``root`` (one directory per SHA-256) that no worker
    process has started using for :data:`PRUNE_AFTER_S`, except ``keep``; returns the deleted
    directories. Each build of flank adds about 50 MB, so without this the cache only grows. A
    run still using a deleted copy fetches it again (see :func:`local_binary`)."""
    now = time.time() if now is None else now
    gone = []
    try:
        entries = os.listdir(root)
    except OSError:
        return gone
    for name in entries:
        if name == keep:
            continue
        d = os.path.join(root, name)
        try:
            used = os.path.getmtime(os.path.join(d, "flank"))
        except OSError:
            used = os.path.getmtime(d) if os.path.isdir(d) else now
        if now - used > PRUNE_AFTER_S:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    return gone


def run_flank(path: str, args: List[str], stdin: str, env: Dict[str, str]) -> Tuple[int, str, str]:
    """Runs ``flank ARGS`` with ``stdin``; returns (exit code, stdout, stderr). A death by signal
    raises :class:`FlankCrashed`."""
    proc = subprocess.run(
        [path, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        preexec_fn=_die_with_parent,
    )
    if proc.returncode < 0:
        raise FlankCrashed(f"flank {args[0]} killed by signal {-proc.returncode}")
    return proc.returncode, proc.stdout, proc.stderr


@ray.remote(max_retries=3, retry_exceptions=[FlankCrashed])
def positions_task(binary: List, sha256: str, args: List[str], chunk: List[Tuple[int, str]],
                   env: Dict[str, str]) -> Dict:
    """Runs ``flank solve|analyze ARGS --json -`` on a chunk of (line number, position text).

    Returns ``{"results": [(line, json)], "bad": [(line, error)], "worker": host:pid}``: one JSON
    object (flank's own ``--json`` line) per good position in input order, and the lines flank
    refused with its reason. A refused line is dropped and the rest run again, so one bad line
    costs nothing else.
    """
    path = local_binary(binary, sha256)
    todo = list(chunk)
    bad: List[Tuple[int, str]] = []
    while todo:
        code, out, err = run_flank(path, [*args, "--json", "-"],
                                   "".join(text + "\n" for _, text in todo), env)
        m = BAD_LINE.search(err)
        if code == 2 and m and 1 <= int(m.group(1)) <= len(todo):
            line, _ = todo.pop(int(m.group(1)) - 1)
            bad.append((line, m.group(2).strip()))
            continue
        if code not in (0, 1):  # 1: some score differs from the listed one (reported per result)
            raise FlankFailed(f"flank {args[0]} exited {code}: {err.strip()[:500]}")
        objects = [json.loads(s) for s in out.splitlines() if s.startswith("{")]
        if len(objects) != len(todo):
            raise FlankFailed(f"flank {args[0]} answered {len(objects)} of {len(todo)} positions")
        return {"results": [(line, obj) for (line, _), obj in zip(todo, objects)], "bad": bad,
                "worker": worker_name()}
    return {"results": [], "bad": bad, "worker": worker_name()}


@ray.remote(max_retries=3, retry_exceptions=[FlankCrashed])
def selfplay_task(binary: List, sha256: str, args: List[str], first: int, games: int,
                  env: Dict[str, str]) -> Dict:
    """Runs ``flank selfplay ARGS --first FIRST --games GAMES`` into a private file.

    Returns ``{"header": flank's settings line, "games": [(index, line)], "worker": host:pid}``,
    one line per game as flank writes it (index first).
    """
    path = local_binary(binary, sha256)
    with tempfile.TemporaryDirectory(prefix="flankray-") as tmp:
        out = os.path.join(tmp, "games.txt")
        code, _, err = run_flank(
            path, ["selfplay", *args, "--first", str(first), "--games", str(games), "--out", out],
            "", env)
        if code != 0:
            raise FlankFailed(f"flank selfplay exited {code}: {err.strip()[:500]}")
        with open(out, encoding="utf-8") as f:
            rows = f.read().splitlines()
    header = rows[0] if rows and rows[0].startswith("#") else ""
    games_out = [(int(r.split("\t", 1)[0]), r) for r in rows if r and not r.startswith("#")]
    if sorted(i for i, _ in games_out) != list(range(first, first + games)):
        raise FlankFailed(f"flank selfplay wrote games {[i for i, _ in games_out]}, "
                          f"not {first}..{first + games}")
    return {"header": header, "games": games_out, "worker": worker_name()}
