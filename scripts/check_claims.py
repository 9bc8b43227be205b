#!/usr/bin/env python3
"""check_claims.py: every exact or WLD score flank claims, checked against a fresh solve.

Plays flank against flank through GTP (two `flank gtp --verbose` processes) from XOT
openings, with the game clock of `time_settings` and `time_left` before each `genmove`, and
in between asks `flank-hint` of the side to move and changes the levels now and then, since
all of these share one transposition table per process. Every score the engines call solved
is collected:

- `genmove`: the closing `flank: COLOR (level L) MOVE score S exact|wld ...` line (the
  position is worth S and MOVE reaches it) and every `info ... score S exact|wld ... pv M ...`
  line (the position is worth S, and so is its PV's first move);
- `flank-hint`: every answer line `MOVE S exact PV...` and every `info ... multipv K score S
  exact ... pv MOVE ...` line (MOVE is worth S).

Then each position such a claim is about (the position for a value, the child after MOVE for
a move) is solved with `flank solve --fresh` (a cleared table for every position, as a new
engine) and every claim is compared: an exact claim must equal the solved score, a WLD
claim its sign. The same positions are also solved in one `flank solve` process with the
table kept between positions, and the positions with at most --analyze-max-empties empties are
analysed with `flank analyze --exact --moves 64` in one process; each of their scores is a
claim checked the same way. --positions FILE adds the positions of a file (OBF lines or board
strings) to those two one-process runs; --games 0 checks only such files.

Games cycle through the given clocks (seconds a side), thread counts and table sizes (MiB).
Prints a summary (games, time losses, claims by source, checked, wrong) and every wrong claim;
exits 1 if any claim is wrong or an engine fails, 2 on bad usage. With --out DIR the claims
(claims.jsonl) and the summary (summary.json) are kept there.

Python 3 standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import queue
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from selfplay import BLACK, WHITE, EMPTY, flips, legal_moves, other, parse_sq, play, sq_name  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GENMOVE_LINE = re.compile(
    r"^flank: (black|white) \(level (\S+)\) (\S+) score ([+-]?\d+) (exact|wld) depth "
)
INFO_LINE = re.compile(r"^info depth \d+ score ([+-]?\d+) (exact|wld) nodes .* pv (.*)$")
HINT_INFO_LINE = re.compile(r"^info depth \d+ multipv \d+ score ([+-]?\d+) exact nodes .* pv (\S+)")
HINT_ANSWER_LINE = re.compile(r"^(\S+) ([+-]?\d+) exact\b")


def board_key(board, color):
    """flank's board string: a1..h8 as X (black), O (white), - (empty), then the side."""
    cells = "".join("X" if c == BLACK else "O" if c == WHITE else "-" for c in board)
    return cells + " " + ("X" if color == BLACK else "O")


def child_key(board, color, sq):
    b = list(board)
    play(b, color, sq)
    return board_key(b, other(color))


class Failure(Exception):
    pass


class Gtp:
    """A `flank gtp --verbose` process; stdout answers and stderr lines read by threads."""

    def __init__(self, argv, timeout):
        self.argv = argv
        self.timeout = timeout
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=REPO,
        )
        self.out = queue.Queue()
        self.err = queue.Queue()
        for stream, q in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._pump, args=(stream, q), daemon=True).start()

    @staticmethod
    def _pump(stream, q):
        for line in stream:
            q.put(line.rstrip("\n"))
        q.put(None)

    def send(self, cmd):
        """Sends `cmd`, returns (ok, answer text without the `=`/`?` and the blank line)."""
        try:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        except OSError:
            raise Failure("%s: engine died before %r" % (shlex.join(self.argv), cmd))
        body = []
        while True:
            try:
                line = self.out.get(timeout=self.timeout)
            except queue.Empty:
                raise Failure("no answer to %r within %ss" % (cmd, self.timeout))
            if line is None:
                raise Failure("engine died on %r (exit %s)" % (cmd, self.proc.poll()))
            if line == "" and body:
                break
            if line != "":
                body.append(line)
        text = "\n".join(body)
        if text[:1] not in "=?":
            raise Failure("malformed answer to %r: %r" % (cmd, text))
        return text[0] == "=", text[1:].strip()

    def stderr_until(self, marker, wait):
        """The stderr lines up to the first starting with `marker` (waiting up to `wait` s for
        it), then any already there."""
        lines = []
        deadline = time.monotonic() + wait
        while marker is not None:
            try:
                line = self.err.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            lines.append(line)
            if line.startswith(marker):
                break
        while True:
            try:
                line = self.err.get_nowait()
            except queue.Empty:
                break
            if line is None:
                break
            lines.append(line)
        return lines

    def close(self):
        try:
            self.send("quit")
        except Failure:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def play_game(i, opening, cfg):
    """One game; returns (claims, time losses, moves played)."""
    rng = random.Random(cfg["seed"] * 1_000_003 + i)
    clock, threads, hash_mb = cfg["setting"](i)
    argv = shlex.split(cfg["flank"]) + [
        "gtp", "--verbose", "--threads", str(threads), "--hash", str(hash_mb)]
    engines = {BLACK: Gtp(argv, cfg["timeout"]), WHITE: Gtp(argv, cfg["timeout"])}
    claims = []
    losses = 0
    try:
        board = [EMPTY] * 64
        board[27] = board[36] = WHITE
        board[28] = board[35] = BLACK
        color = BLACK
        for e in engines.values():
            for cmd in ("boardsize 8", "clear_board", "time_settings %d 0 0" % clock):
                if not e.send(cmd)[0]:
                    raise Failure("%r refused" % cmd)
        for sq in opening:
            if not legal_moves(board, color):
                color = other(color)
            play(board, color, sq)
            for e in engines.values():
                if not e.send("play %s %s" % (color, sq_name(sq)))[0]:
                    raise Failure("opening move refused")
            color = other(color)
        left = {BLACK: float(clock), WHITE: float(clock)}
        passes = 0
        while passes < 2:
            moves = legal_moves(board, color)
            if not moves:
                passes += 1
                color = other(color)
                continue
            passes = 0
            me = engines[color]
            empties = board.count(EMPTY)
            key = board_key(board, color)
            if rng.random() < cfg["level_prob"]:
                target = engines[rng.choice((BLACK, WHITE))]
                target.send("flank-level %s" % rng.choice(("easy", "medium", "hard", "hard")))
            if empties <= cfg["hint_max_empties"] and rng.random() < cfg["hint_prob"]:
                me.send("time_left %s %d 0" % (color, max(1, int(left[color]))))
                ok, text = me.send("flank-hint %d" % len(moves))
                err = me.stderr_until("flank: hint for", 5.0)
                if ok:
                    for line in text.splitlines():
                        m = HINT_ANSWER_LINE.match(line)
                        if m:
                            claims.append(dict(src="hint", pos=key, move=m.group(1),
                                               score=int(m.group(2)), kind="exact"))
                    for line in err:
                        m = HINT_INFO_LINE.match(line)
                        if m:
                            claims.append(dict(src="hint-info", pos=key, move=m.group(2),
                                               score=int(m.group(1)), kind="exact"))
            for c in (BLACK, WHITE):
                me.send("time_left %s %d 0" % (c, max(1, int(left[c]))))
            t0 = time.monotonic()
            ok, answer = me.send("genmove %s" % color)
            left[color] -= time.monotonic() - t0
            if not ok:
                raise Failure("genmove refused: %s" % answer)
            if left[color] < 0:
                losses += 1
                left[color] = 1.0
            sq = parse_sq(answer)
            if sq is None or sq not in moves:
                raise Failure("illegal genmove answer %r" % answer)
            err = me.stderr_until("flank: %s" % color, 5.0 if len(moves) > 1 else 0.05)
            for line in err:
                m = GENMOVE_LINE.match(line)
                if m:
                    if m.group(3) != answer.lower():
                        raise Failure("genmove answered %s, its verbose line says %s"
                                      % (answer, m.group(3)))
                    claims.append(dict(src="genmove", pos=key, move=m.group(3),
                                       score=int(m.group(4)), kind=m.group(5)))
                    claims.append(dict(src="genmove-value", pos=key, move=None,
                                       score=int(m.group(4)), kind=m.group(5)))
                    continue
                m = INFO_LINE.match(line)
                if m:
                    first = m.group(3).split()[0] if m.group(3).split() else None
                    claims.append(dict(src="info", pos=key, move=None,
                                       score=int(m.group(1)), kind=m.group(2)))
                    if first and first != "pass":
                        claims.append(dict(src="info-pv", pos=key, move=first,
                                           score=int(m.group(1)), kind=m.group(2)))
            play(board, color, sq)
            engines[other(color)].send("play %s %s" % (color, sq_name(sq)))
            color = other(color)
    finally:
        for e in engines.values():
            e.close()
    for c in claims:
        c.update(game=i, clock=clock, threads=threads, hash=hash_mb)
    return claims, losses


def run_flank(cfg, args, positions):
    """Runs `flank ARGS FILE` on `positions` (board strings); returns the JSON objects."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(positions) + "\n")
        path = f.name
    try:
        argv = shlex.split(cfg["flank"]) + args + [path]
        r = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
        if r.returncode not in (0, 1):
            raise Failure("%s failed (%d): %s" % (shlex.join(argv), r.returncode, r.stderr[-500:]))
        out = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        if len(out) != len(positions):
            raise Failure("%s: %d results for %d positions" % (shlex.join(argv), len(out), len(positions)))
        return out
    finally:
        os.unlink(path)


def position_of(key):
    cells, side = key.split()
    board = [BLACK if c == "X" else WHITE if c == "O" else EMPTY for c in cells]
    return board, BLACK if side == "X" else WHITE


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flank", default=os.path.join(REPO, "target", "release", "flank"),
                    help="the flank command (default: target/release/flank)")
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--clocks", default="10", help="seconds a side, cycled over the games (e.g. 10,30,60)")
    ap.add_argument("--threads", default="1", help="search threads, cycled (e.g. 1,2)")
    ap.add_argument("--hash", default="64", help="table sizes in MiB, cycled (e.g. 1,64,1024)")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hint-prob", type=float, default=0.5, help="chance of a flank-hint before a move")
    ap.add_argument("--hint-max-empties", type=int, default=24)
    ap.add_argument("--level-prob", type=float, default=0.05, help="chance of a level change before a move")
    ap.add_argument("--analyze-max-empties", type=int, default=16)
    ap.add_argument("--solve-threads", type=int, default=2)
    ap.add_argument("--openings", default=None,
                    help="XOT file (default: $FLANK_DATA/openings/xot_small.txt)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for one answer")
    ap.add_argument("--out", default=None, help="directory for claims.jsonl and summary.json")
    ap.add_argument("--positions", action="append", default=[],
                    help="a file of positions (OBF lines or board strings) also solved and "
                         "analysed in the one-process runs; repeatable")
    a = ap.parse_args()
    data = os.environ.get("FLANK_DATA", os.path.join(REPO, "..", "shared", "data"))
    path = a.openings or os.path.join(data, "openings", "xot_small.txt")
    try:
        lines = [l.split("#")[0].strip() for l in open(path)]
    except OSError as e:
        print("check_claims: cannot read openings: %s" % e, file=sys.stderr)
        return 2
    openings = []
    for l in lines:
        if l:
            openings.append([parse_sq(l[k:k + 2]) for k in range(0, len(l), 2)])
    if not openings:
        print("check_claims: no openings in %s" % path, file=sys.stderr)
        return 2
    clocks = [int(x) for x in a.clocks.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    hashes = [int(x) for x in a.hash.split(",")]
    # Clocks vary fastest, then threads, then table sizes: every combination comes up.
    def setting(i):
        return (clocks[i % len(clocks)],
                threads[(i // len(clocks)) % len(threads)],
                hashes[(i // (len(clocks) * len(threads))) % len(hashes)])
    cfg = dict(flank=a.flank, seed=a.seed, setting=setting, timeout=a.timeout,
               hint_prob=a.hint_prob, hint_max_empties=a.hint_max_empties,
               level_prob=a.level_prob)
    rng = random.Random(a.seed)
    picks = [rng.choice(openings) for _ in range(a.games)]
    claims, losses = [], 0
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(play_game, i, picks[i], cfg) for i in range(a.games)]
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            try:
                c, l = fut.result()
            except Failure as e:
                print("check_claims: a game failed: %s" % e, file=sys.stderr)
                return 1
            claims += c
            losses += l
            print("game %d/%d done: %d claims so far, %.0f s" % (done, a.games, len(claims),
                  time.monotonic() - t0), file=sys.stderr, flush=True)

    # Positions to solve: every claimed position and child, and the children of the
    # positions that `flank analyze` gets.
    need = set()
    for c in claims:
        board, color = position_of(c["pos"])
        if c["move"] is None:
            need.add(c["pos"])
        else:
            sq = parse_sq(c["move"])
            if sq is None or not flips(board, color, sq):
                c["wrong"] = "move %s is not legal" % c["move"]
                continue
            c["child"] = child_key(board, color, sq)
            need.add(c["child"])
    extra = set()
    for f in a.positions:
        try:
            for line in open(f):
                t = line.replace(";", " ").split()
                if len(t) >= 2 and len(t[0]) == 64 and t[1] in ("X", "O"):
                    extra.add(t[0] + " " + t[1])
        except OSError as e:
            print("check_claims: cannot read positions: %s" % e, file=sys.stderr)
            return 2
    need.update(extra)
    analyzed = sorted({c["pos"] for c in claims
                       if c["pos"].count("-") <= a.analyze_max_empties} | extra)
    for key in analyzed:
        board, color = position_of(key)
        for sq in legal_moves(board, color):
            need.add(child_key(board, color, sq))
    need = sorted(need, key=lambda k: (k.count("-"), k))
    solve_args = ["solve", "--json", "--threads", str(a.solve_threads)]
    t1 = time.monotonic()
    fresh = run_flank(cfg, solve_args + ["--fresh"], need)
    value = {}
    for key, r in zip(need, fresh):
        if not r.get("exact") or r["board"] + " " + r["side"] != key:
            print("check_claims: fresh solve of %s gave %s" % (key, r), file=sys.stderr)
            return 1
        value[key] = r["score"]
    fresh_s = time.monotonic() - t1

    def check(c):
        if "wrong" in c:
            return False
        if c["move"] is None:
            truth = value[c["pos"]]
        else:
            truth = -value[c["child"]]
        if c["kind"] == "exact":
            ok = c["score"] == truth
        else:
            ok = (c["score"] > 0) - (c["score"] < 0) == (truth > 0) - (truth < 0)
        if not ok:
            c["wrong"] = "claimed %+d %s, true value %+d" % (c["score"], c["kind"], truth)
        return ok

    # The same positions in one `flank solve` process (the table kept between them).
    shared = run_flank(cfg, solve_args, need)
    for key, r in zip(need, shared):
        c = dict(src="solve", pos=key, move=None, score=r["score"], kind="exact")
        if not r.get("exact"):
            c["wrong"] = "not solved"
        claims.append(c)
    # Every move of the analysed positions in one `flank analyze` process.
    if analyzed:
        an = run_flank(cfg, ["analyze", "--json", "--exact", "--moves", "64",
                             "--threads", str(a.solve_threads)], analyzed)
        for key, r in zip(analyzed, an):
            board, color = position_of(key)
            for m in r.get("moves", []):
                if m.get("exact"):
                    sq = parse_sq(m["move"])
                    c = dict(src="analyze", pos=key, move=m["move"], score=m["score"], kind="exact")
                    if sq is None or not flips(board, color, sq):
                        c["wrong"] = "move %s is not legal" % m["move"]
                    else:
                        c["child"] = child_key(board, color, sq)
                    claims.append(c)
    wrong = [c for c in claims if not check(c)]

    by_src = {}
    for c in claims:
        s = by_src.setdefault(c["src"], [0, 0])
        s[0] += 1
        s[1] += "wrong" in c
    summary = dict(games=a.games, time_losses=losses, claims=len(claims),
                   wrong=len(wrong), positions_solved=len(need),
                   by_source={k: dict(claims=v[0], wrong=v[1]) for k, v in sorted(by_src.items())},
                   play_s=round(t1 - t0, 1), fresh_solve_s=round(fresh_s, 1),
                   clocks=clocks, threads=threads, hash=hashes)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "claims.jsonl"), "w") as f:
            for c in claims:
                f.write(json.dumps(c) + "\n")
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
    for c in wrong[:50]:
        print("WRONG %s" % json.dumps(c))
    print("games %d, time losses %d, positions solved %d (fresh %.0f s)"
          % (a.games, losses, len(need), fresh_s))
    for k, v in sorted(by_src.items()):
        print("  %-13s %7d claims, %d wrong" % (k, v[0], v[1]))
    print("claims checked: %d, wrong: %d" % (len(claims), len(wrong)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
