#!/usr/bin/env python3
"""eval_match.py: a match between two flank evaluations at equal fixed depth, over GTP.

Engine A is `flank gtp --eval A --depth D`, engine B `flank gtp --eval B --depth D` (default:
A = trained, the embedded weights; B = classic, the hand-written evaluation; depth 6) and the
same per-move time (--move-time, default 400 ms): the depth bounds every midgame search (a
quarter of the move time is far more than depth 6 needs), and, as in any `flank gtp` game, the
endgame is solved exactly at <= 14 empties and tried within the move time from 24 empties on,
for both sides alike. Each
of the first N openings of the XOT file ($FLANK_DATA/openings/xot_small.txt by default) is
played twice with colours swapped. Games run in --jobs parallel workers, each with its own
pair of engine processes. Every move is checked with selfplay.py's rules and both engines must
agree on the final score.

Output: one line per game, then a summary: A's score (win 1, draw 1/2) as a percentage with a
95 % interval (normal approximation over opening pairs), and A's mean disc difference. The exit
status is 1 on any protocol error, 2 on bad usage.

Python 3 standard library only (plus selfplay.py beside this file).
"""

import argparse
import math
import os
import shlex
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import selfplay  # noqa: E402

REPO = selfplay.REPO


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flank", default=os.path.join(REPO, "target", "release", "flank"))
    ap.add_argument("--a", default="trained", help="--eval of engine A (default trained)")
    ap.add_argument("--b", default="classic", help="--eval of engine B (default classic)")
    ap.add_argument("--depth", type=int, default=6, help="search depth in plies (default 6)")
    ap.add_argument("-n", "--openings", type=int, default=100, help="openings, each played twice (default 100)")
    ap.add_argument("--file", default=None, help="openings file (default $FLANK_DATA/openings/xot_small.txt)")
    ap.add_argument("--move-time", type=int, default=400, help="ms per move (default 400)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for any answer")
    a = ap.parse_args()

    try:
        path, openings = selfplay.load_openings(a.file)
    except ValueError as e:
        print("eval_match: %s (set FLANK_DATA or --file)" % e, file=sys.stderr)
        return 2
    openings = openings[: a.openings]
    if not openings or a.jobs < 1 or a.depth < 1:
        print("eval_match: nothing to play (check --openings, --jobs, --depth)", file=sys.stderr)
        return 2

    def argv(spec):
        return [a.flank, "gtp", "--eval", spec, "--depth", str(a.depth), "--move-time", str(a.move_time)]

    schedule = [(k, o, swap) for k, o in enumerate(openings) for swap in (0, 1)]
    results = {}  # (k, swap) -> A's disc difference
    errors = []
    lock = threading.Lock()
    next_game = [0]

    def worker():
        try:
            pair = [selfplay.Engine("A", argv(a.a), a.timeout), selfplay.Engine("B", argv(a.b), a.timeout)]
        except selfplay.ProtocolError as e:
            with lock:
                errors.append(str(e))
            return
        try:
            while True:
                with lock:
                    if next_game[0] >= len(schedule) or errors:
                        return
                    k, o, swap = schedule[next_game[0]]
                    next_game[0] += 1
                black, white = (pair[0], pair[1]) if swap == 0 else (pair[1], pair[0])
                name = "".join(selfplay.sq_name(s) for s in o)
                try:
                    text, plies = selfplay.play_game({selfplay.BLACK: black, selfplay.WHITE: white}, o)
                except selfplay.ProtocolError as e:
                    with lock:
                        errors.append("opening %s: %s" % (name, e))
                    return
                s = 0 if text == "0" else int(text[2:]) * (1 if text[0] == "B" else -1)
                diff = s if swap == 0 else -s
                with lock:
                    results[(k, swap)] = diff
                    print("game %d/%d: opening %s black=%s result %s (A %+d)"
                          % (len(results), len(schedule), name, black.name, text, diff))
                    sys.stdout.flush()
        finally:
            for e in pair:
                e.close()

    threads = [threading.Thread(target=worker) for _ in range(a.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in errors:
        print("eval_match: %s" % e, file=sys.stderr)

    def points(d):
        return 1.0 if d > 0 else (0.5 if d == 0 else 0.0)

    games = len(results)
    if games == 0:
        print("summary: no games finished")
        return 1
    wins = sum(1 for d in results.values() if d > 0)
    draws = sum(1 for d in results.values() if d == 0)
    score = sum(points(d) for d in results.values())
    # Interval over opening pairs (the two games of a pair are not independent).
    pairs = [points(results[(k, 0)]) + points(results[(k, 1)]) for k in range(len(openings))
             if (k, 0) in results and (k, 1) in results]
    half = 0.0
    if len(pairs) > 1:
        m = sum(pairs) / len(pairs)
        var = sum((p - m) ** 2 for p in pairs) / (len(pairs) - 1)
        half = 1.96 * math.sqrt(var / len(pairs)) / 2 * 100
    mean_diff = sum(results.values()) / games
    print("summary: %d games at depth %d, A=%s vs B=%s: A won %d, drew %d, lost %d; A scored %.1f %% (+/- %.1f), "
          "mean disc difference %+.2f; %d errors"
          % (games, a.depth, a.a, a.b, wins, draws, games - wins - draws, 100 * score / games, half,
             mean_diff, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
