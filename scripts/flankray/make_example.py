#!/usr/bin/env python3
"""Makes example-20.obf, the driver's built-in example: the position at 20 empties of each of
flank's own self-play games, labelled with every move's exact score by ``flank analyze --exact``.

    python3 scripts/flankray/make_example.py > scripts/flankray/example-20.obf
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, me, sq):
    """Squares (col, row) flipped when ``me`` plays ``sq`` on ``board`` (a dict)."""
    out = []
    c, r = sq
    for dc, dr in DIRS:
        run, x, y = [], c + dc, r + dr
        while 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == 1 - me:
            run.append((x, y))
            x, y = x + dc, y + dr
        if run and 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == me:
            out += run
    return out


def position_at(moves: str, empties: int):
    """Board string and side (X = black) after replaying ``moves`` (passes implicit) to
    ``empties`` empties."""
    board = {(3, 3): 1, (4, 4): 1, (3, 4): 0, (4, 3): 0}  # 0 = black (X), 1 = white (O)
    me = 0
    for i in range(0, len(moves), 2):
        if 64 - len(board) == empties:
            break
        sq = (ord(moves[i]) - 97, int(moves[i + 1]) - 1)
        f = flips(board, me, sq)
        if not f:  # the mover has no move here: the other side passed
            me = 1 - me
            f = flips(board, me, sq)
        assert f, f"illegal move {moves[i:i + 2]}"
        for s in f + [sq]:
            board[s] = me
        me = 1 - me
    if not any(flips(board, me, (c, r)) for c in range(8) for r in range(8)
               if (c, r) not in board):
        me = 1 - me  # the side to move must pass: the position is the other side's
    cells = "".join({0: "X", 1: "O", None: "-"}[board.get((c, r))]
                    for r in range(8) for c in range(8))
    return cells, "XO"[me]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--flank", default="target/release/flank")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--empties", type=int, default=20)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        games = os.path.join(tmp, "games.txt")
        subprocess.run([a.flank, "selfplay", "--games", str(a.games), "--seed", "3", "--depth",
                        "6", "--openings", "random", "--out", games], check=True,
                       stderr=subprocess.DEVNULL)
        boards = []
        for row in open(games):
            if not row.startswith("#"):
                cells, side = position_at(row.split("\t")[2], a.empties)
                boards.append(f"{cells} {side}")
    out = subprocess.run([a.flank, "analyze", "--exact", "--moves", "64", "--json", "-"],
                         input="\n".join(boards) + "\n", capture_output=True, text=True,
                         check=True).stdout
    print(f"% {len(boards)} positions at {a.empties} empties from `flank selfplay --games "
          f"{a.games} --seed 3 --depth 6 --openings random`, every move scored by `flank analyze "
          "--exact`; made by scripts/flankray/make_example.py")
    for board, line in zip(boards, out.splitlines()):
        r = json.loads(line)
        scores = "".join(f" {m['move'].upper()}:{m['score']:+d};" for m in r["moves"])
        print(f"{board};{scores}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
