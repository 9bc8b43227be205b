//! The NBoard protocol mode: transcripts of every command, bad input that leaves the game as
//! it was, passes in GGF (implicit and trailing), clocks from the GGF, exact hint scores
//! checked against the solver, and `ping` stopping a search.

mod common;

use std::time::Duration;

use common::script::{Scripted, SharedOutput, Step};
use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::othello::Position;
use flank::othello::board::Board;
use flank::othello::square::{Color, Move};
use flank::protocol::nboard::{NBoard, NBoardOptions, run};

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 8,
        threads: 1,
    })
}

fn session() -> NBoard {
    NBoard::new(engine(), NBoardOptions::default())
}

/// The lines `nb` writes for `line`.
fn lines(nb: &mut NBoard, line: &str) -> Vec<String> {
    let mut out = Vec::new();
    nb.handle_line(line, &mut out).expect("in-memory output");
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

const START_BO: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

/// A GGF game from the start position with `moves` (GGF move tags) and a 5-minute clock.
fn ggf(moves: &str) -> String {
    format!("set game (;GM[Othello]PC[NBoard]PB[me]PW[flank]RE[?]TI[5:00]TY[8]{START_BO}{moves};)")
}

/// A board where black (to move) has no move: white a1, black b1, the rest empty.
fn blocked_board() -> String {
    let mut cells = ['-'; 64];
    cells[0] = 'O';
    cells[1] = '*';
    // The centre squares (always filled in Othello) are white's too.
    for c in [27, 28, 35, 36] {
        cells[c] = 'O';
    }
    cells.iter().collect()
}

fn position_after(transcript: &str) -> Position {
    flank::notation::parse_transcript(transcript).unwrap().1
}

/// The move of a `=== MOVE/EVAL/SECONDS` answer, and its eval.
fn go_answer(line: &str) -> (Move, f64) {
    let body = line.strip_prefix("=== ").expect("a === answer");
    let mut parts = body.split('/');
    let mv: Move = parts.next().unwrap().parse().unwrap();
    let eval: f64 = parts.next().map_or(0.0, |e| e.parse().unwrap());
    (mv, eval)
}

#[test]
fn nboard_2_names_the_engine() {
    let mut nb = session();
    assert_eq!(lines(&mut nb, "nboard 2"), ["set myname flank"]);
}

#[test]
fn go_answers_a_legal_move_and_does_not_play_it_even_twice() {
    let mut nb = session();
    assert!(lines(&mut nb, "set depth 6").is_empty());
    assert!(lines(&mut nb, &ggf("B[F5//1.2]W[d6]")).is_empty());
    let before = *nb.game().position();
    assert_eq!(before, position_after("f5d6"));
    for _ in 0..2 {
        let out = lines(&mut nb, "go");
        let (last, thinking) = out.split_last().unwrap();
        let (mv, _) = go_answer(last);
        assert!(before.play(mv).is_some() && mv != Move::Pass, "{out:?}");
        // Thinking lines come first, then the node count.
        assert!(
            thinking.last().unwrap().starts_with("nodestats "),
            "{out:?}"
        );
        for l in &thinking[..thinking.len() - 1] {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!((f[0], f[3]), ("search", "0"), "{l}");
            assert!(f[2].parse::<f64>().is_ok(), "{l}");
        }
        assert_eq!(*nb.game().position(), before);
        assert_eq!(nb.game().history().len(), 2);
    }
}

#[test]
fn move_plays_and_charges_the_movers_clock() {
    let mut nb = session();
    let g = "set game (;GM[Othello]TI[1:00]B[f5//2.5];)";
    assert!(lines(&mut nb, g).is_empty());
    assert_eq!(nb.clock_left_ms(Color::Black), Some(57_500));
    assert_eq!(nb.clock_left_ms(Color::White), Some(60_000));
    assert!(lines(&mut nb, "move D6/-0.50/1.25").is_empty());
    assert_eq!(nb.clock_left_ms(Color::White), Some(58_750));
    assert!(lines(&mut nb, "move c3").is_empty());
    assert_eq!(nb.clock_left_ms(Color::Black), Some(57_500));
    assert_eq!(*nb.game().position(), position_after("f5d6c3"));
    // Without TI there is no clock.
    assert!(lines(&mut nb, &ggf("").replace("TI[5:00]", "")).is_empty());
    assert_eq!(nb.clock_left_ms(Color::Black), None);
}

#[test]
fn bad_games_and_moves_leave_the_game_as_it_was() {
    let mut nb = session();
    assert!(lines(&mut nb, &ggf("B[f5]W[d6]")).is_empty());
    let before = *nb.game().position();
    let cases = [
        (
            "set game (;GM[Go];)",
            "status bad GGF game: not an Othello game",
        ),
        (
            "set game (;GM[Othello]B[e3];)",
            "status bad GGF game: move 1 B[e3] is illegal",
        ),
        (
            "set game (;GM[Othello]W[f5];)",
            "status bad GGF game: move 1 W[f5]: black to move",
        ),
        (
            "set game (;GM[Othello]TY[10];)",
            "status bad GGF game: unsupported board type",
        ),
        (
            "set game (;GM[Othello]B[f5]",
            "status bad GGF game: expected ';)' at the end",
        ),
        (
            "set game",
            "status bad GGF game: expected '(;' at the start",
        ),
        ("move z9", "status bad move 'z9'"),
        ("move e3", "status illegal move 'e3'"),
        ("move d6", "status occupied square d6 'd6'"),
        ("move PA", "status illegal move 'PA'"),
        ("move c3/1/soon", "status bad move time 'soon'"),
        ("set depth 0", "status bad depth '0' (expected 1-60)"),
        ("set depth deep", "status bad depth 'deep' (expected 1-60)"),
        (
            "set contempt x",
            "status bad contempt 'x' (expected centi-discs)",
        ),
        ("hint 0", "status bad hint count '0' (expected 1 or more)"),
    ];
    for (cmd, want) in cases {
        let out = lines(&mut nb, cmd);
        assert_eq!(out.len(), 1, "{cmd}: {out:?}");
        assert!(out[0].starts_with(want), "{cmd}: {out:?}");
        assert_eq!(*nb.game().position(), before, "{cmd}");
        assert_eq!(nb.game().history().len(), 2, "{cmd}");
    }
    // Unknown and empty lines are ignored.
    for cmd in ["", "   ", "bogus", "set hash 64", "nodestats", "\u{feff}"] {
        assert!(lines(&mut nb, cmd).is_empty(), "{cmd:?}");
    }
}

#[test]
fn ping_learn_contempt_and_depth() {
    let mut nb = session();
    assert_eq!(lines(&mut nb, "ping 7"), ["pong 7"]);
    assert_eq!(lines(&mut nb, "ping"), ["pong"]);
    assert_eq!(
        lines(&mut nb, "learn"),
        ["status no book to learn into", "learned"]
    );
    assert!(lines(&mut nb, "set contempt -150").is_empty());
    assert_eq!(nb.contempt(), -150);
    assert_eq!(nb.level().to_string(), "hard");
    assert!(lines(&mut nb, "set depth 99").is_empty());
    assert_eq!(nb.level().to_string(), "60");
    assert!(lines(&mut nb, "set depth 99999999999999999999").is_empty());
    assert_eq!(nb.level().to_string(), "60");
    assert!(lines(&mut nb, "set depth 12").is_empty());
    assert_eq!(nb.level().to_string(), "12");
    assert!(lines(&mut nb, "quit").is_empty());
    assert!(nb.should_quit());
}

#[test]
fn passes_implicit_trailing_and_forced() {
    let board = blocked_board();
    let mut nb = session();
    // Black is blocked at the start: `go` answers a pass.
    assert!(lines(&mut nb, &format!("set game (;GM[Othello]BO[8 {board} *];)")).is_empty());
    assert_eq!(lines(&mut nb, "go"), ["=== PA"]);
    let hint = lines(&mut nb, "hint 1");
    assert!(hint[0].starts_with("search PA -64.00 0 "), "{hint:?}");
    // A white move for a blocked black records black's pass first.
    assert!(lines(&mut nb, "move c1").is_empty());
    assert_eq!(nb.game().history().len(), 2);
    assert!(nb.game().is_over());
    // A game ending with a pass.
    let g = format!("set game (;GM[Othello]BO[8 {board} *]B[PA]W[C1]B[PA];)");
    assert!(lines(&mut nb, &g).is_empty());
    assert_eq!(nb.game().history().len(), 3);
    assert_eq!(nb.game().side_to_move(), Color::White);
    assert_eq!(lines(&mut nb, "go"), ["status game over"]);
    assert_eq!(lines(&mut nb, "hint 2"), ["status game over"]);
    // Two passes in a row end a game; a third is refused and changes nothing.
    let g3 = format!("set game (;GM[Othello]BO[8 {board} *]B[PA]W[C1]B[PA]W[PA]B[PA];)");
    assert_eq!(
        lines(&mut nb, &g3),
        ["status bad GGF game: move 5 B[PA]: a third pass in a row (two passes end the game)"]
    );
    assert!(lines(&mut nb, "move PA").is_empty());
    assert_eq!(
        lines(&mut nb, "move PA"),
        ["status a third pass in a row (two passes end the game) 'PA'"]
    );
    assert_eq!(nb.game().history().len(), 4);
    assert!(lines(&mut nb, &g).is_empty());
    assert_eq!(nb.game().history().len(), 3);
    // Every position, last first, from its side to move's view: white wins 64-0.
    let out = lines(&mut nb, "analyze");
    assert_eq!(
        out[..4],
        [
            "analysis 3 64.00",
            "analysis 2 -64.00",
            "analysis 1 64.00",
            "analysis 0 -64.00"
        ]
    );
    assert!(out[4].starts_with("nodestats "), "{out:?}");
    assert_eq!(out.len(), 5);
}

/// The first position with at most `empties` empties and at least three legal moves on the
/// line that always plays the first legal move, with the GGF tags of its moves.
fn late_position(empties: u32) -> (String, Position) {
    let mut pos = Position::start();
    let mut tags = String::new();
    while pos.board.empties() > empties || pos.board.moves().count_ones() < 3 {
        let moves = pos.board.moves();
        let mv = if moves == 0 {
            Move::Pass
        } else {
            let sq = flank::othello::square::Square::from_index(moves.trailing_zeros() as u8);
            Move::Play(sq)
        };
        let tag = if pos.side == Color::Black { "B" } else { "W" };
        let text = match mv {
            Move::Play(sq) => sq.to_upper(),
            Move::Pass => "PA".to_string(),
        };
        tags.push_str(&format!("{tag}[{text}]"));
        pos = pos.play(mv).unwrap();
    }
    assert!(!pos.board.is_game_over());
    (tags, pos)
}

/// The exact score of `board` for its side to move, by the solver.
fn exact(board: &Board) -> i32 {
    let limits = SearchLimits {
        mode: SolveMode::Exact,
        ..SearchLimits::default()
    };
    engine().search(board, &limits, &mut |_| {}).score
}

#[test]
fn hint_gives_the_best_moves_with_exact_scores_in_the_endgame() {
    let (tags, pos) = late_position(12);
    let mut nb = session();
    // Depth 8 solves at 16 empties or fewer.
    assert!(lines(&mut nb, "set depth 8").is_empty());
    assert!(lines(&mut nb, &ggf(&tags)).is_empty());
    assert_eq!(*nb.game().position(), pos);
    let out = lines(&mut nb, "hint 3");
    let (last, found) = out.split_last().unwrap();
    assert!(last.starts_with("nodestats "), "{out:?}");
    let legal = pos.board.moves().count_ones() as usize;
    let n = legal.min(3);
    let listed = &found[found.len() - n..];
    let mut best_exact = i32::MIN;
    let mut bits = pos.board.moves();
    while bits != 0 {
        let sq = flank::othello::square::Square::from_index(bits.trailing_zeros() as u8);
        bits &= bits - 1;
        let child = pos.board.make_move(sq);
        best_exact = best_exact.max(-exact(&child));
    }
    let mut previous = f64::INFINITY;
    for l in listed {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!((f[0], f[3], f[4]), ("search", "0", "100%"), "{l}");
        let mv: Move = f[1][..2].parse().unwrap();
        let eval: f64 = f[2].parse().unwrap();
        let child = pos.play(mv).expect("a legal move").board;
        assert_eq!(eval, f64::from(-exact(&child)), "{l}");
        assert!(eval <= previous, "best first: {out:?}");
        previous = eval;
    }
    let first: f64 = listed[0].split(' ').nth(2).unwrap().parse().unwrap();
    assert_eq!(first, f64::from(best_exact));
    // `go` at the same depth plays a best move and reports its exact value.
    let out = lines(&mut nb, "go");
    let (mv, eval) = go_answer(out.last().unwrap());
    assert_eq!(eval, f64::from(best_exact), "{out:?}");
    assert_eq!(f64::from(-exact(&pos.play(mv).unwrap().board)), eval);
}

#[test]
fn analyze_answers_every_position_last_first() {
    let mut nb = session();
    assert!(lines(&mut nb, "set depth 3").is_empty());
    assert!(lines(&mut nb, &ggf("B[f5]W[d6]B[c3]")).is_empty());
    let out = lines(&mut nb, "analyze");
    assert_eq!(out.len(), 5, "{out:?}");
    for (i, k) in [3, 2, 1, 0].iter().enumerate() {
        let f: Vec<&str> = out[i].split(' ').collect();
        assert_eq!(f.len(), 3, "{out:?}");
        assert_eq!(f[0], "analysis");
        assert_eq!(f[1], k.to_string());
        let v: f64 = f[2].parse().unwrap();
        assert!(v.abs() <= 64.0, "{out:?}");
    }
    assert!(out[4].starts_with("nodestats "));
}

/// Runs a session of `steps` on another thread (no clock: only a stop ends a deep search
/// soon); fails if it has not ended within 60 s. Returns the output.
fn session_watched(steps: &[Step]) -> String {
    session_watched_with(steps, NBoardOptions::default())
}

/// As [`session_watched`], with any options.
fn session_watched_with(steps: &[Step], options: NBoardOptions) -> String {
    let output = SharedOutput::default();
    let input = Scripted::new(steps, &output);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut out = output.clone();
    std::thread::spawn(move || {
        run(input, &mut out, engine(), options).expect("in-memory I/O");
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the session did not end within 60 s: the search was not stopped");
    output.text()
}

#[test]
fn a_ping_queued_behind_a_search_stops_it_too() {
    // Two `go`s sent together: the ping that stops the first (it arrives 0.5 s later) waits
    // in the queue while the second starts, and stops that one at once as well.
    let out = session_watched(&[
        Step::Send("nboard 2\nset depth 30\n"),
        Step::Send(
            "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[f5];)\n",
        ),
        Step::Send("go\ngo\n"),
        Step::Sleep(500),
        Step::Send("ping 1\n"),
        Step::Until("pong 1"),
        Step::Send("quit\n"),
    ]);
    let l: Vec<&str> = out.lines().collect();
    let answers: Vec<&&str> = l.iter().filter(|x| x.starts_with("=== ")).collect();
    assert_eq!(answers.len(), 2, "{out}");
    assert_eq!(*l.last().unwrap(), "pong 1", "{out}");
}

#[test]
fn ping_stops_learn_and_the_book_stays() {
    // A book of depth 30: learning a game searches each position for minutes unless stopped.
    let book = flank::book::Book::parse("# flank book v1 depth=30\n").unwrap();
    let book = std::sync::Arc::new(book);
    let out = session_watched_with(
        &[
            Step::Send("nboard 2\nset game (;GM[Othello]B[f5]W[d6]B[c3]W[d3]B[c4];)\n"),
            Step::Send("learn\n"),
            Step::Sleep(300),
            Step::Send("ping 1\n"),
            Step::Until("pong 1"),
            Step::Send("quit\n"),
        ],
        NBoardOptions {
            book: Some(book),
            ..NBoardOptions::default()
        },
    );
    assert_eq!(
        out,
        "set myname flank\nstatus learning stopped by new input; the book is unchanged\nlearned\npong 1\n"
    );
}

#[test]
fn ping_stops_go_hint_and_analyze() {
    // Depth 60 without a clock: each search would run for hours unless stopped.
    let out = session_watched(&[
        Step::Send("nboard 2\nset depth 60\n"),
        Step::Send(
            "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)\n",
        ),
        Step::Send("go\n"),
        Step::Sleep(300),
        Step::Send("ping 1\n"),
        Step::Until("pong 1"),
        Step::Send("hint 3\n"),
        Step::Sleep(300),
        Step::Send("ping 2\n"),
        Step::Until("pong 2"),
        Step::Send("move f5\nmove d6\nanalyze\n"),
        Step::Sleep(300),
        Step::Send("ping 3\n"),
        Step::Until("pong 3"),
        Step::Send("quit\n"),
    ]);
    let l: Vec<&str> = out.lines().collect();
    let at = |text: &str| l.iter().position(|x| x.starts_with(text)).unwrap();
    assert_eq!(l[0], "set myname flank");
    // `go` answered (a legal first move) before the pong.
    let go = at("=== ");
    assert!(go < at("pong 1"), "{out}");
    let (mv, _) = go_answer(l[go]);
    assert!(Position::start().play(mv).is_some() && mv != Move::Pass);
    // `hint` sent its lines before pong 2; `analyze` ends at once and pong 3 follows.
    assert!(
        l[at("pong 1")..at("pong 2")]
            .iter()
            .any(|x| x.starts_with("search ")),
        "{out}"
    );
    assert!(at("pong 2") < at("pong 3"));
    assert_eq!(*l.last().unwrap(), "pong 3");
}

#[test]
fn pondering_after_flanks_move_is_stopped_by_the_next_line() {
    // `go` at depth 4, the GUI plays the answer back, flank ponders without a limit until
    // `ping` arrives. The answer is found first by a session of its own (1 thread, depth 4:
    // the same answer).
    let start = "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)";
    let mut nb = session();
    lines(&mut nb, "set depth 4");
    lines(&mut nb, start);
    let (mv, _) = go_answer(lines(&mut nb, "go").last().unwrap());
    let play_back: &'static str = Box::leak(format!("move {mv}\n").into_boxed_str());
    let out = session_watched_with(
        &[
            Step::Send("nboard 2\nset depth 4\n"),
            Step::Send(
                "set game (;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *];)\n",
            ),
            Step::Send("go\n"),
            Step::Until("=== "),
            Step::Send(play_back),
            Step::Sleep(300),
            Step::Send("ping 1\n"),
            Step::Until("pong 1"),
        ],
        NBoardOptions {
            ponder: true,
            ..NBoardOptions::default()
        },
    );
    let l: Vec<&str> = out.lines().collect();
    let (answer, _) = go_answer(l.iter().find(|x| x.starts_with("=== ")).unwrap());
    assert_eq!(answer, mv);
    assert_eq!(*l.last().unwrap(), "pong 1");
}

#[test]
fn the_binary_speaks_nboard_and_ends_at_quit_or_end_of_input() {
    let (code, out, _) = common::flank(
        &["nboard", "--threads", "1", "--hash", "8"],
        "nboard 2\nset depth 2\nping 1\nhint 1\nquit\nping 2\n",
    );
    assert_eq!(code, 0);
    let l: Vec<&str> = out.lines().collect();
    assert_eq!(l[..2], ["set myname flank", "pong 1"]);
    // The start position is in the built-in book: its four first moves, as book lines.
    assert_eq!(
        l.iter().filter(|x| x.starts_with("book ")).count(),
        4,
        "{out}"
    );
    assert!(!out.contains("pong 2"), "nothing after quit is read: {out}");
    // Without the book `hint` searches.
    let (_, out, _) = common::flank(
        &["nboard", "--threads", "1", "--hash", "8", "--book", "off"],
        "nboard 2\nset depth 2\nhint 1\n",
    );
    assert!(out.lines().nth(1).unwrap().starts_with("search "), "{out}");
    let (code, out, _) = common::flank(&["nboard", "--threads", "1"], "nboard 2\nping 5");
    assert_eq!((code, out.as_str()), (0, "set myname flank\npong 5\n"));
}
