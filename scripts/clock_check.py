#!/usr/bin/env python3
"""clock_check.py: does flank keep inside its whole-game clock?

Plays N games of flank against flank through `flank match` (GTP, one whole-game clock per
side, `time_left` in decimal seconds before every `genmove`, XOT openings by default), then
prints the figures of the clock check: games, time losses, the largest fraction of a side's
clock used in any game, and the games in which a side used more than 95 % of its clock
(docs/match.md, "Clock check"; results in docs/benchmarks.md, "Clock checks").

    scripts/clock_check.py --games 200 --time 10 [--concurrency 2] [--engine-args='--threads 1']

Both engines are `FLANK gtp ENGINE_ARGS` (FLANK defaults to target/release/flank; build it
first with `cargo build --release`). ENGINE_ARGS is one string, split like a shell would
(write `--engine-args='--threads 1'`: the `=` keeps argparse from reading a value that starts
with `--` as an option). With `--concurrency` above 1, give the engines `--threads 1` (the
default of `flank gtp`) so that games do not steal each other's cores. The openings file
`xot` is found by `flank match` in $FLANK_DATA (see docs/match.md).

Exit status: 0 when every game finished with no loss on time and no side above 95 % of its
clock; 1 when there was a loss on time, a game above 95 %, or any other forfeit (crash,
illegal move, protocol error: such a game says nothing about the clock); 2 on bad usage or
when `flank match` itself failed (its reason is on stderr).

Python 3 standard library only.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 0.95


def positive_int(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: '{text}'")
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: '{text}'")
    return n


def seconds(text):
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: '{text}'")
    if not (s >= 0.1 and s <= 10_000_000):
        raise argparse.ArgumentTypeError(f"must be between 0.1 and 10000000 seconds: '{text}'")
    return s


def pct(fraction):
    """A fraction (0-1) as a percentage with two decimals, rounded down as flank prints it."""
    bp = int(fraction * 10_000 + 1e-6)
    return f"{bp // 100}.{bp % 100:02d} %"


def main():
    ap = argparse.ArgumentParser(
        description="Play flank against flank through `flank match` and check the clock use "
        "(no loss on time, no game above 95 %% of a side's clock).",
    )
    ap.add_argument("--games", type=positive_int, default=200, help="games to play (default 200)")
    ap.add_argument("--time", type=seconds, default=10.0,
                    help="each side's clock for the whole game, seconds (default 10)")
    ap.add_argument("--concurrency", type=positive_int, default=1,
                    help="games played at once (default 1)")
    ap.add_argument("--engine-args", default="",
                    help="extra arguments of `flank gtp` for both engines, one string "
                    "(e.g. --engine-args='--threads 1')")
    ap.add_argument("--openings", default="xot",
                    help="openings for flank match: xot, xot-large or a file (default xot)")
    ap.add_argument("--flank", default=os.path.join(REPO, "target", "release", "flank"),
                    help="the flank binary (default target/release/flank)")
    ap.add_argument("--json-out", metavar="FILE",
                    help="also write flank match's JSON summary (every game) to FILE")
    args = ap.parse_args()

    if not (os.path.isfile(args.flank) and os.access(args.flank, os.X_OK)):
        print(f"clock_check: no flank binary at {args.flank} (build it with "
              "`cargo build --release`, or give --flank)", file=sys.stderr)
        return 2
    try:
        extra = shlex.split(args.engine_args)
    except ValueError as e:
        print(f"clock_check: bad --engine-args '{args.engine_args}': {e}", file=sys.stderr)
        return 2
    engine = " ".join([shlex.quote(args.flank), "gtp"] + [shlex.quote(a) for a in extra])
    time_text = f"{args.time:g}"
    cmd = [
        args.flank, "match",
        "--engine-a", engine,
        "--engine-b", engine,
        "--openings", args.openings,
        "--games", str(args.games),
        "--time", time_text,
        "--concurrency", str(args.concurrency),
        "--decimal-time",
        "--json",
    ]
    print(f"clock_check: {args.games} games of `{engine}` against itself, {time_text} s per "
          f"side per game, openings {args.openings}, concurrency {args.concurrency}",
          flush=True)
    try:
        # stderr passes through: flank's notes, its progress bar on a terminal, its errors.
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    except OSError as e:
        print(f"clock_check: cannot run {args.flank}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("clock_check: interrupted", file=sys.stderr)
        return 130
    if run.returncode != 0:
        print(f"clock_check: flank match failed (exit status {run.returncode})",
              file=sys.stderr)
        return 2
    try:
        v = json.loads(run.stdout)
        names = v["names"]
        games = v["game_list"]
        time_losses = v["time_losses"]
        forfeits = v["forfeits"]
        used_max = v["clock_used_max"]
        used_mean = v["clock_used_mean"]
        over = v["games_over_95"]
    except (ValueError, KeyError, TypeError) as e:
        print(f"clock_check: unexpected output from flank match ({e}); is {args.flank} "
              "built from a version that reports clock_used?", file=sys.stderr)
        return 2
    if args.json_out:
        try:
            with open(args.json_out, "w") as f:
                f.write(run.stdout.decode())
        except OSError as e:
            print(f"clock_check: cannot write {args.json_out}: {e}", file=sys.stderr)
            return 2

    # The largest fraction and the games over the limit, from the per-game figures (they
    # must agree with the summary's own counts).
    worst = (-1.0, None, None)
    over_games = 0
    for g in games:
        fr = g["clock_used"]
        if fr[0] > LIMIT or fr[1] > LIMIT:
            over_games += 1
        for k in (0, 1):
            if fr[k] > worst[0]:
                worst = (fr[k], g, k)
    over_count = [sum(1 for g in games if g["clock_used"][k] > LIMIT) for k in (0, 1)]
    if over_count != over:
        print(f"clock_check: warning: games over 95 % per engine {over_count} from the games, "
              f"{over} in the summary", file=sys.stderr)
    other_forfeits = sum(forfeits) - sum(time_losses)

    print(f"games: {v['games']}")
    print(f"time losses: {sum(time_losses)} ({names[0]} {time_losses[0]}, "
          f"{names[1]} {time_losses[1]})")
    print(f"other forfeits: {other_forfeits}")
    if worst[1] is not None:
        frac, g, k = worst
        print(f"largest fraction of a side's clock used: {pct(frac)} (game {g['number']}, "
              f"{names[k]}, {g['used_ms'][k]} ms of {time_text} s)")
    print(f"largest per engine: {names[0]} {pct(used_max[0])}, {names[1]} {pct(used_max[1])}")
    print(f"mean fraction used: {names[0]} {pct(used_mean[0])}, {names[1]} {pct(used_mean[1])}")
    print(f"games above 95 %: {over_games} ({names[0]} {over[0]}, {names[1]} {over[1]})")
    ok = sum(time_losses) == 0 and over_games == 0 and sum(over) == 0 and other_forfeits == 0
    print("result: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
