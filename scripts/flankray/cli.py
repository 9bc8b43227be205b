"""The command line: ``python3 scripts/flank_ray.py solve|analyze|selfplay|show …``."""

import argparse
import hashlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_FLANK = os.path.join(REPO, "target", "release", "flank")
#: The built-in example: 40 positions at 20 empties from flank's own self-play, exact scores
#: listed (see the file's header for how it was made).
EXAMPLE = os.path.join(HERE, "example-20.obf")


def common(p: argparse.ArgumentParser) -> None:
    """Options every job takes."""
    p.add_argument("--db", default="flank-ray.sqlite",
                   help="SQLite store: created if missing; results already in it are skipped "
                        "(default: flank-ray.sqlite)")
    p.add_argument("--address", help="Ray cluster to join (as printed by `ray start --head`, e.g. "
                                     "10.0.0.1:6379); default: start a local Ray")
    p.add_argument("--workers", type=int,
                   help="local Ray only: tasks at once, each with --threads CPUs (default: all "
                        "cores / --threads)")
    p.add_argument("--threads", type=int, default=1, help="search threads per task (default 1)")
    p.add_argument("--chunk", type=int,
                   help="positions or games per task: what a killed worker can lose and redo "
                        "(default: positions to do / (8 x workers), 1 to 64; 2 games)")
    p.add_argument("--hash", type=int, help="transposition table per task, MiB (flank's default)")
    p.add_argument("--eval", help="evaluation: trained (default), classic, or a weights file "
                                  "(its path must exist on every node)")
    p.add_argument("--flank", default=DEFAULT_FLANK,
                   help="the flank binary the workers run (default: target/release/flank)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def search_mode(p: argparse.ArgumentParser, exact_flag: str) -> None:
    """--depth / --time / --mpc (and --wld or --exact)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--depth", type=int, help="search to this depth in plies instead")
    g.add_argument("--time", type=int, metavar="MS", help="search each position for MS ms")
    if exact_flag == "wld":
        g.add_argument("--wld", action="store_true", help="win/loss/draw solve")
    else:
        g.add_argument("--exact", action="store_true", help="solve every move exactly")
    p.add_argument("--mpc", help="midgame multi-ProbCut: off or its confidence (flank's default)")


def parser() -> argparse.ArgumentParser:
    """The argument parser."""
    top = argparse.ArgumentParser(
        prog="flank_ray.py",
        description="Run flank's batch jobs over Ray workers into a SQLite store (resumable).")
    sub = top.add_subparsers(dest="command", required=True)
    s = sub.add_parser("solve", help="solve a positions file (exact by default)")
    s.add_argument("file", nargs="?", help="OBF lines or board strings (default: the built-in "
                                           "example, 40 positions at 20 empties)")
    search_mode(s, "wld")
    common(s)
    a = sub.add_parser("analyze", help="best moves of each position with scores and PVs")
    a.add_argument("file", help="OBF lines or board strings")
    a.add_argument("--moves", type=int, default=3, help="moves shown per position (default 3)")
    search_mode(a, "exact")
    common(a)
    g = sub.add_parser("selfplay", help="self-play games FIRST .. FIRST + GAMES")
    g.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    g.add_argument("--first", type=int, default=0, help="first game index (default 0)")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--depth", type=int, default=8)
    g.add_argument("--solve-empties", type=int, default=22)
    g.add_argument("--noise-plies", type=int, default=10)
    g.add_argument("--temperature", default="2")
    g.add_argument("--openings", default="xot",
                   help="xot ($FLANK_DATA/openings on every node), random, or a file on every node")
    g.add_argument("--export", metavar="FILE",
                   help="afterwards, write every stored game of these settings as a flank "
                        "selfplay file (for flank refit/train)")
    common(g)
    w = sub.add_parser("show", help="what a store holds")
    w.add_argument("--db", default="flank-ray.sqlite")
    return top


def eval_key(value: Optional[str]) -> str:
    """The evaluation as part of a result's options: a name, or a file's SHA-256 prefix."""
    if value is None or value in ("trained", "classic"):
        return value or "trained"
    with open(value, "rb") as f:
        return "file:" + hashlib.sha256(f.read()).hexdigest()[:16]


def position_job(args) -> Tuple[str, List[str]]:
    """(options key, flank arguments) of a solve or analyze job."""
    flank = [args.command, "--threads", str(args.threads)]
    if args.depth is not None:
        mode = f"depth={args.depth}"
        flank += ["--depth", str(args.depth)]
    elif args.time is not None:
        mode = f"time={args.time}"
        flank += ["--time", str(args.time)]
    elif getattr(args, "wld", False):
        mode = "wld"
        flank.append("--wld")
    elif getattr(args, "exact", False):
        mode = "exact"
        flank.append("--exact")
    else:
        mode = "exact" if args.command == "solve" else "default"
    if args.command == "analyze":
        mode = f"moves={args.moves} {mode}"
        flank += ["--moves", str(args.moves)]
    mode += f" eval={eval_key(args.eval)}"
    if args.eval:
        flank += ["--eval", os.path.abspath(args.eval)
                  if args.eval not in ("trained", "classic") else args.eval]
    if args.depth is not None or args.time is not None or args.command == "analyze":
        mode += f" mpc={args.mpc or 'default'}"
    if args.mpc:
        flank += ["--mpc", args.mpc]
    if args.hash is not None:
        flank += ["--hash", str(args.hash)]
    return mode, flank


def selfplay_job(args) -> Tuple[str, List[str]]:
    """(options key, flank arguments) of a selfplay job."""
    openings = args.openings
    if openings not in ("xot", "random"):
        openings = os.path.abspath(openings)
    options = (f"seed={args.seed} depth={args.depth} solve-empties={args.solve_empties} "
               f"noise-plies={args.noise_plies} temperature={args.temperature} "
               f"openings={openings} eval={eval_key(args.eval)}")
    flank = ["--seed", str(args.seed), "--depth", str(args.depth), "--solve-empties",
             str(args.solve_empties), "--noise-plies", str(args.noise_plies), "--temperature",
             args.temperature, "--openings", openings, "--threads", str(args.threads)]
    if args.eval:
        flank += ["--eval", args.eval]
    if args.hash is not None:
        flank += ["--hash", str(args.hash)]
    return options, flank


def show(path: str) -> int:
    """Prints what the store holds, per job kind and options (the store is only read)."""
    from .store import StoreError, open_read_only

    try:
        db = open_read_only(path)
    except StoreError as e:
        print(f"flank_ray.py: {e}", file=sys.stderr)
        return 2
    for kind, options, n, nodes, wrong in db.execute(
            "SELECT kind, options, COUNT(*), SUM(nodes), SUM(ok = 0) FROM positions "
            "GROUP BY kind, options ORDER BY kind, options"):
        print(f"{kind} [{options}]: {n} positions, {nodes or 0:,} nodes, {wrong or 0} wrong")
    for options, n in db.execute(
            "SELECT options, COUNT(*) FROM games GROUP BY options ORDER BY options"):
        print(f"selfplay [{options}]: {n} games")
    for (n,) in db.execute("SELECT COUNT(*) FROM bad_lines"):
        print(f"bad lines recorded: {n}")
    for (n,) in db.execute("SELECT COUNT(*) FROM failures"):
        print(f"failed tasks recorded: {n}")
    for run, kind, state, done, skipped in db.execute(
            "SELECT id, kind, state, done, skipped FROM runs ORDER BY id DESC LIMIT 1"):
        print(f"last run: #{run} {kind}, {done or 0} done, {skipped or 0} already stored, "
              f"{state or 'killed (no summary)'}")
    return 0


#: A finished game (a full board): flank answers it at once, so it checks a job's options.
GAME_OVER = "X" * 64 + " X\n"


def preflight(flank: str, args: List[str], command: str) -> Optional[str]:
    """Runs the job's flank command once locally on a trivial input; returns flank's reason
    when it refuses the options (a bad --depth, --eval file, openings, data), else None."""
    with tempfile.TemporaryDirectory(prefix="flankray-") as tmp:
        if command == "selfplay":
            cmd = [flank, "selfplay", *args, "--games", "1", "--out", os.path.join(tmp, "g")]
            stdin, timeout = "", 3.0  # still playing after 3 s: the options were accepted
        else:
            cmd, stdin, timeout = [flank, *args, "--json", "-"], GAME_OVER, 60.0
        try:
            p = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    if p.returncode in (0, 1):
        return None
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    reason = lines[0] if lines else f"exit {p.returncode}"
    return reason.removeprefix("flank: ")


def reachable(address: str) -> Optional[str]:
    """None when something listens at ``HOST:PORT`` (a Ray head), else why not."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return f"--address {address}: expected HOST:PORT, e.g. 10.0.0.1:6379"
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        return f"no Ray head at {address}: {e.strerror or e}"
    return None


def fail(message: str) -> int:
    """Prints a one-line error; returns exit code 2."""
    print(f"flank_ray.py: {message}", file=sys.stderr)
    return 2


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit code (0 all done; 1 wrong scores or failed tasks,
    see the summary; 2 bad input lines or bad arguments, including any flank refuses; 130
    interrupted)."""
    try:
        return run(argv)
    except KeyboardInterrupt:
        print("flank_ray.py: interrupted", file=sys.stderr)
        return 130


def run(argv: Optional[List[str]]) -> int:
    """:func:`main` without the handling of an interrupt during start-up."""
    args = parser().parse_args(argv)
    if args.command == "show":
        return show(args.db)
    if args.threads < 1 or (args.chunk is not None and args.chunk < 1) or (
            args.workers is not None and args.workers < 1):
        return fail("--threads, --chunk and --workers must be at least 1")
    if args.command == "selfplay" and (args.games < 1 or args.first < 0):
        return fail("--games must be at least 1 and --first at least 0")
    if not (os.path.isfile(args.flank) and os.access(args.flank, os.X_OK)):
        return fail(f"no flank binary at {args.flank} (build it: cargo build --release)")
    path = None
    if args.command in ("solve", "analyze"):
        path = args.file or EXAMPLE
        if path == "-":
            return fail("give a file, not stdin: a batch is read twice and can be resumed")
        if not os.path.exists(path):
            return fail(f"no such file: {path}")
        if not os.path.isfile(path):
            return fail(f"{path} is not a file")
    export = getattr(args, "export", None)
    if export and (os.path.isdir(export) or not os.path.isdir(os.path.dirname(
            os.path.abspath(export)))):
        return fail(f"cannot write the export to {export}")
    if args.address and (why := reachable(args.address)):
        return fail(why)
    try:
        options, flank_args = (selfplay_job(args) if args.command == "selfplay"
                               else position_job(args))
    except OSError as e:
        return fail(f"{e.filename}: {e.strerror}")

    from .driver import Binary, Runner, connect
    from .store import Store, StoreError

    try:
        binary = Binary.inspect(args.flank)
    except (OSError, ValueError) as e:
        return fail(str(e))
    if why := preflight(args.flank, flank_args, args.command):
        return fail(f"flank refuses the options: {why}")
    try:
        store = Store(args.db)
    except StoreError as e:
        return fail(str(e))

    import ray

    workers = connect(args.address, args.workers, args.threads)
    signal.signal(signal.SIGTERM, interrupt)  # after Ray's own handlers: a summary, exit 130
    binary.upload()
    command = shlex.join(["flank_ray.py", *(argv if argv is not None else sys.argv[1:])])
    runner = Runner(store, binary, workers, args.threads, args.chunk, not args.no_progress,
                    command)
    start = time.time()
    interrupted = False
    try:
        if args.command == "selfplay":
            t = runner.run_selfplay(options, flank_args, args.first, args.games)
        else:
            t = runner.run_positions(args.command, options, path, flank_args)
    except KeyboardInterrupt:
        t, interrupted = runner.tally, True
    wall = time.time() - start
    what = "games" if args.command == "selfplay" else "positions"
    print(f"{args.command} [{options}]: {t.done} {what} done, {t.skipped} already in "
          f"{args.db}, {t.bad} bad lines, {t.failed} failed tasks"
          + (f", {t.wrong} scores differ from the listed ones" if t.wrong else "")
          + (" (interrupted)" if interrupted else ""))
    if args.command == "selfplay":
        print(f"{t.positions:,} positions in {wall:.1f} s wall, "
              f"{t.done / max(wall, 1e-9):.2f} games/s across {workers} "
              f"worker{'s' * (workers != 1)} ({binary.label})")
        if export:
            games = store.games(options)
            with open(export, "w", encoding="utf-8") as f:
                if games:
                    f.write(games[0][1] + "\n")
                for _, _, record in games:
                    f.write(record + "\n")
            print(f"exported {len(games)} games to {export}")
    else:
        print(f"{t.nodes:,} nodes in {wall:.1f} s wall, {t.nodes / max(wall, 1e-9) / 1e6:.2f} "
              f"M nodes/s across {workers} worker{'s' * (workers != 1)} ({binary.label})")
    store.close()
    ray.shutdown()
    if interrupted:
        return 130
    if t.wrong or t.failed:
        return 1
    return 2 if t.bad else 0


def interrupt(signum, frame) -> None:
    """SIGTERM: stop as Ctrl-C does (what finished is stored; a summary; exit 130)."""
    raise KeyboardInterrupt
