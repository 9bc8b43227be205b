//! GTP transcript tests: exact answers of `flank::protocol::gtp::run` on in-memory input, framing, every
//! command, the pass rules, undo across passes, and bad input leaving the game unchanged.
//!
//! The engine's move choice is never assumed: genmove answers are checked for legality, or
//! asked in positions with exactly one legal move.

mod common;

use common::script::{Scripted, SharedOutput, Step};
use common::{err, ok};
use flank::engine::timeman::{Clock, MAX_CLOCK_MS, MAX_MOVE_MS, TimeControl};
use flank::engine::{Engine, EngineConfig};
use flank::othello::Position;
use flank::othello::game::Game;
use flank::othello::square::{Color, Move};
use flank::protocol::gtp::{COMMANDS, Gtp, GtpOptions, MAX_LINE_BYTES, run};

/// Options for tests: 20 ms per move, so genmove stays fast whatever the search does (the
/// tests never depend on which legal move is chosen).
fn options() -> GtpOptions {
    GtpOptions {
        move_time_ms: 20,
        ..GtpOptions::default()
    }
}

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 1,
        threads: 1,
    })
}

/// Runs a whole session on `input` and returns everything written to the output.
fn session(input: &str) -> String {
    let mut out: Vec<u8> = Vec::new();
    run(input.as_bytes(), &mut out, engine(), options()).expect("in-memory I/O cannot fail");
    String::from_utf8(out).expect("answers are UTF-8")
}

fn gtp() -> Gtp {
    Gtp::new(engine(), options())
}

const START_SHOWBOARD: &str = "=
  a b c d e f g h
1 . . . . . . . . 1
2 . . . . . . . . 2
3 . . . . . . . . 3
4 . . . O X . . . 4
5 . . . X O . . . 5
6 . . . . . . . . 6
7 . . . . . . . . 7
8 . . . . . . . . 8
  a b c d e f g h
black X 2, white O 2, black to move

";

const START_RULES_BOARD: &str = "= ........
........
........
...XO...
...OX...
........
........
........

";

/// White to move and blocked; black's only move is c1 (a1 X, b1 O). Verified with the board API.
fn white_blocked() -> String {
    let s = format!("XO{} O", "-".repeat(62));
    let p: Position = s.parse().unwrap();
    assert_eq!(p.side, Color::White);
    assert!(!p.board.has_moves());
    assert_eq!(
        p.board.opponent_moves(),
        "c1".parse::<flank::Square>().unwrap().bit()
    );
    s
}

/// Black to move and blocked (a1 O; b1, a2, b2 X); white can play c1, a3 or c3.
fn black_blocked() -> String {
    let cells = format!("OX------XX{}", "-".repeat(54));
    let p: Position = format!("{cells} X").parse().unwrap();
    assert_eq!(p.side, Color::Black);
    assert!(!p.board.has_moves());
    let as_white: Position = format!("{cells} O").parse().unwrap();
    let white: Vec<String> = Game::from_position(as_white)
        .legal_moves()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(white, vec!["c1", "a3", "c3"]);
    format!("{cells} X")
}

#[test]
fn informational_commands() {
    let out = session(
        "protocol_version\nname\nversion\nknown_command genmove\nknown_command frobnicate\n\
         list_games\ngogui-rules_game_id\ngogui-rules_board_size\ngogui-rules_side_to_move\n",
    );
    let expected = format!(
        "= 2\n\n= flank\n\n= {}\n\n= true\n\n= false\n\n= Othello\n\n= Othello\n\n= 8\n\n= black\n\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(out, expected);
}

#[test]
fn list_commands_one_per_line_and_all_known() {
    let out = session("list_commands\n");
    assert_eq!(out, format!("= {}\n\n", COMMANDS.join("\n")));
    let mut g = gtp();
    for c in COMMANDS {
        assert_eq!(ok(&mut g, &format!("known_command {c}")), "true");
        assert!(out.lines().any(|l| l.trim_start_matches("= ") == c));
    }
    assert_eq!(COMMANDS.len(), 30);
}

#[test]
fn ids_comments_empty_lines_and_control_characters() {
    let out = session(
        "\n# a comment line\n   \n\t\n7 name\n8 frobnicate\n9 protocol_version # trailing comment\n\
         10\tknown_command\tplay\n11\x07 name\x1b\n",
    );
    assert_eq!(
        out,
        "=7 flank\n\n?8 unknown command\n\n=9 2\n\n=10 true\n\n=11 flank\n\n"
    );
}

#[test]
fn crlf_input() {
    let out = session("1 name\r\n\r\n2 play B F5\r\n3 gogui-rules_side_to_move\r\n");
    assert_eq!(out, "=1 flank\n\n=2\n\n=3 white\n\n");
}

#[test]
fn end_of_input_exits_even_without_newline() {
    assert_eq!(session("name"), "= flank\n\n");
    assert_eq!(session(""), "");
    assert_eq!(session("# only comments\n\n"), "");
}

#[test]
fn quit_answers_first_and_stops() {
    assert_eq!(session("1 quit\n2 name\n"), "=1\n\n");
    let mut g = gtp();
    assert!(!g.should_quit());
    assert_eq!(ok(&mut g, "quit"), "");
    assert!(g.should_quit());
}

#[test]
fn boardsize_komi_set_game() {
    let out = session(
        "boardsize 8\nboardsize 19\nboardsize eight\nkomi 6.5\nset_game Othello\nset_game Go\n\
         1 set_game\n",
    );
    assert_eq!(
        out,
        "=\n\n? unacceptable size\n\n\
         ? syntax error: bad board size 'eight' (expected an integer)\n\n=\n\n=\n\n\
         ? unsupported game\n\n?1 syntax error: set_game takes 1 argument (set_game <game>)\n\n"
    );
}

#[test]
fn boardsize_any_integer_but_8_is_unacceptable() {
    let mut g = gtp();
    ok(&mut g, "play b f5");
    let before = g.game().clone();
    let huge = "9".repeat(10_000);
    for size in [
        "-1",
        "0",
        &huge,
        "19",
        "-8",
        "+9",
        "99999999999999999999999999",
        "-99999999999999999999999999",
        "18446744073709551616",
    ] {
        assert_eq!(
            err(&mut g, &format!("boardsize {size}")),
            "unacceptable size"
        );
        assert_eq!(g.game(), &before, "boardsize {size}");
    }
    for (size, shown) in [
        ("8.0", "8.0"),
        ("-", "-"),
        ("+", "+"),
        ("1e3", "1e3"),
        ("--8", "--8"),
        ("x8", "x8"),
        (
            &format!("{}x", "9".repeat(40)),
            "99999999999999999999999999999999…",
        ),
    ] {
        assert_eq!(
            err(&mut g, &format!("boardsize {size}")),
            format!("syntax error: bad board size '{shown}' (expected an integer)")
        );
        assert_eq!(g.game(), &before, "boardsize {size}");
    }
    // 8 in any integer spelling clears the board.
    for size in ["8", "+8", "008"] {
        assert_ne!(g.game(), &Game::new());
        ok(&mut g, &format!("boardsize {size}"));
        assert_eq!(g.game(), &Game::new(), "boardsize {size}");
        ok(&mut g, "play b f5");
    }
}

#[test]
fn komi_needs_one_number() {
    let out = session(
        "komi 6.5\nkomi -3\nkomi 0\nkomi\nkomi abc\nkomi nan\nkomi inf\nkomi 1 2\n\
         gogui-rules_side_to_move\n",
    );
    assert_eq!(
        out,
        "=\n\n=\n\n=\n\n\
         ? syntax error: komi takes 1 argument (komi <komi>)\n\n\
         ? syntax error: bad komi 'abc' (expected a number)\n\n\
         ? syntax error: bad komi 'nan' (expected a number)\n\n\
         ? syntax error: bad komi 'inf' (expected a number)\n\n\
         ? syntax error: komi takes 1 argument (komi <komi>)\n\n\
         = black\n\n"
    );
}

#[test]
fn wrong_argument_counts_are_syntax_errors() {
    let mut g = gtp();
    ok(&mut g, "play b f5");
    let before = g.game().clone();
    let cases: &[(&str, &str)] = &[
        (
            "play w d6 extra junk",
            "play takes 2 arguments (play <color> <move>)",
        ),
        (
            "play w d6 x",
            "play takes 2 arguments (play <color> <move>)",
        ),
        ("play w", "play takes 2 arguments (play <color> <move>)"),
        ("undo 3", "undo takes no arguments"),
        ("genmove w b", "genmove takes 1 argument (genmove <color>)"),
        (
            "reg_genmove w b",
            "reg_genmove takes 1 argument (reg_genmove <color>)",
        ),
        ("name extra", "name takes no arguments"),
        ("clear_board now", "clear_board takes no arguments"),
        ("quit now", "quit takes no arguments"),
        ("protocol_version 2", "protocol_version takes no arguments"),
        ("version x", "version takes no arguments"),
        ("list_commands all", "list_commands takes no arguments"),
        ("showboard x", "showboard takes no arguments"),
        ("final_score x", "final_score takes no arguments"),
        ("list_games x", "list_games takes no arguments"),
        (
            "known_command",
            "known_command takes 1 argument (known_command <command>)",
        ),
        (
            "known_command play genmove",
            "known_command takes 1 argument (known_command <command>)",
        ),
        (
            "boardsize 8 8",
            "boardsize takes 1 argument (boardsize <size>)",
        ),
        ("komi 6.5 7", "komi takes 1 argument (komi <komi>)"),
        (
            "set_game Othello now",
            "set_game takes 1 argument (set_game <game>)",
        ),
        (
            "time_settings 10 0 0 0",
            "time_settings takes 3 arguments (time_settings <main> <byo-yomi> <stones>)",
        ),
        (
            "time_left b 10 0 0",
            "time_left takes 3 arguments (time_left <color> <seconds> <stones>)",
        ),
        (
            "gogui-rules_board x",
            "gogui-rules_board takes no arguments",
        ),
        (
            "gogui-rules_legal_moves x",
            "gogui-rules_legal_moves takes no arguments",
        ),
        (
            "GOGUI-RULES_GAME_ID x",
            "gogui-rules_game_id takes no arguments",
        ),
        (
            "gogui-rules_board_size 8",
            "gogui-rules_board_size takes no arguments",
        ),
        (
            "gogui-rules_side_to_move x",
            "gogui-rules_side_to_move takes no arguments",
        ),
        (
            "gogui-rules_final_result x",
            "gogui-rules_final_result takes no arguments",
        ),
    ];
    for (cmd, msg) in cases {
        assert_eq!(err(&mut g, cmd), format!("syntax error: {msg}"), "{cmd}");
        assert_eq!(g.game(), &before, "{cmd} changed the game");
        assert!(!g.should_quit(), "{cmd}");
    }
    // A clock command with extra arguments leaves the clock alone.
    assert_eq!(g.time().control(), TimeControl::PerMove);
    // In a session: the bad quit does not end it, the good one does.
    assert_eq!(
        session("quit now\n7 undo 3\nquit\nname\n"),
        "? syntax error: quit takes no arguments\n\n\
         ?7 syntax error: undo takes no arguments\n\n=\n\n"
    );
}

#[test]
fn showboard_and_rules_board() {
    assert_eq!(session("showboard\n"), START_SHOWBOARD);
    assert_eq!(session("gogui-rules_board\n"), START_RULES_BOARD);
    let out = session("play b f5\ngogui-rules_board\ngogui-rules_legal_moves\nfinal_score\n");
    assert_eq!(
        out,
        "=\n\n= ........\n........\n........\n...XXX..\n...OX...\n........\n........\n........\n\n\
         = F4 D6 F6\n\n= B+3\n\n"
    );
}

#[test]
fn start_position_rules() {
    let out = session("gogui-rules_legal_moves\nfinal_score\ngogui-rules_final_result\n");
    assert_eq!(out, "= D3 C4 F5 E6\n\n= 0\n\n= Game not over\n\n");
}

#[test]
fn clear_board_restores_start() {
    let out = session("play b f5\nplay w f6\nclear_board\nshowboard\nundo\n");
    assert_eq!(
        out,
        format!("=\n\n=\n\n=\n\n{START_SHOWBOARD}? cannot undo\n\n")
    );
}

#[test]
fn undo_at_start_and_after_setboard() {
    assert_eq!(
        session("undo\n5 undo\n"),
        "? cannot undo\n\n?5 cannot undo\n\n"
    );
    let out = session(&format!("play b f5\nsetboard {}\nundo\n", white_blocked()));
    assert_eq!(out, "=\n\n=\n\n? cannot undo\n\n");
}

#[test]
fn play_and_undo() {
    let mut g = gtp();
    ok(&mut g, "play B F5");
    ok(&mut g, "play white d6");
    ok(&mut g, "play b C3");
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "white");
    ok(&mut g, "undo");
    ok(&mut g, "undo");
    ok(&mut g, "undo");
    assert_eq!(
        ok(&mut g, "showboard"),
        START_SHOWBOARD[1..START_SHOWBOARD.len() - 2]
    );
    assert_eq!(err(&mut g, "undo"), "cannot undo");
}

#[test]
fn setboard_accepts_spaced_cells_and_prints_position() {
    let mut g = gtp();
    ok(
        &mut g,
        "setboard ........ ........ ........ ...OX... ...XO... ........ ........ ........ O",
    );
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "white");
    assert_eq!(ok(&mut g, "gogui-rules_legal_moves"), "E3 F4 C5 D6");
    assert_eq!(
        g.game().position().to_string(),
        "---------------------------OX------XO--------------------------- O"
    );
    ok(
        &mut g,
        "setboard ---------------------------OX------XO--------------------------- X",
    );
    assert_eq!(
        ok(&mut g, "showboard"),
        START_SHOWBOARD[1..START_SHOWBOARD.len() - 2]
    );
}

#[test]
fn genmove_answers_are_legal_and_played() {
    let mut g = gtp();
    let mv = ok(&mut g, "genmove b");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{mv}");
    assert_eq!(mv, mv.to_ascii_lowercase());
    let mut mirror = Game::new();
    mirror.play(Color::Black, mv.parse().unwrap()).unwrap();
    assert_eq!(g.game().position(), mirror.position());
    assert_eq!(err(&mut g, "genmove b"), "wrong color: white to move");
    assert_eq!(g.game().position(), mirror.position());
    // Whole game of genmoves, checked move by move against a mirror game.
    let mut c = Color::White;
    let mut passes = 0;
    while passes < 2 {
        let side = if c == Color::Black { "b" } else { "w" };
        let answer = ok(&mut g, &format!("genmove {side}"));
        let m: Move = answer.parse().expect("genmove answers a move");
        if m == Move::Pass {
            assert!(!mirror.has_legal_move(c), "{c} passed with a move");
            passes += 1;
        } else {
            passes = 0;
        }
        mirror.play(c, m).expect("genmove answers a legal move");
        assert_eq!(g.game().position(), mirror.position());
        c = c.opposite();
    }
    assert!(mirror.is_over());
    assert_eq!(ok(&mut g, "final_score"), mirror.final_score_text());
    assert_eq!(ok(&mut g, "gogui-rules_legal_moves"), "");
    // At game over genmove keeps answering pass.
    let side = if c == Color::Black { "b" } else { "w" };
    assert_eq!(ok(&mut g, &format!("genmove {side}")), "pass");
}

#[test]
fn rule1_pass_only_when_blocked() {
    // At the start black has moves: pass is illegal and changes nothing.
    let out = session("play b pass\nplay B PASS\nplay b pa\ngogui-rules_side_to_move\nundo\n");
    assert_eq!(
        out,
        "? illegal move\n\n? illegal move\n\n? illegal move\n\n= black\n\n? cannot undo\n\n"
    );
    // White blocked: every pass spelling is accepted for white, and is one undo step.
    for spelling in ["pass", "PASS", "Pa", "ps"] {
        let out = session(&format!(
            "setboard {}\ngogui-rules_legal_moves\nplay W {spelling}\ngogui-rules_side_to_move\n\
             gogui-rules_legal_moves\nundo\ngogui-rules_side_to_move\nundo\n",
            white_blocked()
        ));
        assert_eq!(
            out,
            "=\n\n= pass\n\n=\n\n= black\n\n= C1\n\n=\n\n= white\n\n? cannot undo\n\n"
        );
    }
}

#[test]
fn rule1_pass_at_game_over() {
    let over = format!("XXX{} O", "-".repeat(61));
    let p: Position = over.parse().unwrap();
    assert!(p.board.is_game_over());
    let out = session(&format!(
        "setboard {over}\ngogui-rules_legal_moves\nplay w pass\nplay b pass\nfinal_score\n\
         gogui-rules_final_result\nundo\nundo\nundo\n"
    ));
    assert_eq!(
        out,
        "=\n\n=\n\n=\n\n=\n\n= B+64\n\n= Black wins 3-0 (B+64)\n\n=\n\n=\n\n? cannot undo\n\n"
    );
}

#[test]
fn rule2_play_for_the_other_side_records_the_pass() {
    // White to move but blocked: `play b c1` records white's pass, then c1; two undo steps.
    let mut g = gtp();
    ok(&mut g, &format!("setboard {}", white_blocked()));
    let before = ok(&mut g, "gogui-rules_board");
    ok(&mut g, "play b c1");
    assert_eq!(g.game().history().len(), 2);
    assert_eq!(g.game().history()[0].mv, Move::Pass);
    assert_eq!(g.game().history()[0].color, Color::White);
    assert_eq!(
        ok(&mut g, "gogui-rules_board").lines().next(),
        Some("........")
    );
    assert_eq!(
        ok(&mut g, "gogui-rules_board").lines().last(),
        Some("XXX.....")
    );
    assert_eq!(ok(&mut g, "final_score"), "B+64");
    assert_eq!(
        ok(&mut g, "gogui-rules_final_result"),
        "Black wins 3-0 (B+64)"
    );
    ok(&mut g, "undo");
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "black");
    assert_eq!(ok(&mut g, "gogui-rules_board"), before);
    ok(&mut g, "undo");
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "white");
    assert_eq!(err(&mut g, "undo"), "cannot undo");
    // An illegal move for the other side does not record the pass either.
    assert_eq!(err(&mut g, "play b h8"), "illegal move");
    assert_eq!(g.game().history().len(), 0);
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "white");
    // When the side to move is not blocked, playing for the other colour is refused.
    let out = session("play w d3\nplay w pass\ngogui-rules_side_to_move\n");
    assert_eq!(
        out,
        "? wrong color: black to move\n\n? wrong color: black to move\n\n= black\n\n"
    );
}

#[test]
fn rule3_genmove_for_the_other_side_inserts_the_pass() {
    // Forced: white to move, blocked; black's only move is c1.
    let out = session(&format!(
        "setboard {}\ngenmove b\ngogui-rules_legal_moves\ngenmove w\ngenmove b\nundo\nundo\nundo\n\
         gogui-rules_side_to_move\nundo\ngogui-rules_side_to_move\nundo\n",
        white_blocked()
    ));
    // genmove b: pass inserted, c1 played (game over). genmove w / b: passes recorded.
    assert_eq!(
        out,
        "=\n\n= c1\n\n=\n\n= pass\n\n= pass\n\n=\n\n=\n\n=\n\n= black\n\n=\n\n= white\n\n\
         ? cannot undo\n\n"
    );
    // Not forced: black to move, blocked; genmove w picks one of c1, a3, c3.
    let mut g = gtp();
    ok(&mut g, &format!("setboard {}", black_blocked()));
    let before = ok(&mut g, "gogui-rules_board");
    assert_eq!(ok(&mut g, "gogui-rules_legal_moves"), "pass");
    let mv = ok(&mut g, "genmove w");
    assert!(["c1", "a3", "c3"].contains(&mv.as_str()), "{mv}");
    assert_eq!(g.game().history().len(), 2);
    ok(&mut g, "undo");
    ok(&mut g, "undo");
    assert_eq!(ok(&mut g, "gogui-rules_board"), before);
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "black");
    // genmove for the wrong colour when the side to move has moves.
    assert_eq!(
        session("genmove w\n3 genmove white\n"),
        "? wrong color: black to move\n\n?3 wrong color: black to move\n\n"
    );
}

#[test]
fn rule4_genmove_when_blocked_records_a_pass() {
    let out = session(&format!(
        "setboard {}\ngenmove b\ngogui-rules_side_to_move\ngogui-rules_legal_moves\nundo\n\
         gogui-rules_side_to_move\n",
        black_blocked()
    ));
    assert_eq!(
        out,
        "=\n\n= pass\n\n= white\n\n= C1 A3 C3\n\n=\n\n= black\n\n"
    );
}

#[test]
fn reg_genmove_does_not_play() {
    let out = session(&format!(
        "setboard {}\ngogui-rules_board\nreg_genmove b\nreg_genmove w\nreg_genmove B\n\
         gogui-rules_board\ngogui-rules_side_to_move\nundo\n",
        white_blocked()
    ));
    let board =
        "= ........\n........\n........\n........\n........\n........\n........\nXO......\n\n";
    assert_eq!(
        out,
        format!("=\n\n{board}= c1\n\n= pass\n\n= c1\n\n{board}= white\n\n? cannot undo\n\n")
    );
    let mut g = gtp();
    let mv = ok(&mut g, "reg_genmove b");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{mv}");
    assert_eq!(g.game(), &Game::new());
    assert_eq!(err(&mut g, "reg_genmove w"), "wrong color: black to move");
}

#[test]
fn bad_input_leaves_the_game_unchanged() {
    let mut g = gtp();
    ok(&mut g, "play b f5");
    ok(&mut g, "play w d6");
    let board = ok(&mut g, "showboard");
    let before = g.game().clone();
    let cases: &[(&str, &str)] = &[
        ("frobnicate", "unknown command"),
        (
            "play b z9",
            "syntax error: bad move 'z9' (expected a1-h8 or pass)",
        ),
        (
            "play red c3",
            "syntax error: bad color 'red' (expected b, black, w, white, x or o)",
        ),
        (
            "play b",
            "syntax error: play takes 2 arguments (play <color> <move>)",
        ),
        (
            "play",
            "syntax error: play takes 2 arguments (play <color> <move>)",
        ),
        ("play b f5", "occupied square f5"),
        ("play b a1", "illegal move"),
        ("play b pass", "illegal move"),
        ("play w c3", "wrong color: black to move"),
        ("genmove w", "wrong color: black to move"),
        (
            "genmove",
            "syntax error: genmove takes 1 argument (genmove <color>)",
        ),
        (
            "genmove purple",
            "syntax error: bad color 'purple' (expected b, black, w, white, x or o)",
        ),
        (
            "reg_genmove",
            "syntax error: reg_genmove takes 1 argument (reg_genmove <color>)",
        ),
        (
            "setboard",
            "syntax error: expected setboard <64 cells> <side to move>",
        ),
        (
            "setboard ----",
            "syntax error: board string has 4 cells, expected 64 then the side to move",
        ),
        (
            "setboard --z",
            "syntax error: expected a 64-cell board string (a1..h8, then the side to move), got '--z' (3 characters)",
        ),
        (
            "setboard hello",
            "syntax error: expected a 64-cell board string (a1..h8, then the side to move), got 'hello' (5 characters)",
        ),
        (
            "setboard -------------------z-------------------------------------------- X",
            "syntax error: bad board cell 'z' at cell 20 (expected X x * B b, O o W w 0, - .)",
        ),
        ("boardsize 19", "unacceptable size"),
        (
            "boardsize",
            "syntax error: boardsize takes 1 argument (boardsize <size>)",
        ),
        ("set_game Go", "unsupported game"),
        (
            "known_command",
            "syntax error: known_command takes 1 argument (known_command <command>)",
        ),
        (
            "time_settings 10 x 0",
            "syntax error: bad time 'x' (expected seconds)",
        ),
        (
            "time_settings 10 0",
            "syntax error: time_settings takes 3 arguments (time_settings <main> <byo-yomi> <stones>)",
        ),
        (
            "time_left b 10 -1",
            "syntax error: bad count '-1' (expected a whole number)",
        ),
        (
            "time_left q 10 0",
            "syntax error: bad color 'q' (expected b, black, w, white, x or o)",
        ),
    ];
    let no_side = format!("setboard {}", "-".repeat(64));
    let no_side_case = [(
        no_side.as_str(),
        "syntax error: board string lacks the side to move (X or O)",
    )];
    for (cmd, msg) in cases.iter().chain(no_side_case.iter()) {
        assert_eq!(err(&mut g, cmd), *msg, "{cmd}");
        assert_eq!(g.game(), &before, "{cmd} changed the game");
        assert_eq!(ok(&mut g, "showboard"), board, "{cmd}");
    }
    // With an id, the same failures carry it.
    assert_eq!(
        g.handle_line("42 play b a1"),
        Some("?42 illegal move\n\n".to_string())
    );
    assert_eq!(
        g.handle_line("43"),
        Some("?43 syntax error: expected a command after the id\n\n".to_string())
    );
    assert_eq!(g.game(), &before);
}

#[test]
fn time_commands_are_accepted_and_genmove_stays_legal() {
    let out = session(
        "time_settings 300 0 0\ntime_left b 12.5 0\ntime_left W 30 0\ntime_settings 0 60 10\n\
         time_left black 45.25 7\ntime_settings 10 5 0\n",
    );
    assert_eq!(out, "=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n");
    let mut g = gtp();
    ok(&mut g, "time_settings 2 0 0");
    assert_eq!(g.time().control(), TimeControl::Absolute { main_ms: 2000 });
    ok(&mut g, "time_left b 1.5 0");
    assert_eq!(
        g.time().clock(Color::Black),
        Clock {
            remaining_ms: 1500,
            stones_left: 0
        }
    );
    let mv = ok(&mut g, "genmove b");
    assert!(["d3", "c4", "f5", "e6"].contains(&mv.as_str()), "{mv}");
    // Black's thinking time is charged to black only.
    assert_eq!(g.time().clock(Color::White).remaining_ms, 2000);
    ok(&mut g, "time_settings 0 60 10");
    assert_eq!(
        g.time().clock(Color::White),
        Clock {
            remaining_ms: 60_000,
            stones_left: 10
        }
    );
    ok(&mut g, "time_left w 7.25 3");
    assert_eq!(
        g.time().clock(Color::White),
        Clock {
            remaining_ms: 7250,
            stones_left: 3
        }
    );
    // "No time limit": per-move time again.
    ok(&mut g, "time_settings 10 5 0");
    assert_eq!(g.time().control(), TimeControl::NoLimit);
}

#[test]
fn fixed_depth_option_answers_legal_moves() {
    let opts = GtpOptions {
        depth: Some(1),
        verbose: true,
        ..GtpOptions::default()
    };
    assert_eq!(GtpOptions::default().move_time_ms, 1000);
    let mut out: Vec<u8> = Vec::new();
    run(
        "genmove b\ngenmove w\ngogui-rules_side_to_move\n".as_bytes(),
        &mut out,
        engine(),
        opts,
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    let answers: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(answers.len(), 4, "{out:?}");
    let mut mirror = Game::new();
    for (a, c) in answers[..2].iter().zip([Color::Black, Color::White]) {
        let m: Move = a.strip_prefix("= ").expect("success").parse().unwrap();
        mirror.play(c, m).expect("legal");
    }
    assert_eq!(answers[2], "= black");
    assert_eq!(answers[3], "");
}

#[test]
fn two_sessions_side_by_side() {
    // GoGui runs a second copy as referee: sessions share nothing.
    let mut a = gtp();
    let mut b = gtp();
    ok(&mut a, "play b f5");
    assert_eq!(ok(&mut b, "gogui-rules_side_to_move"), "black");
    assert_eq!(ok(&mut a, "gogui-rules_side_to_move"), "white");
}

#[test]
fn huge_clock_values_are_clamped_and_genmove_answers() {
    let max = MAX_CLOCK_MS;
    let mut g = gtp();
    for (cmd, control) in [
        (
            "time_settings 1e15 0 0",
            TimeControl::Absolute { main_ms: max },
        ),
        (
            "time_settings 1e300 0 0",
            TimeControl::Absolute { main_ms: max },
        ),
        (
            "time_settings 18446744073709551615 0 0",
            TimeControl::Absolute { main_ms: max },
        ),
        (
            "time_settings 0 1e300 1",
            TimeControl::Canadian {
                main_ms: 0,
                byo_ms: max,
                byo_stones: 1,
            },
        ),
        ("time_settings 1e300 1e300 0", TimeControl::NoLimit),
    ] {
        ok(&mut g, cmd);
        assert_eq!(g.time().control(), control, "{cmd}");
    }
    ok(&mut g, "time_settings 300 0 0");
    ok(&mut g, "time_left b 1e300 1");
    assert_eq!(
        g.time().clock(Color::Black),
        Clock {
            remaining_ms: max,
            stones_left: 1
        }
    );
    ok(&mut g, "time_left w -1e300 0");
    assert_eq!(g.time().clock(Color::White).remaining_ms, 0);
    // Every budget is capped at an hour per move, whatever the clock.
    let start = Position::start().board;
    for color in [Color::Black, Color::White] {
        assert!(g.time().budget(color, &start).hard_ms <= MAX_MOVE_MS);
    }
    // Non-finite times are syntax errors and change nothing.
    let before = g.time().clone();
    for (cmd, shown) in [
        ("time_settings nan 0 0", "nan"),
        ("time_settings inf 0 0", "inf"),
        ("time_settings 0 -inf 1", "-inf"),
        ("time_settings 0 Infinity 1", "Infinity"),
        ("time_left b NaN 0", "NaN"),
        ("time_left w 1e999 0", "1e999"),
    ] {
        assert_eq!(
            err(&mut g, cmd),
            format!("syntax error: bad time '{shown}' (expected seconds)"),
            "{cmd}"
        );
        assert_eq!(g.time().control(), before.control(), "{cmd}");
        assert_eq!(g.time().clock(Color::Black), before.clock(Color::Black));
        assert_eq!(g.time().clock(Color::White), before.clock(Color::White));
    }
    // genmove under a huge clock answers (a fixed depth bounds the search: without it the
    // engine may use its full hour), in a session of its own.
    let opts = GtpOptions {
        depth: Some(2),
        ..options()
    };
    for clock in [
        "time_settings 1e15 0 0",
        "time_settings 18446744073709551615 0 0",
        "time_settings 0 1e300 1",
        "time_left b 1e300 1",
    ] {
        let mut out: Vec<u8> = Vec::new();
        run(
            format!("{clock}\ngenmove b\ngenmove w\n").as_bytes(),
            &mut out,
            engine(),
            opts.clone(),
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let answers: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(answers.len(), 4, "{clock}: {out:?}");
        assert_eq!(answers[0], "=", "{clock}");
        let mut mirror = Game::new();
        for (a, c) in answers[1..3].iter().zip([Color::Black, Color::White]) {
            let m: Move = a.strip_prefix("= ").expect("success").parse().unwrap();
            mirror.play(c, m).expect("legal");
        }
    }
}

#[test]
fn echoed_user_text_is_clipped() {
    let long_move = "z".repeat(100_000);
    let mut g = gtp();
    let z32 = "z".repeat(32);
    let cases = [
        (
            format!("play b {long_move}"),
            format!("syntax error: bad move '{z32}…' (expected a1-h8 or pass)"),
        ),
        (
            format!("play {long_move} f5"),
            format!("syntax error: bad color '{z32}…' (expected b, black, w, white, x or o)"),
        ),
        (
            format!("genmove {long_move}"),
            format!("syntax error: bad color '{z32}…' (expected b, black, w, white, x or o)"),
        ),
        (
            format!("time_settings {long_move} 0 0"),
            format!("syntax error: bad time '{z32}…' (expected seconds)"),
        ),
        (
            format!("time_left b 10 {long_move}"),
            format!("syntax error: bad count '{z32}…' (expected a whole number)"),
        ),
        (
            format!("komi {long_move}"),
            format!("syntax error: bad komi '{z32}…' (expected a number)"),
        ),
        (
            format!("setboard {} {long_move}", "-".repeat(64)),
            format!("syntax error: bad side to move '{z32}…' (expected X or O)"),
        ),
        // Exactly 32 characters are echoed whole; multi-byte characters are not split.
        (
            format!("play b {z32}"),
            format!("syntax error: bad move '{z32}' (expected a1-h8 or pass)"),
        ),
        (
            format!("play b {}", "é".repeat(40)),
            format!(
                "syntax error: bad move '{}…' (expected a1-h8 or pass)",
                "é".repeat(32)
            ),
        ),
    ];
    for (cmd, msg) in &cases {
        assert_eq!(&err(&mut g, cmd), msg);
        assert_eq!(g.game(), &Game::new());
    }
    // Unknown command names are never echoed.
    assert_eq!(err(&mut g, &long_move), "unknown command");
}

#[test]
fn over_long_lines_are_refused_without_buffering() {
    let huge = "z".repeat(MAX_LINE_BYTES + 10);
    // Too long before its comment: refused (with the id), the session goes on.
    let input = format!(
        "5 play b {huge}\nplay b f5\n{huge}\n6 {huge} # comment\ngogui-rules_side_to_move\n"
    );
    assert_eq!(
        session(&input),
        "?5 syntax error: line too long\n\n=\n\n? syntax error: line too long\n\n\
         ?6 syntax error: line too long\n\n= white\n\n"
    );
    // A long comment does not count: the command before it runs.
    let input = format!("7 play b f5 # {huge}\n# {huge}\ngogui-rules_side_to_move\n");
    assert_eq!(session(&input), "=7\n\n= white\n\n");
    // Exactly the limit is a line like any other (an unknown command here).
    let input = format!("{}\nname\n", "q".repeat(MAX_LINE_BYTES));
    assert_eq!(session(&input), "? unknown command\n\n= flank\n\n");
    // A too-long last line without a newline is answered too.
    assert_eq!(
        session(&format!("name\n{huge}")),
        "= flank\n\n? syntax error: line too long\n\n"
    );
    // The same through handle_line.
    let mut g = gtp();
    assert_eq!(
        g.handle_line(&format!("9 play b {huge}")),
        Some("?9 syntax error: line too long\n\n".to_string())
    );
    assert_eq!(g.handle_line(&format!("# {huge}")), None);
    assert_eq!(g.game(), &Game::new());
}

#[test]
fn byte_order_marks_are_ignored() {
    // At the start of input, as raw bytes, and at the start of later lines.
    let mut input = b"\xEF\xBB\xBFname\n".to_vec();
    input.extend_from_slice(
        "\u{feff}1 play b f5\r\n\u{feff}\n2 gogui-rules_side_to_move\n".as_bytes(),
    );
    let mut out: Vec<u8> = Vec::new();
    run(&input[..], &mut out, engine(), options()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "= flank\n\n=1\n\n=2 white\n\n"
    );
    let mut g = gtp();
    assert_eq!(ok(&mut g, "\u{feff}protocol_version"), "2");
}

/// Runs a session on `steps` with `move_time_ms` per move (an hour: only a stop can end a
/// search soon) on another thread; fails if it has not ended after 60 s (a search that was
/// not stopped would run for an hour). Returns the output.
fn session_watched(steps: &[Step], move_time_ms: u64) -> String {
    session_watched_with(
        steps,
        GtpOptions {
            move_time_ms,
            ..GtpOptions::default()
        },
    )
}

/// As [`session_watched`], with any options.
fn session_watched_with(steps: &[Step], options: GtpOptions) -> String {
    let output = SharedOutput::default();
    let input = Scripted::new(steps, &output);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut out = output.clone();
    std::thread::spawn(move || {
        run(input, &mut out, engine(), options).expect("in-memory I/O cannot fail");
        let _ = tx.send(());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the session did not end within 60 s: the search was not stopped");
    output.text()
}

const FIRST_MOVES: [&str; 4] = ["d3", "c4", "f5", "e6"];

/// The answers of a transcript, without their blank lines.
fn answers(out: &str) -> Vec<&str> {
    out.split_terminator("\n\n").collect()
}

#[test]
fn a_line_arriving_during_genmove_stops_it_and_is_then_handled() {
    // Each command waits for the answer before it (only then is the next search sure to have
    // started when the line 300 ms later arrives).
    let out = session_watched(
        &[
            Step::Send("1 genmove b\n"),
            Step::Sleep(300),
            Step::Send("2 gogui-rules_side_to_move\n"),
            Step::Until("=2 "),
            Step::Send("3 reg_genmove w\n"),
            Step::Sleep(300),
            Step::Send("4 name\n"),
        ],
        MAX_MOVE_MS,
    );
    let a = answers(&out);
    assert_eq!(a.len(), 4, "{out:?}");
    let m = a[0].strip_prefix("=1 ").expect("genmove answered");
    assert!(FIRST_MOVES.contains(&m), "{out:?}");
    assert_eq!(a[1], "=2 white");
    // reg_genmove for white after black's move: a legal white move, found by a replay.
    let mut g = gtp();
    ok(&mut g, &format!("play b {m}"));
    let w = a[2].strip_prefix("=3 ").expect("reg_genmove answered");
    ok(&mut g, &format!("play w {w}"));
    assert_eq!(a[3], "=4 flank");
}

#[test]
fn end_of_input_during_genmove_stops_it_and_ends_the_session() {
    let out = session_watched(
        &[Step::Send("genmove b\n"), Step::Sleep(300), Step::Send("")],
        MAX_MOVE_MS,
    );
    let a = answers(&out);
    assert_eq!(a.len(), 1, "{out:?}");
    assert!(
        FIRST_MOVES.contains(&a[0].trim_start_matches("= ")),
        "{out:?}"
    );
}

#[test]
fn a_line_arriving_during_flank_hint_stops_it() {
    let out = session_watched(
        &[
            Step::Send("flank-hint 4\n"),
            Step::Sleep(300),
            Step::Send("showboard\n"),
        ],
        MAX_MOVE_MS,
    );
    let a = answers(&out);
    assert_eq!(a.len(), 2, "{out:?}");
    let lines: Vec<&str> = a[0].trim_start_matches("= ").lines().collect();
    let mut moves: Vec<&str> = lines.iter().map(|l| l.split(' ').next().unwrap()).collect();
    moves.sort();
    assert_eq!(moves, ["c4", "d3", "e6", "f5"], "{out:?}");
    // Nothing was played.
    assert_eq!(format!("{}\n\n", a[1]), START_SHOWBOARD);
}

#[test]
fn pondering_runs_between_commands_and_the_next_line_stops_it() {
    // With --ponder the session thinks after each genmove answer, without a time limit; only
    // the next line ends that, and it is answered at once (else the session would not end
    // within 60 s). The game goes on as usual.
    let out = session_watched_with(
        &[
            Step::Send("1 genmove b\n"),
            Step::Until("=1 "),
            Step::Sleep(300),
            Step::Send("2 play w pass\n"),
            Step::Until("?2"),
            Step::Send("3 gogui-rules_side_to_move\n"),
            Step::Until("=3 "),
            Step::Send("4 genmove w\n"),
            Step::Until("=4 "),
            Step::Sleep(300),
            Step::Send("5 name\n"),
        ],
        GtpOptions {
            move_time_ms: 300,
            ponder: true,
            ..GtpOptions::default()
        },
    );
    let a = answers(&out);
    assert_eq!(a.len(), 5, "{out:?}");
    let m = a[0].strip_prefix("=1 ").unwrap();
    assert!(FIRST_MOVES.contains(&m), "{out:?}");
    // A pass while white has a move is refused, and the game is unchanged.
    assert_eq!(a[1], "?2 illegal move");
    assert_eq!(a[2], "=3 white");
    let mut g = gtp();
    ok(&mut g, &format!("play b {m}"));
    let w = a[3].strip_prefix("=4 ").unwrap();
    ok(&mut g, &format!("play w {w}"));
    assert_eq!(a[4], "=5 flank");
}

#[test]
fn pondering_does_not_start_while_a_line_waits() {
    // `name` is sent with `genmove` (it waits, not stopping the search); once `genmove` is
    // answered, flank must answer it rather than ponder, then end at the end of input.
    let out = session_watched_with(
        &[Step::Send("1 genmove b\n2 name\n")],
        GtpOptions {
            move_time_ms: 300,
            ponder: true,
            ..GtpOptions::default()
        },
    );
    let a = answers(&out);
    assert_eq!(a.len(), 2, "{out:?}");
    assert!(
        FIRST_MOVES.contains(&a[0].strip_prefix("=1 ").unwrap()),
        "{out:?}"
    );
    assert_eq!(a[1], "=2 flank");
}

#[test]
fn lines_sent_with_genmove_do_not_stop_it() {
    // Two commands in one write, as from a client that does not wait for answers, then the
    // end of input long after. 1 s per move: no new iteration after 500 ms, so a search that
    // is not stopped answers after at least 500 ms (a stopped one at once); the watcher
    // thread notes when the first answer came.
    let output = SharedOutput::default();
    let input = Scripted::new(
        &[
            Step::Send("genmove b\ngogui-rules_side_to_move\n"),
            Step::Sleep(2000),
            Step::Send(""),
        ],
        &output,
    );
    let start = std::time::Instant::now();
    let seen = output.clone();
    let first = std::thread::spawn(move || {
        while seen.text().is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        start.elapsed()
    });
    let options = GtpOptions {
        move_time_ms: 1000,
        ..GtpOptions::default()
    };
    run(input, &mut output.clone(), engine(), options).unwrap();
    let first = first.join().unwrap();
    assert!(first.as_millis() >= 500, "genmove answered after {first:?}");
    let out = output.text();
    let a = answers(&out);
    assert_eq!(a.len(), 2, "{out:?}");
    assert!(
        FIRST_MOVES.contains(&a[0].trim_start_matches("= ")),
        "{out:?}"
    );
    assert_eq!(a[1], "= white");
}

/// A session with time enough for exact solves at 14 empties.
fn patient_gtp() -> Gtp {
    Gtp::new(
        engine(),
        GtpOptions {
            move_time_ms: 60_000,
            ..GtpOptions::default()
        },
    )
}

#[test]
fn flank_hint_gives_every_moves_exact_score_at_14_empties() {
    let Some(text) = common::data_file("endgame/fforum-1-19.obf") else {
        return;
    };
    let mut g = patient_gtp();
    let mut checked = 0;
    for line in text.lines() {
        let Some(p) = flank::notation::parse_problem_line(line).unwrap() else {
            continue;
        };
        if p.position.board.empties() > 14 {
            continue;
        }
        let side = if p.position.side == Color::Black {
            "X"
        } else {
            "O"
        };
        ok(&mut g, &format!("setboard {} {side}", p.position.cells()));
        let n = p.move_scores.len();
        let body = ok(&mut g, &format!("flank-hint {n}"));
        let rows: Vec<&str> = body.lines().collect();
        assert_eq!(rows.len(), n, "{body}");
        let mut scores = Vec::new();
        for row in &rows {
            let t: Vec<&str> = row.split(' ').collect();
            let mv: Move = t[0].parse().unwrap();
            let score: i32 = t[1].parse().unwrap();
            assert!(t[1].starts_with(['+', '-']), "{row}");
            assert_eq!(t[2], "exact", "{row}");
            assert_eq!(t[3], t[0], "the PV starts with the move: {row}");
            let listed = p.move_scores.iter().find(|(m, _)| *m == mv);
            assert_eq!(listed.map(|x| x.1), Some(score), "{line}\n{row}");
            // The PV is a legal line.
            let mut pos = p.position;
            for m in &t[3..] {
                pos = pos.play(m.parse().unwrap()).expect("legal PV");
            }
            scores.push(score);
        }
        let mut want: Vec<i32> = p.move_scores.iter().map(|x| x.1).collect();
        want.sort_by(|a, b| b.cmp(a));
        assert_eq!(scores, want, "best first: {line}");
        // flank-hint 1 is the best move with the best score.
        let best = ok(&mut g, "flank-hint 1");
        assert_eq!(best.lines().count(), 1);
        assert_eq!(
            best.split(' ').nth(1).unwrap().parse::<i32>().unwrap(),
            want[0]
        );
        checked += 1;
    }
    assert_eq!(checked, 7);
}

#[test]
fn flank_hint_pass_game_over_bad_counts_and_no_side_effects() {
    let mut g = patient_gtp();
    ok(&mut g, "time_settings 300 0 0");
    ok(&mut g, "time_left b 100 0");
    let before = g.time().clock(Color::Black);
    let board = ok(&mut g, "showboard");
    let hint = ok(&mut g, "flank-hint 2");
    assert_eq!(hint.lines().count(), 2, "{hint}");
    for row in hint.lines() {
        let mv = row.split(' ').next().unwrap();
        assert!(FIRST_MOVES.contains(&mv), "{hint}");
        assert!(row.contains(" depth="), "{hint}");
    }
    assert_eq!(ok(&mut g, "showboard"), board);
    assert_eq!(g.time().clock(Color::Black), before);
    for (cmd, msg) in [
        ("flank-hint 5", "bad count 5 (only 4 legal moves)"),
        ("flank-hint 0", "bad count 0 (expected 1 or more moves)"),
        (
            "flank-hint x",
            "syntax error: bad count 'x' (expected a whole number)",
        ),
        (
            "flank-hint",
            "syntax error: flank-hint takes 1 argument (flank-hint <count>)",
        ),
        (
            "flank-hint 1 2",
            "syntax error: flank-hint takes 1 argument (flank-hint <count>)",
        ),
    ] {
        assert_eq!(err(&mut g, cmd), msg, "{cmd}");
    }
    assert_eq!(ok(&mut g, "showboard"), board);
    assert_eq!(ok(&mut g, "known_command flank-hint"), "true");
    // Black blocked: pass, and the pass is not recorded.
    ok(&mut g, &format!("setboard {}", black_blocked()));
    assert_eq!(ok(&mut g, "flank-hint 1"), "pass");
    assert_eq!(ok(&mut g, "gogui-rules_side_to_move"), "black");
    // Game over (a board full of black).
    ok(&mut g, &format!("setboard {} X", "X".repeat(64)));
    assert_eq!(err(&mut g, "flank-hint 1"), "game over");
    // One legal move: flank-hint 1 gives it, with the id echoed.
    ok(&mut g, &format!("setboard {}", white_blocked()));
    ok(&mut g, "play w pass");
    let one = g.handle_line("7 flank-hint 1").unwrap();
    assert!(one.starts_with("=7 c1 "), "{one:?}");
    assert!(one.ends_with("\n\n") && !one[..one.len() - 2].contains("\n\n"));
}
