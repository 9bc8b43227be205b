"""The Ray batch driver end to end, with a local Ray of 2 workers: the same scores as a plain
``flank solve``, resume after a killed driver, a killed worker and a killed flank process losing
nothing, bad lines reported by number, and self-play equal to ``flank selfplay``."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import DRIVER, driver_cmd


def plain_solve(flank: str, path: str) -> list:
    """``flank solve --json`` of a whole file: its JSON objects in file order."""
    out = subprocess.run([flank, "solve", "--json", "--threads", "1", path], capture_output=True,
                         text=True, check=True).stdout
    return [json.loads(s) for s in out.splitlines() if s.startswith("{")]


def stored(db: str, kind: str = "solve") -> list:
    """(line, board, side, score, best, ok, run, worker, finished) rows by line."""
    with sqlite3.connect(db) as c:
        return list(c.execute(
            "SELECT line, board, side, score, best, ok, run, worker, finished FROM positions "
            "WHERE kind=? ORDER BY line", (kind,)))


def position_count(db: str) -> int:
    """Rows in the store's positions table (0 before the driver has made it)."""
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return c.execute("SELECT COUNT(*) FROM positions").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def children(pid: int) -> list:
    """Direct child pids of ``pid``."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def cmdline(pid: int) -> str:
    """A process's command line, arguments joined by spaces ('' once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def flank_tasks() -> list:
    """(Ray worker pid, flank child pid) of every flank process a Ray worker runs now (workers
    run the binary from their node's cache, /tmp/flankray-bin/SHA256/flank)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and cmdline(int(entry)).startswith("ray::positions_task"):
            for child in children(int(entry)):
                if "/flankray-bin/" in cmdline(child).split(" ", 1)[0]:
                    found.append((int(entry), child))
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_ffo_1_19_scores_equal_flank_solve(flank, data, run_driver, tmp_path):
    ffo = os.path.join(data, "endgame", "fforum-1-19.obf")
    db = str(tmp_path / "store.sqlite")
    r = run_driver("solve", ffo, "--db", db, "--chunk", "3")
    assert r.returncode == 0, r.stderr
    assert "19 positions done, 0 already in" in r.stdout
    rows = stored(db)
    plain = plain_solve(flank, ffo)
    assert [row[0] for row in rows] == list(range(1, 20))
    assert [(b, s, score) for _, b, s, score, *_ in rows] == \
        [(p["board"], p["side"], p["score"]) for p in plain]
    assert all(row[5] == 1 for row in rows)  # every best move among the listed best
    assert len({row[7] for row in rows}) == 2, "both workers took tasks"


def test_a_killed_driver_resumes_without_redoing(flank, data, tmp_path):
    ffo = os.path.join(data, "endgame", "fforum-20-39.obf")
    db = str(tmp_path / "store.sqlite")
    proc = subprocess.Popen(driver_cmd(flank, "solve", ffo, "--db", db, "--chunk", "1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.time() + 300
    while position_count(db) < 4:
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and the local Ray it started
    proc.wait()
    first = stored(db)
    assert 4 <= len(first) < 20
    r = subprocess.run(driver_cmd(flank, "solve", ffo, "--db", db, "--chunk", "1"),
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert f"{20 - len(first)} positions done, {len(first)} already in" in r.stdout
    rows = stored(db)
    assert [row[0] for row in rows] == list(range(1, 21))
    assert [row[:6] for row in rows if row[6] == 1] == [row[:6] for row in first]
    plain = plain_solve(flank, ffo)
    assert [row[3] for row in rows] == [p["score"] for p in plain]


def example_run_until(flank: str, db: str, ready) -> subprocess.Popen:
    """Starts the driver on the built-in example (chunks of 5) and waits until ``ready()``."""
    example = os.path.join(os.path.dirname(os.path.dirname(__file__)), "example-20.obf")
    proc = subprocess.Popen(driver_cmd(flank, "solve", example, "--db", db, "--chunk", "5"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 300
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline
        time.sleep(0.02)
    return proc


def test_a_killed_worker_loses_nothing_and_its_task_is_retried(flank, tmp_path):
    db = str(tmp_path / "store.sqlite")
    proc = example_run_until(flank, db, lambda: position_count(db) >= 5 and flank_tasks())
    worker, child = flank_tasks()[0]
    killed_at = time.time()
    os.kill(worker, signal.SIGKILL)
    time.sleep(2)
    assert not alive(child), "the worker's flank process must die with it"
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "40 positions done, 0 already in" in out and "0 failed tasks" in out
    rows = stored(db)
    assert [row[0] for row in rows] == list(range(2, 42))  # line 1 is the header comment
    assert all(row[5] == 1 for row in rows)
    # Whatever the killed worker stored, it stored before it was killed; its task ran again.
    assert all(row[8] < killed_at for row in rows if row[7].endswith(f":{worker}"))


def test_a_killed_flank_process_is_retried(flank, tmp_path):
    db = str(tmp_path / "store.sqlite")
    proc = example_run_until(flank, db, flank_tasks)
    os.kill(flank_tasks()[0][1], signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "40 positions done" in out and "0 failed tasks" in out
    assert len(stored(db)) == 40


def test_bad_lines_are_reported_by_number_and_the_rest_is_solved(flank, data, run_driver,
                                                                 tmp_path):
    ffo = open(os.path.join(data, "endgame", "fforum-1-19.obf")).read().splitlines()
    lines = [ffo[0], "% a comment", "not a board", ffo[1], "", "X" * 70000, ffo[2],
             ffo[3].replace("X;", "Z;"), b"\xff\xfe".decode("latin-1"), ffo[4]]
    src = tmp_path / "mixed.obf"
    src.write_bytes("\n".join(lines).encode("latin-1") + b"\n")
    db = str(tmp_path / "store.sqlite")
    r = run_driver("solve", str(src), "--db", db, "--chunk", "10")
    assert r.returncode == 2, r.stderr
    for n in (3, 6, 8, 9):
        assert f"{src}:{n}: " in r.stderr
    assert "4 positions done, 0 already in" in r.stdout and "4 bad lines" in r.stdout
    assert [row[0] for row in stored(db)] == [1, 4, 7, 10]
    with sqlite3.connect(db) as c:
        bad = [n for (n,) in c.execute("SELECT line FROM bad_lines ORDER BY line")]
    assert bad == [3, 6, 8, 9]


def test_analyze_equals_flank_analyze(flank, data, run_driver, tmp_path):
    ffo = os.path.join(data, "endgame", "fforum-1-19.obf")
    db = str(tmp_path / "store.sqlite")
    r = run_driver("analyze", ffo, "--db", db, "--moves", "4", "--exact")
    assert r.returncode == 0, r.stderr
    plain = subprocess.run([flank, "analyze", "--json", "--moves", "4", "--exact", ffo],
                           capture_output=True, text=True, check=True).stdout
    want = [[(m["move"], m["score"]) for m in json.loads(s)["moves"]]
            for s in plain.splitlines()]
    with sqlite3.connect(db) as c:
        got = [[(m["move"], m["score"]) for m in json.loads(res)["moves"]]
               for (res,) in c.execute("SELECT result FROM positions ORDER BY line")]
    # The same scores; equal-score moves may come in another order.
    assert [sorted(s for _, s in g) for g in got] == [sorted(s for _, s in w) for w in want]
    assert [g[0][1] for g in got] == [w[0][1] for w in want]


def test_selfplay_equals_flank_selfplay_and_resumes(flank, run_driver, tmp_path):
    db = str(tmp_path / "store.sqlite")
    opts = ["--depth", "2", "--openings", "random", "--seed", "5", "--solve-empties", "12"]
    r = run_driver("selfplay", "--games", "4", *opts, "--db", db)
    assert r.returncode == 0, r.stderr
    assert "4 games done, 0 already in" in r.stdout
    export = tmp_path / "driver.txt"
    r = run_driver("selfplay", "--games", "6", *opts, "--db", db, "--export", str(export))
    assert r.returncode == 0, r.stderr
    assert "2 games done, 4 already in" in r.stdout
    plain = tmp_path / "plain.txt"
    subprocess.run([flank, "selfplay", "--games", "6", *opts, "--out", str(plain)], check=True,
                   capture_output=True)
    ours, theirs = export.read_text().splitlines(), plain.read_text().splitlines()
    assert ours[0] == theirs[0]  # flank's settings header
    # flank writes games as they finish; the export is in index order.
    assert ours[1:] == sorted(theirs[1:], key=lambda row: int(row.split("\t", 1)[0]))
    assert [int(row.split("\t", 1)[0]) for row in ours[1:]] == list(range(6))


def test_bad_options_are_one_line_errors_before_ray_starts(flank, data, run_driver, tmp_path):
    ffo = os.path.join(data, "endgame", "fforum-1-19.obf")
    db = str(tmp_path / "store.sqlite")
    for args, says in [
        (["solve", ffo, "--depth", "0"], "flank refuses the options: invalid value '0'"),
        (["solve", ffo, "--mpc", "banana"], "flank refuses the options"),
        (["analyze", ffo, "--moves", "0"], "flank refuses the options"),
        (["selfplay", "--openings", str(tmp_path / "none.txt")], "flank refuses the options"),
        (["selfplay", "--games", "-5"], "--games must be at least 1"),
        (["solve", ffo, "--chunk", "0"], "at least 1"),
        (["solve", str(tmp_path)], "is not a file"),
        (["solve", ffo, "--address", "127.0.0.1:9"], "no Ray head at 127.0.0.1:9"),
    ]:
        r = run_driver(*args, "--db", db, timeout=120)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("flank_ray.py: ") and says in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    assert not os.path.exists(db), "no store is made for a refused run"


def test_the_store_is_checked_locked_and_only_read_by_show(flank, run_driver, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database, just text\n" * 100)
    r = run_driver("solve", "--db", str(junk))
    assert r.returncode == 2 and "is not a usable SQLite store" in r.stderr, r.stderr
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE t(x)")
    before = other.read_bytes()
    r = subprocess.run([sys.executable, DRIVER, "show", "--db", str(other)], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "not a flank_ray.py store" in r.stderr, r.stderr
    assert other.read_bytes() == before, "show never writes"
    import flankray.store as store  # scripts/ is on the path (conftest)
    db = str(tmp_path / "store.sqlite")
    first = store.Store(db)
    try:
        r = run_driver("solve", "--db", db)
        assert r.returncode == 2 and "is in use by another run" in r.stderr, r.stderr
    finally:
        first.close()


def test_a_position_is_keyed_by_board_and_side_only():
    from flankray.lines import position_key

    board = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27
    keys = {position_key(line) for line in [
        f"{board} X", f"{board}  X -64", f"{board} X 2", f"\ufeff{board} X; D3:+2;",
        f"{board} X;"]}
    assert keys == {f"{board} X"}
    assert position_key(f"{board} O") != position_key(f"{board} X")


def test_cached_binaries_unused_for_a_day_are_pruned(tmp_path):
    from flankray.worker import PRUNE_AFTER_S, prune_binaries

    now = 1_000_000_000.0
    for name, age in [("old", PRUNE_AFTER_S + 60), ("recent", 60), ("current", PRUNE_AFTER_S * 2)]:
        d = tmp_path / name
        d.mkdir()
        (d / "flank").write_bytes(b"x")
        os.utime(d / "flank", (now - age, now - age))
    gone = prune_binaries(str(tmp_path), keep="current", now=now)
    assert gone == [str(tmp_path / "old")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current", "recent"]
    assert prune_binaries(str(tmp_path / "missing"), keep="x", now=now) == []
