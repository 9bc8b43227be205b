#!/usr/bin/env python3
"""Times flank's moves from its opening book: one `flank gtp` process per game plays both
colours (`genmove b`, `genmove w`, ...) from the start position for PLIES plies, and the time
from sending each `genmove` to reading its answer is measured. Prints every game's slowest
move and the slowest of all, in ms.

Usage: scripts/book_move_times.py [FLANK_BINARY] [--games N] [--plies P] [--randomness R]
"""
import argparse
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default="target/release/flank")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--plies", type=int, default=10)
    ap.add_argument("--randomness", default="2")
    a = ap.parse_args()
    worst = 0.0
    for g in range(a.games):
        p = subprocess.Popen([a.binary, "gtp", "--threads", "1", "--book-randomness",
                              a.randomness, "--seed", str(g + 1)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

        def ask(cmd):
            p.stdin.write(cmd + "\n")
            p.stdin.flush()
            first = p.stdout.readline().strip()
            p.stdout.readline()  # the blank line after the answer
            return first

        ask("name")  # the process is up and its book loaded
        times, moves = [], []
        for ply in range(a.plies):
            color = "b" if ply % 2 == 0 else "w"
            t = time.monotonic()
            answer = ask(f"genmove {color}")
            times.append((time.monotonic() - t) * 1000)
            moves.append(answer.removeprefix("= "))
        ask("quit")
        p.wait(timeout=10)
        slowest = max(times)
        worst = max(worst, slowest)
        print(f"game {g + 1:3d}: {''.join(moves)}  slowest {slowest:6.2f} ms")
    print(f"slowest of {a.games * a.plies} moves: {worst:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
