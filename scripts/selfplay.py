#!/usr/bin/env python3
"""selfplay.py: plays flank against itself (or another GTP engine) over GTP from XOT openings.

Two engine processes are started (default: `target/release/flank gtp`, plus the extra
arguments given with --args, e.g. `--args='--depth 4'`; the `=` is needed because the value
starts with `--`). For each opening of the openings file
(default: $FLANK_DATA/openings/xot_small.txt, FLANK_DATA defaulting to ../shared/data relative
to the repository root; one transcript such as `f5d6c4d3c2b3b4b5` per line), both engines get
`clear_board` and the opening moves via `play`; then the engine of the side to move is asked
`genmove`, and its answer is relayed to the other engine with `play` (a pass as
`play <c> pass`), until two passes in a row. Both engines are then asked `final_score`, which
must agree with each other and with this script's own count (black minus white, empties to
the winner).

Every genmove answer is checked against this script's own Othello rules. One line is printed
per game and a summary at the end. The exit status is 1 on any disagreement, illegal move,
`?` answer, malformed answer, dead engine or timeout, 2 on bad usage (e.g. no openings file).

Python 3 standard library only.
"""

import argparse
import os
import queue
import shlex
import subprocess
import sys
import threading

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------------------------
# Othello rules (square index 8 * row + col, a1 = 0, h8 = 63; row 1 on top).

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
BLACK, WHITE, EMPTY = "b", "w", "."


def start_board():
    b = [EMPTY] * 64
    b[27] = b[36] = WHITE  # d4, e5
    b[28] = b[35] = BLACK  # e4, d5
    return b


def other(c):
    return WHITE if c == BLACK else BLACK


def flips(board, color, sq):
    """Indices flipped if `color` plays `sq` (empty list if illegal)."""
    if board[sq] != EMPTY:
        return []
    row, col = divmod(sq, 8)
    out = []
    for dr, dc in DIRS:
        r, c, run = row + dr, col + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and board[8 * r + c] == other(color):
            run.append(8 * r + c)
            r, c = r + dr, c + dc
        if run and 0 <= r < 8 and 0 <= c < 8 and board[8 * r + c] == color:
            out.extend(run)
    return out


def legal_moves(board, color):
    return [sq for sq in range(64) if flips(board, color, sq)]


def play(board, color, sq):
    f = flips(board, color, sq)
    if not f:
        raise ValueError("illegal")
    board[sq] = color
    for i in f:
        board[i] = color


def sq_name(sq):
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_sq(text):
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in "abcdefgh" or t[1] not in "12345678":
        return None
    return (int(t[1]) - 1) * 8 + "abcdefgh".index(t[0])


def score_text(board):
    b, w = board.count(BLACK), board.count(WHITE)
    e = 64 - b - w
    s = b - w + e if b > w else (b - w - e if b < w else 0)
    return "B+%d" % s if s > 0 else ("W+%d" % -s if s < 0 else "0"), s


# ---------------------------------------------------------------------------------------------
# GTP client.


class ProtocolError(Exception):
    """A failed game. `fatal` means the engine is dead or out of step (no further games)."""

    def __init__(self, message, fatal=False):
        super().__init__(message)
        self.fatal = fatal


class Engine:
    """One GTP engine process, with a reader thread so every answer can time out."""

    def __init__(self, name, argv, timeout):
        self.name = name
        self.argv = argv
        self.timeout = timeout
        self.next_id = 1
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
                cwd=REPO,
            )
        except OSError as e:
            raise ProtocolError("%s: cannot start %s: %s" % (name, shlex.join(argv), e), fatal=True)
        self.lines = queue.Queue()
        t = threading.Thread(target=self._reader, daemon=True)
        t.start()

    def _reader(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of output

    def _readline(self, cmd):
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise ProtocolError(
                "%s: no answer to '%s' within %ss" % (self.name, cmd, self.timeout), fatal=True
            )
        if line is None:
            self.lines.put(None)  # keep the end marker: later reads must fail at once too
            raise ProtocolError(
                "%s: engine died (exit %s) on '%s'" % (self.name, self.proc.poll(), cmd), fatal=True
            )
        return line.rstrip("\n").rstrip("\r")

    def send(self, cmd):
        """Sends `cmd` with a fresh id; returns the answer text. A `?` answer raises."""
        i = self.next_id
        self.next_id += 1
        try:
            self.proc.stdin.write("%d %s\n" % (i, cmd))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ProtocolError(
                "%s: engine died (exit %s) before '%s'" % (self.name, self.proc.poll(), cmd), fatal=True
            )
        first = self._readline(cmd)
        while first == "":  # tolerate stray blank lines before an answer
            first = self._readline(cmd)
        body = [first]
        while True:
            line = self._readline(cmd)
            if line == "":
                break
            body.append(line)
        head = first[:1]
        rest = first[1:]
        prefix = str(i)
        if head not in ("=", "?") or not rest.startswith(prefix):
            raise ProtocolError(
                "%s: malformed answer to '%s': %r" % (self.name, cmd, "\n".join(body)), fatal=True
            )
        rest = rest[len(prefix):]
        if rest and not rest.startswith(" "):
            raise ProtocolError(
                "%s: malformed answer to '%s': %r" % (self.name, cmd, "\n".join(body)), fatal=True
            )
        text = "\n".join([rest.strip()] + body[1:]).strip()
        if head == "?":
            raise ProtocolError("%s: '%s' failed: ? %s" % (self.name, cmd, text))
        return text

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except ProtocolError:
                pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------------------------------
# Games.


def parse_opening(line):
    """`f5d6c4…` → list of square indices; None for blank/comment lines. Raises ValueError."""
    t = "".join(line.split())
    if not t or t[0] in "#%":
        return None
    if len(t) % 2:
        raise ValueError("odd length")
    moves = []
    for k in range(0, len(t), 2):
        sq = parse_sq(t[k : k + 2])
        if sq is None:
            raise ValueError("bad move %r" % t[k : k + 2])
        moves.append(sq)
    return moves


def play_game(engines, opening):
    """Plays one game; engines = {BLACK: Engine, WHITE: Engine}. Returns (score text, discs placed)."""
    pair = [engines[BLACK]] if engines[BLACK] is engines[WHITE] else [engines[BLACK], engines[WHITE]]
    for e in pair:
        e.send("clear_board")
    board, color = start_board(), BLACK
    plies = 0
    for sq in opening:
        if not legal_moves(board, color):
            for e in pair:
                e.send("play %s pass" % color)
            color = other(color)
        if sq not in legal_moves(board, color):
            raise ProtocolError("opening move %s is illegal" % sq_name(sq))
        for e in pair:
            e.send("play %s %s" % (color, sq_name(sq)))
        play(board, color, sq)
        color = other(color)
        plies += 1
    passes = 0
    while passes < 2:
        mover = engines[color]
        answer = mover.send("genmove %s" % color).lower()
        legal = legal_moves(board, color)
        if answer == "pass":
            if legal:
                raise ProtocolError(
                    "%s passed for %s with legal moves %s"
                    % (mover.name, color, " ".join(sq_name(s) for s in legal))
                )
            passes += 1
        else:
            sq = parse_sq(answer)
            if sq is None or sq not in legal:
                raise ProtocolError("%s answered illegal move %r for %s" % (mover.name, answer, color))
            play(board, color, sq)
            passes = 0
            plies += 1
        if engines[other(color)] is not mover:
            engines[other(color)].send("play %s %s" % (color, answer))
        color = other(color)
    ours, _ = score_text(board)
    scores = {e.name: e.send("final_score") for e in pair}
    for name, s in scores.items():
        if s != ours:
            raise ProtocolError(
                "final_score disagreement: %s says %s, the board says %s (%s)"
                % (name, s, ours, ", ".join("%s %s" % kv for kv in scores.items()))
            )
    return ours, plies


def load_openings(path=None):
    """Reads an openings file (default $FLANK_DATA/openings/xot_small.txt, FLANK_DATA defaulting
    to the project's ../shared/data): returns (path, openings) with the openings as
    parse_opening gives them, blank lines skipped. Raises ValueError with a one-line reason."""
    data = os.environ.get("FLANK_DATA", os.path.join(REPO, "..", "shared", "data"))
    path = path or os.path.join(data, "openings", "xot_small.txt")
    try:
        with open(path) as f:
            raw = f.readlines()
    except OSError as e:
        raise ValueError("cannot read openings %s: %s" % (path, e))
    openings = []
    for n, line in enumerate(raw, 1):
        try:
            o = parse_opening(line)
        except ValueError as e:
            raise ValueError("%s:%d: %s" % (path, n, e))
        if o is not None:
            openings.append(o)
    return path, openings


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--cmd",
        default=os.path.join("target", "release", "flank") + " gtp",
        help="engine command line, relative to the repo root (default: %(default)s)",
    )
    ap.add_argument("--cmd2", default=None, help="second engine's command line (default: --cmd)")
    ap.add_argument(
        "--args", default="", help="extra arguments for both engines, e.g. --args='--depth 4'"
    )
    ap.add_argument("-n", "--games", type=int, default=10, help="number of openings (default 10)")
    ap.add_argument("--openings", default=None, help="openings file (default $FLANK_DATA/openings/xot_small.txt)")
    ap.add_argument("--both-colors", action="store_true", help="play each opening twice, colours swapped")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for any answer")
    a = ap.parse_args()

    try:
        path, openings = load_openings(a.openings)
    except ValueError as e:
        print("selfplay: %s (set FLANK_DATA or --openings)" % e, file=sys.stderr)
        return 2
    openings = openings[: a.games]
    if not openings:
        print("selfplay: no openings in %s" % path, file=sys.stderr)
        return 2

    extra = shlex.split(a.args)
    argv_a = shlex.split(a.cmd) + extra
    argv_b = shlex.split(a.cmd2 if a.cmd2 else a.cmd) + extra
    if argv_a and not os.path.isabs(argv_a[0]) and os.sep in argv_a[0]:
        argv_a[0] = os.path.join(REPO, argv_a[0])
    if argv_b and not os.path.isabs(argv_b[0]) and os.sep in argv_b[0]:
        argv_b[0] = os.path.join(REPO, argv_b[0])

    engines = []
    failures = 0
    tally = {"A": 0, "B": 0, "draw": 0}
    colours = {BLACK: 0, WHITE: 0, "draw": 0}
    games = 0
    try:
        engines = [Engine("A", argv_a, a.timeout), Engine("B", argv_b, a.timeout)]
        schedule = []
        for k, o in enumerate(openings):
            schedule.append((k, o, 0))
            if a.both_colors:
                schedule.append((k, o, 1))
        for g, (k, o, swap) in enumerate(schedule, 1):
            # A takes black in odd games, or in the first game of each pair with --both-colors.
            a_black = swap == 0 if a.both_colors else g % 2 == 1
            black, white = (engines[0], engines[1]) if a_black else (engines[1], engines[0])
            name = "".join(sq_name(s) for s in o)
            try:
                result, plies = play_game({BLACK: black, WHITE: white}, o)
            except ProtocolError as e:
                print("game %d: opening %s black=%s white=%s ERROR %s" % (g, name, black.name, white.name, e))
                failures += 1
                if e.fatal or any(x.proc.poll() is not None for x in engines):
                    break
                continue
            games += 1
            s = 1 if result.startswith("B") else (-1 if result.startswith("W") else 0)
            if s > 0:
                tally[black.name] += 1
                colours[BLACK] += 1
            elif s < 0:
                tally[white.name] += 1
                colours[WHITE] += 1
            else:
                tally["draw"] += 1
                colours["draw"] += 1
            print(
                "game %d: opening %s black=%s white=%s result %s moves %d"
                % (g, name, black.name, white.name, result, plies)
            )
            sys.stdout.flush()
    except ProtocolError as e:
        print("selfplay: %s" % e, file=sys.stderr)
        failures += 1
    finally:
        for e in engines:
            e.close()
    print(
        "summary: %d games, A %d, B %d, draws %d; black won %d, white won %d; %d errors"
        % (games, tally["A"], tally["B"], tally["draw"], colours[BLACK], colours[WHITE], failures)
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
