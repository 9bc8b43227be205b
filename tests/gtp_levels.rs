//! Tests of the game-system commands: `flank-level` and the level table, `flank-handicap` and
//! `game::handicap_position` (exact boards), `flank-draw_offer` on positions with known exact
//! scores, `easy`'s seeded randomness, and the `--level`/`--seed` flags.

mod common;

use common::{data_file, err, flank, ok};

use flank::engine::draw::{DRAW_MARGIN, judge_draw_offer};
use flank::engine::level::{
    EASY_DEPTH, Endgame, Level, MAX_LEVEL, MAX_SOLVE_EMPTIES, MEDIUM_DEPTH, MEDIUM_SOLVE_EMPTIES,
    numeric_solve_empties,
};
use flank::engine::{Engine, EngineConfig, SearchLimits, SolveMode};
use flank::notation::parse_problem_line;
use flank::othello::Position;
use flank::othello::game::{GameError, handicap_position};
use flank::othello::square::{Color, Move};
use flank::protocol::gtp::{COMMANDS, Gtp, GtpOptions};

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 4,
        threads: 1,
    })
}

/// A session at `level` with seed `seed`; 200 ms per move, which only bounds the searches
/// (no test depends on the time).
fn gtp_with(level: Level, seed: u64) -> Gtp {
    gtp_timed(level, seed, 200)
}

/// A session at `level` with seed `seed` and `move_time_ms` per move.
fn gtp_timed(level: Level, seed: u64, move_time_ms: u64) -> Gtp {
    Gtp::new(
        engine(),
        GtpOptions {
            move_time_ms,
            level,
            seed,
            ..GtpOptions::default()
        },
    )
}

fn gtp() -> Gtp {
    gtp_with(Level::Hard, 1)
}

#[test]
fn commands_are_listed_and_known() {
    let mut g = gtp();
    let list = ok(&mut g, "list_commands");
    for c in ["flank-level", "flank-handicap", "flank-draw_offer"] {
        assert!(list.lines().any(|l| l == c), "{c} missing from {list}");
        assert!(COMMANDS.contains(&c));
        assert_eq!(ok(&mut g, &format!("known_command {c}")), "true");
    }
    assert_eq!(ok(&mut g, "known_command flank-levels"), "false");
}

#[test]
fn level_command_transcript() {
    let mut g = gtp();
    assert_eq!(g.level(), Level::Hard);
    assert_eq!(g.handle_line("7 flank-level easy").unwrap(), "=7\n\n");
    assert_eq!(g.level(), Level::Easy);
    for (arg, level) in [
        ("MEDIUM", Level::Medium),
        ("1", Level::Numeric(1)),
        ("60", Level::Numeric(60)),
        ("07", Level::Numeric(7)),
        ("Hard", Level::Hard),
    ] {
        assert_eq!(ok(&mut g, &format!("flank-level {arg}")), "");
        assert_eq!(g.level(), level);
    }
    ok(&mut g, "flank-level 12");
    let game = g.game().clone();
    for (cmd, msg) in [
        (
            "flank-level 0",
            "syntax error: bad level '0' (expected easy, medium, hard or 1-60)",
        ),
        (
            "flank-level 61",
            "syntax error: bad level '61' (expected easy, medium, hard or 1-60)",
        ),
        (
            "flank-level -1",
            "syntax error: bad level '-1' (expected easy, medium, hard or 1-60)",
        ),
        (
            "flank-level impossible",
            "syntax error: bad level 'impossible' (expected easy, medium, hard or 1-60)",
        ),
        (
            "flank-level",
            "syntax error: flank-level takes 1 argument (flank-level <level>)",
        ),
        (
            "flank-level easy hard",
            "syntax error: flank-level takes 1 argument (flank-level <level>)",
        ),
    ] {
        assert_eq!(err(&mut g, cmd), msg);
        assert_eq!(g.level(), Level::Numeric(12), "{cmd}");
        assert_eq!(g.game(), &game);
    }
    assert_eq!(
        g.handle_line("3 flank-level 99").unwrap().lines().next(),
        Some("?3 syntax error: bad level '99' (expected easy, medium, hard or 1-60)")
    );
}

#[test]
fn level_table() {
    assert_eq!(Level::default(), Level::Hard);
    let hard = Level::Hard.spec();
    assert_eq!(hard.depth, None);
    assert_eq!(hard.endgame, Endgame::Auto);
    assert!(hard.noise.is_none());
    let medium = Level::Medium.spec();
    assert_eq!(medium.depth, Some(MEDIUM_DEPTH));
    assert_eq!(medium.endgame, Endgame::AtEmpties(MEDIUM_SOLVE_EMPTIES));
    assert!(medium.noise.is_none());
    assert!((4..=6).contains(&MEDIUM_DEPTH));
    assert!((12..=14).contains(&MEDIUM_SOLVE_EMPTIES));
    let easy = Level::Easy.spec();
    assert_eq!(easy.depth, Some(EASY_DEPTH));
    assert!((1..=2).contains(&EASY_DEPTH));
    assert_eq!(easy.endgame, Endgame::Never);
    let noise = easy.noise.expect("easy is randomised");
    assert!(noise.temperature > 0.0 && noise.random_percent > 0 && noise.random_percent < 50);
    // Numeric levels: depth L, solve at min(2L, 30) empties, never random, growing with L.
    assert_eq!(MAX_LEVEL, 60);
    let mut last = 0;
    for l in 1..=MAX_LEVEL {
        let s = Level::Numeric(l).spec();
        assert_eq!(s.depth, Some(l));
        assert_eq!(s.endgame, Endgame::AtEmpties((2 * l).min(30)));
        assert_eq!(numeric_solve_empties(l), (2 * l).min(30));
        assert!(numeric_solve_empties(l) >= last);
        last = numeric_solve_empties(l);
        assert!(s.noise.is_none());
    }
    assert_eq!(numeric_solve_empties(1), 2);
    assert_eq!(numeric_solve_empties(6), 12);
    assert_eq!(numeric_solve_empties(15), 30);
    assert_eq!(numeric_solve_empties(60), 30);
    assert_eq!(MAX_SOLVE_EMPTIES, 30);
}

/// Plays a whole game with both sides at `easy` (seed `seed`) and returns the transcript.
fn easy_game(seed: u64) -> String {
    let mut g = gtp_with(Level::Easy, seed);
    let mut moves = String::new();
    let mut passes = 0;
    let mut color = Color::Black;
    while passes < 2 {
        let m = ok(&mut g, &format!("genmove {color}"));
        if m == "pass" {
            passes += 1;
        } else {
            passes = 0;
            moves.push_str(&m);
        }
        color = color.opposite();
    }
    assert!(g.game().is_over());
    moves
}

#[test]
fn easy_is_reproducible_from_the_seed_and_differs_between_seeds() {
    let a = easy_game(1);
    assert!(a.len() >= 2 * 40, "{a}");
    assert_eq!(easy_game(1), a);
    let b = easy_game(2);
    assert_eq!(easy_game(2), b);
    assert_ne!(a, b);
    assert_ne!(easy_game(12345), a);
}

#[test]
fn easy_is_not_greedy_but_medium_and_levels_are_deterministic() {
    // From the same position, easy with different seeds chooses different first replies;
    // medium (no randomness) always the same one.
    let replies = |level: Level| -> Vec<String> {
        (0..12)
            .map(|seed| {
                let mut g = gtp_with(level, seed);
                ok(&mut g, "play b f5");
                ok(&mut g, "play w d6");
                ok(&mut g, "play b c3");
                ok(&mut g, "genmove w")
            })
            .collect()
    };
    let easy = replies(Level::Easy);
    assert!(easy.iter().any(|m| m != &easy[0]), "{easy:?}");
    let medium = replies(Level::Medium);
    assert!(medium.iter().all(|m| m == &medium[0]), "{medium:?}");
    let four = replies(Level::Numeric(4));
    assert!(four.iter().all(|m| m == &four[0]), "{four:?}");
}

/// Problems with exact scores from the shared 10-empties set.
fn ten_empties(n: usize) -> Option<Vec<(Position, i32)>> {
    let text = data_file("endgame/random-10-empties-1k.txt")?;
    Some(
        text.lines()
            .filter_map(|l| parse_problem_line(l).expect("data line parses"))
            .filter_map(|p| p.expected.map(|e| (p.position, e)))
            .take(n)
            .collect(),
    )
}

#[test]
fn medium_plays_the_exact_best_move_in_the_endgame() {
    let Some(problems) = ten_empties(20) else {
        return;
    };
    let mut check = engine();
    for (pos, expected) in problems {
        assert!(pos.board.empties() <= MEDIUM_SOLVE_EMPTIES);
        let mut g = gtp_with(Level::Medium, 1);
        ok(
            &mut g,
            &format!("setboard {} {}", pos.cells(), pos.side.letter()),
        );
        let m: Move = ok(&mut g, &format!("genmove {}", pos.side))
            .parse()
            .unwrap();
        let after = pos.play(m).expect("legal move");
        let limits = SearchLimits {
            mode: SolveMode::Exact,
            ..SearchLimits::default()
        };
        let r = check.search(&after.board, &limits, &mut |_| {});
        assert!(r.exact);
        assert_eq!(-r.score, expected, "{} {m}", pos.cells());
    }
}

#[test]
fn numeric_levels_answer_legal_moves() {
    for level in ["1", "2", "5", "60", "easy", "medium"] {
        let mut g = gtp();
        ok(&mut g, &format!("flank-level {level}"));
        for color in ["b", "w", "b", "w"] {
            let before = g.game().position().board.moves();
            let m: Move = ok(&mut g, &format!("genmove {color}")).parse().unwrap();
            let sq = m.square().expect("a move at the start");
            assert!(before & sq.bit() != 0, "level {level}: {m}");
        }
    }
}

const START: &str = "---------------------------OX------XO---------------------------";

/// `START` with the given cells (index, char) replaced.
fn with(cells: &[(usize, char)]) -> String {
    let mut b: Vec<char> = START.chars().collect();
    for &(i, c) in cells {
        b[i] = c;
    }
    b.into_iter().collect()
}

#[test]
fn handicap_positions_are_exact() {
    let want_black = [
        "X--------------------------OX------XO---------------------------",
        "X--------------------------OX------XO--------------------------X",
        "X------X-------------------OX------XO--------------------------X",
        "X------X-------------------OX------XO-------------------X------X",
    ];
    let want_white = [
        "O--------------------------OX------XO---------------------------",
        "O--------------------------OX------XO--------------------------O",
        "O------O-------------------OX------XO--------------------------O",
        "O------O-------------------OX------XO-------------------O------O",
    ];
    // a1, h8, h1, a8 are cells 0, 63, 7, 56.
    let order = [0, 63, 7, 56];
    for n in 1..=4u32 {
        let k = n as usize;
        let b = handicap_position(Color::Black, n).unwrap();
        assert_eq!(b.cells(), want_black[k - 1], "black {n}");
        let marks: Vec<(usize, char)> = order[..k].iter().map(|&i| (i, 'X')).collect();
        assert_eq!(b.cells(), with(&marks));
        assert_eq!(b.side, Color::Black);
        let w = handicap_position(Color::White, n).unwrap();
        assert_eq!(w.cells(), want_white[k - 1], "white {n}");
        let marks: Vec<(usize, char)> = order[..k].iter().map(|&i| (i, 'O')).collect();
        assert_eq!(w.cells(), with(&marks));
        // Black still moves first, with the start position's four moves.
        assert_eq!(w.side, Color::Black);
        assert_eq!(w.board.moves().count_ones(), 4);
    }
    assert_eq!(
        handicap_position(Color::Black, 0),
        Err(GameError::BadHandicap(0))
    );
    assert_eq!(
        handicap_position(Color::White, 5),
        Err(GameError::BadHandicap(5))
    );
}

#[test]
fn handicap_command_transcript() {
    let mut g = gtp();
    assert_eq!(g.handle_line("4 flank-handicap w 3").unwrap(), "=4\n\n");
    assert_eq!(
        ok(&mut g, "gogui-rules_board"),
        ".......O\n........\n........\n...XO...\n...OX...\n........\n........\nO......O"
    );
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "black");
    // The corner discs count: 2 black, 5 white; the game is not over, so the empties are
    // not assigned.
    assert_eq!(ok(&mut g, "final_score"), "W+3");
    // A second handicap needs empty corners; after a move none is allowed.
    let game = g.game().clone();
    assert_eq!(
        err(&mut g, "flank-handicap b 1"),
        "handicap corner a1 is not empty"
    );
    assert_eq!(g.game(), &game);
    ok(&mut g, "play b f5");
    let game = g.game().clone();
    for (cmd, msg) in [
        ("flank-handicap b 4", "handicap only before the first move"),
        (
            "flank-handicap b",
            "syntax error: flank-handicap takes 2 arguments (flank-handicap <color> <corners>)",
        ),
        ("flank-handicap green 1", "syntax error: bad color 'green'"),
    ] {
        let m = err(&mut g, cmd);
        assert!(m.starts_with(msg), "{cmd}: {m}");
        assert_eq!(g.game(), &game);
    }
    // Undo cannot take the handicap back; clear_board does.
    ok(&mut g, "undo");
    assert_eq!(err(&mut g, "undo"), "cannot undo");
    assert_eq!(
        g.game().position(),
        &handicap_position(Color::White, 3).unwrap()
    );
    ok(&mut g, "clear_board");
    let game = g.game().clone();
    for (cmd, msg) in [
        (
            "flank-handicap b 0",
            "bad handicap 0 (expected 1-4 corners)",
        ),
        (
            "flank-handicap w 5",
            "bad handicap 5 (expected 1-4 corners)",
        ),
        (
            "flank-handicap w -1",
            "syntax error: bad count '-1' (expected a whole number)",
        ),
        (
            "flank-handicap w two",
            "syntax error: bad count 'two' (expected a whole number)",
        ),
    ] {
        assert_eq!(err(&mut g, cmd), msg);
        assert_eq!(g.game(), &game);
    }
    for n in 1..=4 {
        ok(&mut g, "clear_board");
        ok(&mut g, &format!("flank-handicap B {n}"));
        assert_eq!(
            g.game().position(),
            &handicap_position(Color::Black, n).unwrap()
        );
        assert!(g.game().history().is_empty());
    }
    // After setboard: allowed on empty corners of the new position, refused on a taken one.
    ok(&mut g, &format!("setboard -{} X", &START[1..]));
    ok(&mut g, "flank-handicap b 2");
    assert_eq!(g.game().position().cells(), with(&[(0, 'X'), (63, 'X')]));
    let taken = with(&[(63, 'O')]);
    ok(&mut g, &format!("setboard {taken} O"));
    let game = g.game().clone();
    assert_eq!(
        err(&mut g, "flank-handicap b 2"),
        "handicap corner h8 is not empty"
    );
    assert_eq!(g.game(), &game);
    ok(&mut g, "flank-handicap w 1");
    assert_eq!(g.game().position().cells(), with(&[(0, 'O'), (63, 'O')]));
    assert_eq!(g.game().side_to_move(), Color::White);
}

/// The answer to `flank-draw_offer <offerer>` in session `g`, which must leave the game as it
/// was.
fn offer(g: &mut Gtp, offerer: &str) -> String {
    let game = g.game().clone();
    let a = ok(g, &format!("flank-draw_offer {offerer}"));
    assert_eq!(g.game(), &game);
    a
}

#[test]
fn draw_offers_follow_exact_scores() {
    let Some(problems) = ten_empties(1000) else {
        return;
    };
    // The first 12 draws, 12 wins and 12 losses for the side to move.
    let pick = |f: &dyn Fn(i32) -> bool| -> Vec<(Position, i32)> {
        problems
            .iter()
            .filter(|(_, e)| f(*e))
            .take(12)
            .cloned()
            .collect()
    };
    let draws = pick(&|e| e == 0);
    let wins = pick(&|e| e > 0);
    let losses = pick(&|e| e < 0);
    assert_eq!((draws.len(), wins.len(), losses.len()), (12, 12, 12));
    let mut g = gtp();
    for (pos, e) in draws.iter().chain(&wins).chain(&losses) {
        ok(
            &mut g,
            &format!("setboard {} {}", pos.cells(), pos.side.letter()),
        );
        let mover = pos.side;
        // The mover receives the other colour's offer: accept iff the mover's score ≤ 0.
        let want = |accept: bool| if accept { "accept" } else { "decline" };
        assert_eq!(
            offer(&mut g, &mover.opposite().to_string()),
            want(*e <= 0),
            "{} to move, exact {e}",
            pos.cells()
        );
        // The other colour receives the mover's offer: accept iff its score −e ≤ 0.
        assert_eq!(offer(&mut g, &mover.to_string()), want(-*e <= 0));
    }
}

#[test]
fn draw_offers_at_game_over_and_in_a_lopsided_midgame() {
    let mut g = gtp();
    // Game over 2-2 with 60 empties: a draw, both accept.
    let draw = format!("XX{}OO X", "-".repeat(60));
    ok(&mut g, &format!("setboard {draw}"));
    assert!(g.game().is_over());
    assert_eq!(offer(&mut g, "b"), "accept");
    assert_eq!(offer(&mut g, "w"), "accept");
    // Game over (no disc can be flanked), black ahead 2-1: white accepts black's offer,
    // black declines white's.
    ok(&mut g, &format!("setboard XX{}O O", "-".repeat(61)));
    assert!(g.game().is_over());
    assert_eq!(offer(&mut g, "b"), "accept");
    assert_eq!(offer(&mut g, "w"), "decline");
    // 56 empties, black owns all four corners: black declines, white accepts.
    ok(&mut g, "clear_board");
    ok(&mut g, "flank-handicap b 4");
    assert_eq!(offer(&mut g, "w"), "decline");
    assert_eq!(offer(&mut g, "b"), "accept");
    ok(&mut g, "play b f5");
    assert_eq!(offer(&mut g, "w"), "decline");
    assert_eq!(offer(&mut g, "b"), "accept");
    // Bad input.
    let game = g.game().clone();
    assert_eq!(
        err(&mut g, "flank-draw_offer"),
        "syntax error: flank-draw_offer takes 1 argument (flank-draw_offer <color>)"
    );
    assert!(err(&mut g, "flank-draw_offer green").starts_with("syntax error: bad color"));
    assert_eq!(g.game(), &game);
}

#[test]
fn draw_judgement_scores_are_from_the_receivers_view() {
    let mut e = engine();
    // Game over, 2 black against 1 white, white to move: white's score is 1 - 2 - 61 = -62.
    let p: Position = format!("XX{}O O", "-".repeat(61)).parse().unwrap();
    assert!(p.board.is_game_over());
    let j = judge_draw_offer(&mut e, &p.board, true, 20);
    assert_eq!((j.accept, j.score, j.exact), (true, -62, true));
    let j = judge_draw_offer(&mut e, &p.board, false, 20);
    assert_eq!((j.accept, j.score, j.exact), (false, 62, true));
    // Midgame: black with four corners; the estimate decides with the margin.
    let h = handicap_position(Color::Black, 4).unwrap();
    let j = judge_draw_offer(&mut e, &h.board, true, 20);
    assert!(!j.exact && !j.accept && j.score > DRAW_MARGIN, "{j:?}");
    let j = judge_draw_offer(&mut e, &h.board, false, 20);
    assert!(!j.exact && j.accept && j.score <= -DRAW_MARGIN, "{j:?}");
}

#[test]
fn cli_level_and_seed_flags() {
    let input = "flank-level 3\ngenmove b\nquit\n";
    for args in [
        vec!["--level", "easy", "--seed", "9"],
        vec!["gtp", "--level", "medium"],
        vec!["gtp", "--level", "42", "--move-time", "100"],
    ] {
        let (code, out, _) = flank(&args, input);
        assert_eq!(code, 0, "{args:?}");
        let answers: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(answers[0], "=");
        assert!(
            ["= d3", "= c4", "= f5", "= e6"].contains(&answers[1]),
            "{out}"
        );
    }
    // Easy's first moves are a function of the seed.
    let game = "genmove b\ngenmove w\ngenmove b\ngenmove w\ngenmove b\ngenmove w\n";
    let run = |seed: &str| flank(&["--level", "easy", "--seed", seed], game).1;
    assert_eq!(run("5"), run("5"));
    for (args, reason) in [
        (
            vec!["--level", "0"],
            "flank: invalid value '0' for '--level <LEVEL>': bad level '0' (expected easy, medium, hard or 1-60) (see flank --help)",
        ),
        (
            vec!["gtp", "--seed", "x"],
            "flank: invalid value 'x' for '--seed <SEED>': expected a whole number >= 0, got 'x' (see flank gtp --help)",
        ),
    ] {
        let (code, out, err) = flank(&args, "");
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(out, "");
        assert_eq!(err.trim_end(), reason);
    }
}
