#!/usr/bin/env python3
"""Measures how fast `flank nboard` answers `ping` while it searches.

Starts the engine, and for each case (go, hint, analyze, an exact endgame solve, at depth 60 with
no clock, so only the ping can end the search) sends the command, waits WAIT seconds, sends
`ping N` and times the `pong N`. Prints one line per case and the worst latency in ms.

Usage: scripts/nboard_ping_latency.py [FLANK_BINARY] [--threads T] [--wait SECONDS] [--rounds R]
"""
import argparse
import os
import subprocess
import sys
import threading
import time
import queue

START = "---------------------------O*------*O--------------------------- *"


def endgame_board():
    """FFO #60 (24 empties, from $FLANK_DATA/endgame, default ../shared/data): at depth 60
    it is solved exactly at once, so the ping stops the exact solver."""
    root = os.environ.get("FLANK_DATA") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")
    with open(os.path.join(root, "endgame", "fforum-60-79.obf")) as f:
        cells, side = f.readline().split(";")[0].split()
    return cells.replace("X", "*") + " " + ("*" if side == "X" else "O")


def ggf(board):
    return f"set game (;GM[Othello]TY[8]BO[8 {board}];)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default="target/release/flank")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--wait", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    p = subprocess.Popen([a.binary, "nboard", "--threads", a.threads],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.monotonic(), l.rstrip("\n"))) for l in p.stdout],
                     daemon=True).start()

    def send(s):
        p.stdin.write(s + "\n")
        p.stdin.flush()

    def wait_for(prefix, timeout=30.0):
        end = time.monotonic() + timeout
        while True:
            at, line = lines.get(timeout=max(0.0, end - time.monotonic()))
            if line == prefix:
                return at

    send("nboard 2")
    send("set depth 60")
    cases = [("go", START, "go"), ("hint", START, "hint 4"), ("analyze", START, "analyze"),
             ("endgame go", endgame_board(), "go")]
    n = 0
    worst = 0.0
    for r in range(a.rounds):
        for name, board, cmd in cases:
            n += 1
            send(ggf(board))
            if name == "analyze":
                send("move f5")
                send("move d6")
            send(cmd)
            time.sleep(a.wait)
            sent = time.monotonic()
            send(f"ping {n}")
            got = wait_for(f"pong {n}")
            ms = (got - sent) * 1000
            worst = max(worst, ms)
            print(f"{name:11s} round {r + 1}: pong after {ms:7.1f} ms")
    send("quit")
    p.wait(timeout=10)
    print(f"worst: {worst:.1f} ms over {n} pings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
