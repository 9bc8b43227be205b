"""The SQLite store: one row per position (solve, analyze) or game (selfplay), written and
committed as each result arrives, so a crash of the driver loses nothing finished.

Tables (query them with ``sqlite3 STORE``; see scripts/flankray/README.md):

- ``positions``: ``kind`` (solve|analyze), ``options`` (what changes the answer, e.g. ``exact``
  or ``depth=12 eval=trained mpc=1.5``), ``key`` (the position: board and side to move), the
  first ``source``/``line`` it came from, ``input`` (the line as read), ``board``, ``side``,
  ``empties``, ``best`` (move), ``score`` (disc difference for the side to move, ±64),
  ``exact`` (0/1), ``depth`` (plies), ``nodes``, ``time_ms``, ``pv``, ``ok`` (1/0 when the input
  listed scores, else NULL), ``result`` (flank's whole ``--json`` object), ``flank`` (version and
  binary SHA-256), ``run``, ``worker`` (host:pid), ``finished`` (Unix time).
- ``games``: ``options`` (the self-play settings), ``game`` (index), ``record`` (flank's
  self-play line: index, opening plies, moves, exact score, values), ``header`` (flank's
  settings line), ``flank``, ``run``, ``worker``, ``finished``.
- ``bad_lines``: ``run``, ``source``, ``line``, ``error``.
- ``failures``: ``run``, ``what`` (the lines or games of the task), ``error``.
- ``runs``: one row per driver run with its command, options and summary; ``state`` is
  ``finished``, ``interrupted`` (Ctrl-C, SIGTERM), ``failed`` (the driver itself failed) or
  NULL (the driver was killed).

One run at a time: a store is locked (``STORE.lock``, ``flock``) while a run writes it.
"""

import fcntl
import json
import os
import sqlite3
import time
from typing import Dict, Iterable, List, Optional, Tuple

from .lines import position_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, options TEXT NOT NULL, source TEXT,
  flank TEXT NOT NULL, command TEXT NOT NULL, workers INTEGER, started REAL NOT NULL,
  finished REAL, state TEXT, done INTEGER, skipped INTEGER, bad INTEGER, failed INTEGER,
  nodes INTEGER);
CREATE TABLE IF NOT EXISTS positions(
  kind TEXT NOT NULL, options TEXT NOT NULL, key TEXT NOT NULL, source TEXT, line INTEGER,
  input TEXT NOT NULL, board TEXT, side TEXT, empties INTEGER, best TEXT, score INTEGER,
  exact INTEGER, depth INTEGER, nodes INTEGER, time_ms INTEGER, pv TEXT, ok INTEGER,
  result TEXT NOT NULL, flank TEXT NOT NULL, run INTEGER NOT NULL, worker TEXT,
  finished REAL NOT NULL, PRIMARY KEY(kind, options, key));
CREATE TABLE IF NOT EXISTS games(
  options TEXT NOT NULL, game INTEGER NOT NULL, record TEXT NOT NULL, header TEXT,
  flank TEXT NOT NULL, run INTEGER NOT NULL, worker TEXT, finished REAL NOT NULL,
  PRIMARY KEY(options, game));
CREATE TABLE IF NOT EXISTS bad_lines(
  run INTEGER NOT NULL, source TEXT, line INTEGER NOT NULL, error TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS failures(run INTEGER NOT NULL, what TEXT NOT NULL, error TEXT NOT NULL);
"""


class StoreError(Exception):
    """The store cannot be used: not SQLite, not a flankray store, unwritable, or in use."""


class Store:
    """An open store, locked for this run. Every ``add_*`` commits before it returns."""

    def __init__(self, path: str):
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a store")
        try:
            self.lock = open(path + ".lock", "a")
        except OSError as e:
            raise StoreError(f"cannot write next to {path}: {e.strerror}") from None
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise StoreError(f"{path} is in use by another run (wait for it, or use "
                             "another --db)") from None
        try:
            self._open(path)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{path} is not a usable SQLite store: {e}") from None

    def _open(self, path: str) -> None:
        self.db = sqlite3.connect(path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self) -> None:
        """Closes the database and releases the lock."""
        self.db.close()
        self.lock.close()

    def start_run(self, kind: str, options: str, source: Optional[str], flank: str,
                  command: str, workers: int) -> int:
        """Records a new run; returns its id."""
        cur = self.db.execute(
            "INSERT INTO runs(kind, options, source, flank, command, workers, started) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (kind, options, source, flank, command, workers, time.time()))
        self.db.commit()
        return int(cur.lastrowid)

    def finish_run(self, run: int, state: str, done: int, skipped: int, bad: int, failed: int,
                   nodes: int) -> None:
        """Writes a run's summary; ``state`` is ``finished``, ``interrupted`` or ``failed``."""
        self.db.execute(
            "UPDATE runs SET finished=?, state=?, done=?, skipped=?, bad=?, failed=?, nodes=? "
            "WHERE id=?", (time.time(), state, done, skipped, bad, failed, nodes, run))
        self.db.commit()

    def has_position(self, kind: str, options: str, key: str) -> bool:
        """True when the store holds this position's result for these options."""
        return self.db.execute(
            "SELECT 1 FROM positions WHERE kind=? AND options=? AND key=?",
            (kind, options, key)).fetchone() is not None

    def add_positions(self, kind: str, options: str, source: str,
                      rows: Iterable[Tuple[int, str, Dict]], flank: str, run: int,
                      worker: str) -> int:
        """Stores (line, input text, flank's JSON object) rows; a position already held is kept
        as it was. Returns the number of rows added."""
        now = time.time()
        added = 0
        for line, text, obj in rows:
            best = obj.get("best")
            if best is None and obj.get("moves"):
                best = obj["moves"][0].get("move")
            score = obj.get("score")
            if score is None and obj.get("moves"):
                score = obj["moves"][0].get("score")
            pv = obj.get("pv")
            if pv is None and obj.get("moves"):
                pv = obj["moves"][0].get("pv")
            ok = obj.get("ok")
            cur = self.db.execute(
                "INSERT OR IGNORE INTO positions VALUES "
                "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (kind, options, position_key(text), source, line, text, obj.get("board"),
                 obj.get("side"), obj.get("empties"), best, score,
                 None if obj.get("exact") is None else int(bool(obj["exact"])),
                 obj.get("depth"), obj.get("nodes"), obj.get("time_ms"), pv,
                 None if ok is None else int(bool(ok)), json.dumps(obj, sort_keys=True),
                 flank, run, worker, now))
            added += cur.rowcount
        self.db.commit()
        return added

    def done_games(self, options: str, first: int, count: int) -> set:
        """The game indices in ``first .. first + count`` the store holds for these settings."""
        return {g for (g,) in self.db.execute(
            "SELECT game FROM games WHERE options=? AND game>=? AND game<?",
            (options, first, first + count))}

    def add_games(self, options: str, header: str, games: Iterable[Tuple[int, str]], flank: str,
                  run: int, worker: str) -> int:
        """Stores self-play games (index, flank's line); returns the number added."""
        now = time.time()
        added = 0
        for game, record in games:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?)",
                (options, game, record, header, flank, run, worker, now))
            added += cur.rowcount
        self.db.commit()
        return added

    def games(self, options: str) -> List[Tuple[int, str, str]]:
        """Every stored game of these settings: (index, header, record), by index."""
        return list(self.db.execute(
            "SELECT game, header, record FROM games WHERE options=? ORDER BY game", (options,)))

    def add_bad_line(self, run: int, source: str, line: int, error: str) -> None:
        """Records an input line flank refused."""
        self.db.execute("INSERT INTO bad_lines VALUES (?,?,?,?)", (run, source, line, error))
        self.db.commit()

    def add_failure(self, run: int, what: str, error: str) -> None:
        """Records a task that failed after its retries."""
        self.db.execute("INSERT INTO failures VALUES (?,?,?)", (run, what, error))
        self.db.commit()


def open_read_only(path: str) -> sqlite3.Connection:
    """Opens a store for reading only (``show``); :class:`StoreError` when it is not one."""
    if not os.path.isfile(path):
        raise StoreError(f"no store at {path}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{path} is not a SQLite store: {e}") from None
    if not {"runs", "positions", "games"} <= tables:
        raise StoreError(f"{path} is a SQLite file but not a flank_ray.py store")
    return db
