//! `flank match` driving NBoard engines (`--protocol-a nboard`): full games of `flank nboard`
//! against `flank gtp`, each record replayed with the crate's rules, and scripted `sh` NBoard
//! engines whose bad answers are forfeits.

mod common;

use common::matches::{flank_bin, json, run_match, temp_path};
use flank::notation::ggf::parse_ggf;
use flank::othello::game::Game;

/// The value of tag `key` in a GGF line (`RE` → `+6.00`).
fn tag<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let open = format!("{key}[");
    let start = line.find(&open)? + open.len();
    let len = line[start..].find(']')?;
    Some(&line[start..start + len])
}

#[test]
fn flank_nboard_plays_full_games_against_flank_gtp() {
    let ggf = temp_path("games.ggf");
    let _ = std::fs::remove_file(&ggf);
    // `flank nboard` answers no GTP command, so these games can only be played if A is
    // driven through NBoard.
    let nboard = format!("{} nboard --threads 1 --hash 8", flank_bin());
    let gtp = format!("{} gtp --threads 1 --hash 8", flank_bin());
    let (code, out, err) = run_match(&[
        "--engine-a",
        &nboard,
        "--protocol-a",
        "nboard",
        "--engine-b",
        &gtp,
        "--games",
        "2",
        "--time",
        "4",
        "--concurrency",
        "1",
        "--ggf",
        ggf.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["games"], 2, "{v}");
    assert_eq!(v["names"][0], "flank-A", "{v}");
    assert_eq!(v["forfeits"], serde_json::json!([0, 0]), "{v}");
    assert_eq!(v["time_losses"], serde_json::json!([0, 0]), "{v}");
    let games = v["game_list"].as_array().unwrap();
    let records = std::fs::read_to_string(&ggf).unwrap();
    let _ = std::fs::remove_file(&ggf);
    let lines: Vec<&str> = records.lines().collect();
    assert_eq!(lines.len(), 2, "{records}");
    for (g, line) in games.iter().zip(&lines) {
        assert_eq!(g["reason"], "finished", "{g}");
        // Replay the record from its BO with flank's rules (parse_ggf checks every move).
        let record = parse_ggf(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let mut game = Game::from_position(record.start);
        for m in &record.moves {
            game.play(m.color, m.mv)
                .unwrap_or_else(|e| panic!("{} {}: {e}: {line}", m.color, m.mv));
        }
        assert!(game.is_over(), "the game is not over: {line}");
        // RE is black's final disc difference, empties to the winner.
        let re = tag(line, "RE").unwrap_or_else(|| panic!("no RE: {line}"));
        let re: f64 = re.parse().unwrap_or_else(|_| panic!("RE[{re}]: {line}"));
        assert_eq!(re, f64::from(game.final_score()), "{line}");
        assert_eq!(
            g["board_score"].as_i64(),
            Some(i64::from(game.final_score()))
        );
    }
    assert_eq!(games[0]["a_color"], "black");
    assert_eq!(games[1]["a_color"], "white");
}

/// A scripted NBoard engine in sh: answers `ping N` with `pong N` and `go` with `GO` (a
/// shell command), ignores everything else.
fn sh_nboard(go: &str) -> String {
    format!(
        "sh -c 'while read c a; do case \"$c\" in \
         ping) echo \"pong $a\";; \
         go) {go};; \
         nboard) echo \"set myname scripted\";; \
         esac; done'"
    )
}

#[test]
fn bad_nboard_answers_are_forfeits() {
    let gtp = format!("{} gtp --level 3 --threads 1 --hash 8", flank_bin());
    // (answer to go, expected reason code)
    for (go, reason) in [
        (
            "echo \"status thinking\"; echo \"=== zz/1.00/0.1\"",
            "protocol",
        ),
        ("echo \"something else\"", "protocol"),
        ("echo \"=== A1 0.00 0.0\"", "illegal"),
        ("echo \"=== PA\"", "wrong-pass"),
    ] {
        let (code, out, err) = run_match(&[
            "--engine-a",
            &sh_nboard(go),
            "--protocol-a",
            "nboard",
            "--engine-b",
            &gtp,
            "--games",
            "2",
            "--time",
            "10",
            "--concurrency",
            "1",
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v = json(&out);
        assert_eq!(v["names"][0], "scripted-A", "{v}");
        for g in v["game_list"].as_array().unwrap() {
            assert_eq!(g["reason"], reason, "{go}: {g}");
            assert_eq!(g["winner"], "b", "{go}: {g}");
        }
    }
}

#[test]
fn an_unknown_protocol_is_refused() {
    let (code, _out, err) =
        run_match(&["--engine-a", "x", "--engine-b", "y", "--protocol-b", "uci"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("uci") && err.contains("nboard"), "{err}");
}
