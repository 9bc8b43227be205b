//! `flank match` end to end with real processes: flank against flank, and scripted `sh`
//! engines that crash, play illegal moves, pass wrongly, overstep their clock, refuse the
//! handicap or agree to draws.

mod common;

use std::process::Command;

use common::matches::{flank_bin, json, run_match, temp_path};
use serde_json::Value;

/// A scripted GTP engine in sh: answers `=` to everything, and `genmove` with `GENMOVE`
/// (a shell command), `list_commands` with `LIST`, `flank-*` commands with `EXTRA`.
fn sh_engine(genmove: &str, list: &str, extra: &str) -> String {
    format!(
        "sh -c 'while read l; do case \"$l\" in \
         *genmove*) {genmove};; \
         *list_commands*) printf \"= {list}\\n\\n\";; \
         *flank-*) {extra};; \
         *) printf \"=\\n\\n\";; esac; done'"
    )
}

/// flank at level 3 (depth 3, exact only at ≤ 6 empties): fast, and far inside a 10 s clock
/// even on a loaded machine.
fn flank_engine() -> String {
    format!("{} gtp --level 3", flank_bin())
}

/// One game (JSON summary) of `engine` as A against flank as B with a `time`-second clock;
/// the match itself must end with exit status 0.
fn one_game_against_flank(engine: &str, time: &str) -> Value {
    let (code, out, err) = run_match(&[
        "--engine-a",
        engine,
        "--engine-b",
        &flank_engine(),
        "--games",
        "1",
        "--time",
        time,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    json(&out)
}

#[test]
fn flank_against_flank_with_ggf_and_json() {
    let ggf = temp_path("selfplay.ggf");
    let _ = std::fs::remove_file(&ggf);
    let engine = flank_engine();
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--games",
        "2",
        "--time",
        "10",
        "--concurrency",
        "2",
        "--stake",
        "5.00",
        "--ggf",
        ggf.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["games"], 2);
    assert_eq!(v["names"][0], "flank-A");
    let games = v["game_list"].as_array().unwrap();
    let records = std::fs::read_to_string(&ggf).unwrap();
    let lines: Vec<&str> = records.lines().collect();
    assert_eq!(lines.len(), 2);
    let mut a_points = 0.0;
    for (g, line) in games.iter().zip(&lines) {
        assert_eq!(g["reason"], "finished", "{g}");
        assert_eq!(g["opening"], "f5d6c3d3c4");
        // The GGF result is black's disc difference, as in the JSON.
        let score = g["board_score"].as_i64().unwrap();
        assert!(line.starts_with("(;GM[Othello]"), "{line}");
        assert!(line.ends_with(";)"), "{line}");
        assert!(line.contains(&format!("RE[{score:+}.00]")), "{line}");
        assert!(line.contains("B[f5]W[d6]B[c3]W[d3]B[c4]"), "{line}");
        // The stake: a draw refunds 5.00 each, a win pays 9.00 and keeps 1.00.
        let st = &g["settlement"];
        let payout = st["payout"][0].as_u64().unwrap() + st["payout"][1].as_u64().unwrap();
        assert_eq!(payout + st["commission"].as_u64().unwrap(), 1000);
        a_points += match g["winner"].as_str() {
            Some("a") => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
    }
    assert_eq!(v["points"][0].as_f64().unwrap(), a_points);
    // The fraction of each clock used: per game used_ms / 10 000 ms, in the summary the
    // largest and the mean of those; level 3 stays far from the 95 % limit.
    for k in 0..2 {
        let f: Vec<f64> = games
            .iter()
            .map(|g| {
                let used = g["used_ms"][k].as_f64().unwrap();
                let frac = g["clock_used"][k].as_f64().unwrap();
                assert!((frac - used / 10_000.0).abs() < 1e-12, "{g}");
                assert!(frac > 0.0 && frac < 0.95, "{g}");
                frac
            })
            .collect();
        assert_eq!(v["clock_used_max"][k].as_f64().unwrap(), f[0].max(f[1]));
        let mean = v["clock_used_mean"][k].as_f64().unwrap();
        assert!((mean - (f[0] + f[1]) / 2.0).abs() < 1e-12, "{v}");
        assert_eq!(v["games_over_95"][k], 0);
    }
    let _ = std::fs::remove_file(&ggf);
}

#[test]
fn text_summary_lists_games_and_totals() {
    let engine = flank_engine();
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--name-a",
        "first",
        "--name-b",
        "second",
        "--games",
        "2",
        "--time",
        "10",
        "--target-points",
        "500",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("game 1: first (black) vs second (white), opening f5d6c3d3c4"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("game 2: second (black) vs first (white)"),
        "{out}"
    );
    assert!(out.contains("first vs second: 2 games"), "{out}");
    assert!(out.contains("race to 500 points"), "{out}");
    assert!(out.contains("clock used: first max "), "{out}");
    // Equal clocks: no time-odds line.
    assert!(!out.contains("time odds"), "{out}");
    assert!(lines[0].contains(", clock used first "), "{out}");
    // Each round line carries the running race totals.
    assert!(lines[0].contains(", race first "), "{out}");
}

#[test]
fn a_crash_loses_and_the_engine_is_restarted() {
    let crasher = sh_engine("exit 3", "", "printf \"?\\n\\n\"");
    let (code, out, err) = run_match(&[
        "--engine-a",
        &flank_engine(),
        "--engine-b",
        &crasher,
        "--games",
        "2",
        "--time",
        "10",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["a"]["wins"], 2);
    assert_eq!(v["forfeits"][1], 2);
    for g in v["game_list"].as_array().unwrap() {
        assert_eq!(g["reason"], "crash");
        assert_eq!(g["a_value"], 64);
        // The second game's engine is a fresh process: it crashes the same way.
        assert!(
            g["reason_text"]
                .as_str()
                .unwrap()
                .contains("crashed (exit status 3)"),
            "{g}"
        );
    }
}

#[test]
fn illegal_moves_wrong_passes_time_losses_and_protocol_errors() {
    // A is black in game 1; after the 5-move opening flank (white) moves, then A answers.
    for (genmove, time, reason, text) in [
        (
            "printf \"= a1\\n\\n\"",
            "30",
            "illegal",
            "black illegal move 'a1'",
        ),
        (
            "printf \"= pass\\n\\n\"",
            "30",
            "wrong-pass",
            "black passed with a legal move",
        ),
        (
            "printf \"= whatever\\n\\n\"",
            "30",
            "illegal",
            "black illegal move 'whatever'",
        ),
        // 1 s each: enough for flank's moves even on a loaded machine (0.3 s once flagged
        // flank first under load), far too little for the engine that sleeps 3 s.
        (
            "sleep 3; printf \"= pass\\n\\n\"",
            "1",
            "time",
            "black lost on time",
        ),
        // No status character, a wrong id, a refusal: protocol errors.
        (
            "printf \"f5\\n\\n\"",
            "30",
            "protocol",
            "black protocol error: expected '=' or '?', got 'f5'",
        ),
        (
            "printf \"=999 f5\\n\\n\"",
            "30",
            "protocol",
            "black protocol error: answer id 999 for request",
        ),
        (
            "printf \"? busy\\n\\n\"",
            "30",
            "protocol",
            "black protocol error: refused 'genmove b': busy",
        ),
    ] {
        let bad = sh_engine(genmove, "", "printf \"?\\n\\n\"");
        let v = one_game_against_flank(&bad, time);
        let g = &v["game_list"][0];
        assert_eq!(g["reason"], reason, "{g}");
        assert!(g["reason_text"].as_str().unwrap().starts_with(text), "{g}");
        assert_eq!(g["winner"], "b", "{g}");
        if reason == "time" {
            assert_eq!(v["time_losses"][0], 1);
            // A loss on time is the whole clock, and over the 95 % limit.
            assert_eq!(g["clock_used"][0], 1.0);
            assert_eq!(v["clock_used_max"][0], 1.0);
            assert_eq!(v["games_over_95"][0], 1);
        }
    }
}

#[test]
fn agreed_draws_through_the_protocol() {
    let drawish = sh_engine(
        "printf \"= pass\\n\\n\"",
        "flank-draw_offer",
        "printf \"= accept\\n\\n\"",
    );
    let (code, out, err) = run_match(&[
        "--engine-a",
        &drawish,
        "--engine-b",
        &drawish,
        "--games",
        "2",
        "--draw-offers",
        "--stake",
        "1.00",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["a"]["draws"], 2);
    assert_eq!(v["agreed_draws"], 2);
    assert_eq!(v["stakes"]["ledger"]["commission"], 0);
    assert_eq!(v["stakes"]["ledger"]["net"][0], 0);
    for g in v["game_list"].as_array().unwrap() {
        assert_eq!(g["reason"], "draw-agreed");
        // The side to move after the opening offered (white after f5d6c3d3c4).
        assert_eq!(g["reason_text"], "draw agreed (white offered)");
    }
}

#[test]
fn handicap_needs_engine_support() {
    let refuses = sh_engine(
        "printf \"= pass\\n\\n\"",
        "",
        "printf \"? unknown command\\n\\n\"",
    );
    let (code, out, err) = run_match(&[
        "--engine-a",
        &refuses,
        "--engine-b",
        &refuses,
        "--handicap",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("engine A cannot play handicap games (flank-handicap)"),
        "{err}"
    );
    assert!(err.contains("? unknown command"), "{err}");
}

#[test]
fn bad_arguments_fail_with_one_line() {
    let engine = flank_engine();
    for (extra, needle) in [
        (vec!["--stake", "5.001"], "bad amount '5.001'"),
        (vec!["--stake=-1"], "bad amount"),
        (vec!["--sprt", "0,10,0.05"], "bad --sprt"),
        (vec!["--time", "0"], "bad time '0'"),
        // --time-a and --time-b are checked like --time.
        (
            vec!["--time-a", "0"],
            "invalid value '0' for '--time-a <TIME_A>': bad time '0'",
        ),
        (
            vec!["--time-b", "-1"],
            "invalid value '-1' for '--time-b <TIME_B>': bad time '-1'",
        ),
        (
            vec!["--time-b", "0.05"],
            "bad time '0.05' (the clock must be at least 0.1 s)",
        ),
        (vec!["--time-a", "ten"], "bad time 'ten'"),
        (vec!["--time-a", "1e8"], "bad time '1e8'"),
        // Negative values reach our own parsers instead of clap's "unexpected argument".
        (vec!["--time", "-1"], "bad time '-1'"),
        (
            vec!["--time", "1e-9"],
            "bad time '1e-9' (the clock must be at least 0.1 s)",
        ),
        (vec!["--stake", "0.00"], "stake must be positive"),
        (
            vec!["--name-a", "two\nlines"],
            "--name-a: control characters",
        ),
        (
            vec!["--stake", "99999999999999999999"],
            "too large (at most 1000000000.00)",
        ),
        (vec!["--stake", "-1"], "bad amount '-1'"),
        (
            vec!["--sprt", "-5,-10,0.05,0.05"],
            "elo0 must be below elo1",
        ),
        (
            vec!["--name-a", "A", "--name-b", "A"],
            "--name-a and --name-b are both 'A': the players' names must differ",
        ),
        (vec!["--name-a", ""], "--name-a: empty name"),
        (vec!["--name-b", "  "], "--name-b: empty name"),
        // A given name equal to the other engine's default (flank's `name` is `flank`).
        (vec!["--name-a", "flank-B"], "both be named 'flank-B'"),
        (vec!["--games", "-1"], "'-1'"),
        // Negative numbers reach the value check (not "unexpected argument"), and parse
        // errors point to the subcommand's own help.
        (
            vec!["--target-points", "-5"],
            "invalid value '-5' for '--target-points <TARGET_POINTS>'",
        ),
        (
            vec!["--draw-offer-empties", "-1"],
            "invalid value '-1' for '--draw-offer-empties <DRAW_OFFER_EMPTIES>'",
        ),
        (vec!["--concurrency", "-2"], "invalid value '-2'"),
        (vec!["--handicap", "-3"], "invalid value '-3'"),
        (vec!["--games", "0"], "(see flank match --help)"),
        (vec!["--handicap", "5"], "5"),
        (
            vec!["--openings", "/nonexistent/openings.txt"],
            "cannot read openings",
        ),
    ] {
        let mut args = vec!["--engine-a", engine.as_str(), "--engine-b", engine.as_str()];
        args.extend(extra.iter());
        let (code, out, err) = run_match(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(out.is_empty(), "{extra:?}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    // An engine that dies at once cannot start the match.
    let (code, _, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        "sh -c 'read x; exit 3'",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("engine B could not start"), "{err}");
    assert!(err.contains("exit status 3"), "{err}");
    // A negative elo0 is a valid SPRT: the run gets as far as starting the engines.
    let (code, _, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        "sh -c 'read x; exit 3'",
        "--sprt",
        "-5,0,0.05,0.05",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("engine B could not start"), "{err}");
    let (code, _, err) = run_match(&["--engine-a", "'unbalanced", "--engine-b", &engine]);
    assert_eq!(code, 2);
    assert!(err.contains("--engine-a: cannot split"), "{err}");
}

#[test]
fn xot_openings_from_the_shared_data() {
    let Some(text) = common::data_file("openings/xot_small.txt") else {
        return;
    };
    let first = text.lines().next().unwrap().trim().to_string();
    let engine = flank_engine();
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--openings",
        "xot",
        "--games",
        "2",
        "--time",
        "10",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    for g in v["game_list"].as_array().unwrap() {
        assert_eq!(g["opening"], first.as_str());
    }
}

#[test]
fn flank_plays_handicap_and_draw_offer_games() {
    let engine = flank_engine();
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--games",
        "2",
        "--time",
        "10",
        "--handicap",
        "3",
        "--draw-offers",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    for g in v["game_list"].as_array().unwrap() {
        // B holds a1, h8 and h1 in its colour; a8 stays empty.
        let b = if g["a_color"] == "black" { 'O' } else { '*' };
        let ggf = g["ggf"].as_str().unwrap();
        let cells: Vec<char> = ggf.split("BO[8 ").nth(1).unwrap().chars().collect();
        assert_eq!(
            (cells[0], cells[63], cells[7], cells[56]),
            (b, b, b, '-'),
            "{ggf}"
        );
        assert_eq!(g["opening"], "");
        let reason = g["reason"].as_str().unwrap();
        assert!(reason == "finished" || reason == "draw-agreed", "{g}");
        // Never more than the rules' three offers per player.
        for k in 0..2 {
            assert!(g["offers"][k].as_u64().unwrap() <= 3, "{g}");
        }
    }
}

#[test]
fn a_closed_stdout_ends_the_match_quietly() {
    // Each game takes at least 0.2 s (the engine waits, then passes wrongly and forfeits), so
    // the lines after the first are written after the reader has gone.
    let slow = sh_engine(
        "sleep 0.2; printf \"= pass\\n\\n\"",
        "",
        "printf \"?\\n\\n\"",
    );
    for json_flag in [false, true] {
        let mut args = vec![
            "match",
            "--engine-a",
            &slow,
            "--engine-b",
            &slow,
            "--games",
            "6",
            "--concurrency",
            "1",
        ];
        if json_flag {
            args.push("--json");
        }
        let mut child = Command::new(flank_bin())
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("flank runs");
        let stdout = child.stdout.take().unwrap();
        if !json_flag {
            // Read one line (like `head -1`), then close the pipe.
            use std::io::BufRead;
            let mut line = String::new();
            std::io::BufReader::new(stdout)
                .read_line(&mut line)
                .unwrap();
            assert!(line.starts_with("game 1: "), "{line}");
        } else {
            drop(stdout);
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "json {json_flag}: {err}");
        assert!(err.is_empty(), "json {json_flag}: {err}");
    }
}

/// The state letter of process `pid` from /proc (`None` when it no longer exists).
fn proc_state(pid: &str) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) S ...`: the state follows the last ')'.
    stat.rsplit(')').next()?.trim().chars().next()
}

#[test]
fn children_of_sh_engines_end_with_the_match() {
    if !std::path::Path::new("/proc/self/stat").exists() {
        common::skipped("no /proc");
        return;
    }
    // Each engine starts a background `sleep` child and records its pid.
    let pids = temp_path("bg-pids");
    let _ = std::fs::remove_file(&pids);
    let engine = format!(
        "sh -c 'sleep 300 & echo $! >> {}; while read l; do case \"$l\" in \
         *genmove*) printf \"= pass\\n\\n\";; *) printf \"=\\n\\n\";; esac; done'",
        pids.display()
    );
    let (code, _, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--games",
        "2",
        "--concurrency",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&pids).unwrap();
    let list: Vec<&str> = text.lines().map(str::trim).collect();
    // Two engines at the start, and restarts after the forfeits: at least 3 sleeps.
    assert!(list.len() >= 3, "{text}");
    let mut alive = Vec::new();
    for pid in &list {
        // Killed sleeps are reaped by init soon after; allow a moment.
        let mut state = proc_state(pid);
        for _ in 0..100 {
            if state.is_none() || state == Some('Z') {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            state = proc_state(pid);
        }
        if !(state.is_none() || state == Some('Z')) {
            alive.push(pid.to_string());
        }
    }
    for pid in &alive {
        let _ = Command::new("kill").arg(pid).status();
    }
    let _ = std::fs::remove_file(&pids);
    assert!(alive.is_empty(), "still running after the match: {alive:?}");
}

#[test]
fn engines_without_time_commands_play_on_the_runners_clock() {
    // The engine does not list time_settings/time_left and refuses them if sent anyway;
    // it answers genmove after GENMOVE.
    let no_time = |genmove: &str| {
        format!(
            "sh -c 'while read l; do case \"$l\" in \
             *list_commands*) printf \"= name\\nplay\\ngenmove\\n\\n\";; \
             *time_*) printf \"? unknown command\\n\\n\";; \
             *genmove*) {genmove};; \
             *) printf \"=\\n\\n\";; esac; done'"
        )
    };
    for (genmove, time, reason) in [
        // Set-up passes; its first move is a wrong pass.
        ("printf \"= pass\\n\\n\"", "30", "wrong-pass"),
        // Its clock still runs: 3 s over a 1 s clock (flank, on 1 s, must not flag first).
        ("sleep 3; printf \"= pass\\n\\n\"", "1", "time"),
    ] {
        let v = one_game_against_flank(&no_time(genmove), time);
        let g = &v["game_list"][0];
        assert_eq!(g["reason"], reason, "{g}");
        assert_eq!(g["winner"], "b", "{g}");
    }
}

#[test]
fn xot_openings_are_found_outside_the_project_root() {
    let built = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/openings/xot_small.txt"
    );
    let Ok(text) = std::fs::read_to_string(built) else {
        common::skipped(&format!("{built} not found"));
        return;
    };
    let first = text.lines().next().unwrap().trim().to_string();
    let engine = sh_engine("printf \"= pass\\n\\n\"", "", "printf \"?\\n\\n\"");
    // From / with FLANK_DATA unset the cwd default fails; the build-time sibling is used.
    let out = Command::new(flank_bin())
        .current_dir("/")
        .env_remove("FLANK_DATA")
        .args([
            "match",
            "--engine-a",
            &engine,
            "--engine-b",
            &engine,
            "--openings",
            "xot",
            "--games",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(v["game_list"][0]["opening"], first.as_str());
}

#[test]
fn openings_that_clash_with_the_handicap_are_skipped_with_a_note() {
    let file = temp_path("handicap-openings.txt");
    // The second line plays a1, the first handicap corner.
    std::fs::write(&file, "f5d6c3d3c4\nf5f4c3c4b3b2a1f6\n").unwrap();
    let engine = sh_engine("printf \"= pass\\n\\n\"", "", "printf \"=\\n\\n\"");
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--handicap",
        "1",
        "--openings",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("skipped 1 of 2 openings") && err.contains("--handicap 1"),
        "{err}"
    );
    let v = json(&out);
    assert_eq!(v["games"], 2);
    for g in v["game_list"].as_array().unwrap() {
        assert_eq!(g["opening"], "f5d6c3d3c4");
    }
    // A game-ending opening is refused with its line number, handicap or not.
    std::fs::write(&file, "f5d6\nf5d6c5f4e3f6g5e6e7\n").unwrap();
    let (code, _, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &engine,
        "--openings",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("line 2: opening 'f5d6c5f4e3f6g5e6e7' ends the game"),
        "{err}"
    );
    let _ = std::fs::remove_file(&file);
}

/// Process ids whose process group (field 5 of /proc/PID/stat) is `pgid` and that are not
/// zombies.
fn live_members_of_group(pgid: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            continue;
        };
        // After `pid (comm)`: state, ppid, pgrp, ...
        let Some(rest) = stat.rsplit(')').next() else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid && fields[0] != "Z" {
            found.push(name);
        }
    }
    found
}

#[cfg(unix)]
#[test]
fn sigterm_ends_every_engine_group_and_exits_130() {
    if !std::path::Path::new("/proc/self/stat").exists() {
        common::skipped("no /proc");
        return;
    }
    // Each engine records its pid (its process group id), starts a background sleep and
    // thinks for 100 s on genmove.
    let pids = temp_path("sigterm-pgids");
    let _ = std::fs::remove_file(&pids);
    let engine = format!(
        "sh -c 'echo $$ >> {}; sleep 300 & while read l; do case \"$l\" in \
         *genmove*) sleep 100; printf \"= pass\\n\\n\";; *) printf \"=\\n\\n\";; esac; done'",
        pids.display()
    );
    let child = Command::new(flank_bin())
        .args([
            "match",
            "--engine-a",
            &engine,
            "--engine-b",
            &engine,
            "--games",
            "2",
            "--concurrency",
            "1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("flank runs");
    // Wait until both engines have started (at most 20 s).
    let mut groups: Vec<String> = Vec::new();
    for _ in 0..1000 {
        groups = std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        if groups.len() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(groups.len(), 2, "engines did not start");
    // Let the first genmove begin.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: signals our own child, which has not been waited for.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let out = child.wait_with_output().expect("flank ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert_eq!(
        err.trim(),
        "flank: match interrupted; killed 2 engine process group(s)"
    );
    let mut alive = Vec::new();
    for _ in 0..100 {
        alive = groups
            .iter()
            .flat_map(|g| live_members_of_group(g))
            .collect();
        if alive.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for pid in &alive {
        let _ = Command::new("kill").arg("-9").arg(pid).status();
    }
    let _ = std::fs::remove_file(&pids);
    assert!(alive.is_empty(), "still running after SIGTERM: {alive:?}");
}

#[test]
fn decimal_time_sends_milliseconds() {
    for (decimal, settings) in [
        (true, "time_settings 2.500 0 0"),
        (false, "time_settings 3 0 0"),
    ] {
        let log = temp_path(&format!("time-log-{decimal}"));
        let _ = std::fs::remove_file(&log);
        // Logs every command; lists the time commands; its first genmove is a wrong pass.
        let engine = format!(
            "sh -c 'while read l; do echo \"$l\" >> {}; case \"$l\" in \
             *list_commands*) printf \"= time_settings\\ntime_left\\n\\n\";; \
             *genmove*) printf \"= pass\\n\\n\";; \
             *) printf \"=\\n\\n\";; esac; done'",
            log.display()
        );
        let mut args = vec![
            "--engine-a",
            &engine,
            "--engine-b",
            &engine,
            "--games",
            "1",
            "--time",
            "2.5",
            "--json",
        ];
        if decimal {
            args.push("--decimal-time");
        }
        let (code, out, err) = run_match(&args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&out)["game_list"][0]["reason"], "wrong-pass");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        // Commands carry ids: `3 time_settings 2.500 0 0`.
        let cmds: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(_, c)| c.trim()))
            .collect();
        assert!(cmds.contains(&settings), "{text}");
        let left: Vec<&str> = cmds
            .iter()
            .filter(|c| c.starts_with("time_left "))
            .copied()
            .collect();
        assert!(!left.is_empty(), "{text}");
        for c in left {
            let secs = c.split_whitespace().nth(2).unwrap();
            let ok = if decimal {
                secs.len() == 5 && secs.as_bytes()[1] == b'.' && secs.parse::<f64>().is_ok()
            } else {
                secs.parse::<u64>().is_ok()
            };
            assert!(ok, "{c}");
        }
    }
}

#[test]
fn an_engine_that_cannot_be_restarted_is_recorded_as_such() {
    let marker = temp_path("restart-marker");
    let _ = std::fs::remove_file(&marker);
    // Starts once (creating the marker) and crashes on genmove; every later start exits 1.
    let engine = format!(
        "sh -c 'if [ -e {m} ]; then exit 1; fi; touch {m}; while read l; do case \"$l\" in \
         *genmove*) exit 3;; *) printf \"=\\n\\n\";; esac; done'",
        m = marker.display()
    );
    let (code, out, err) = run_match(&[
        "--engine-a",
        &engine,
        "--engine-b",
        &flank_engine(),
        "--games",
        "2",
        "--concurrency",
        "1",
        "--json",
    ]);
    let _ = std::fs::remove_file(&marker);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let g = &v["game_list"];
    assert_eq!(g[0]["reason"], "crash", "{g}");
    assert_eq!(g[0]["reason_text"], "black crashed (exit status 3)", "{g}");
    assert_eq!(g[1]["reason"], "restart-failed", "{g}");
    assert_eq!(
        g[1]["reason_text"], "white restart failed: engine exited (exit status 1)",
        "{g}"
    );
    assert_eq!(g[1]["winner"], "b", "{g}");
}

#[test]
fn odd_and_repeating_schedules_get_one_note_each() {
    // Passes at once: every game is a quick wrong-pass forfeit.
    let engine = sh_engine("printf \"= pass\\n\\n\"", "genmove", "printf \"=\\n\\n\"");
    for (games, notes) in [
        ("2", vec![]),
        (
            "3",
            vec![
                "flank: note: --games 3 is odd, so colours are unbalanced (A plays black once more)",
            ],
        ),
        (
            "10",
            vec!["flank: note: --games 10 exceeds 2 x 4 openings, so openings repeat"],
        ),
        (
            "9",
            vec![
                "flank: note: --games 9 is odd, so colours are unbalanced (A plays black once more)",
                "flank: note: --games 9 exceeds 2 x 4 openings, so openings repeat",
            ],
        ),
    ] {
        let (code, out, err) = run_match(&[
            "--engine-a",
            &engine,
            "--engine-b",
            &engine,
            "--games",
            games,
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(json(&out)["games"], games.parse::<u64>().unwrap());
        assert_eq!(err.lines().collect::<Vec<_>>(), notes, "--games {games}");
    }
}

#[test]
fn time_odds_tell_each_engine_its_own_clock() {
    // Each engine logs its commands to its own file and answers genmove with a wrong pass.
    // The opening (5 moves) leaves white to move, so each game ends at the first genmove,
    // to white: B in game 1, A in game 2; each engine gets one time_left, as white.
    let logs = [temp_path("odds-log-a"), temp_path("odds-log-b")];
    let ggf = temp_path("odds.ggf");
    for f in logs.iter().chain([&ggf]) {
        let _ = std::fs::remove_file(f);
    }
    let engine = |log: &std::path::Path| {
        format!(
            "sh -c 'while read l; do echo \"$l\" >> {}; case \"$l\" in \
             *list_commands*) printf \"= time_settings\\ntime_left\\n\\n\";; \
             *genmove*) printf \"= pass\\n\\n\";; \
             *) printf \"=\\n\\n\";; esac; done'",
            log.display()
        )
    };
    let (ea, eb) = (engine(&logs[0]), engine(&logs[1]));
    let (code, out, err) = run_match(&[
        "--engine-a",
        &ea,
        "--engine-b",
        &eb,
        "--games",
        "2",
        "--concurrency",
        "1",
        "--time",
        "9",
        "--time-a",
        "2.5",
        "--time-b",
        "5",
        "--decimal-time",
        "--ggf",
        ggf.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    // --time-a and --time-b both override --time.
    assert_eq!(v["clock_ms"], serde_json::json!([2500, 5000]), "{v}");
    let games = v["game_list"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    let records = std::fs::read_to_string(&ggf).unwrap_or_default();
    let lines: Vec<&str> = records.lines().collect();
    let _ = std::fs::remove_file(&ggf);
    assert_eq!(lines.len(), 2, "{records}");
    for (g, line) in games.iter().zip(&lines) {
        assert_eq!(g["reason"], "wrong-pass", "{g}");
        // Black's clock in TB, white's in TW (whole seconds, rounded up), no TI.
        let tags = if g["a_color"] == "black" {
            "TB[0:03]TW[0:05]"
        } else {
            "TB[0:05]TW[0:03]"
        };
        assert!(line.contains(tags), "{line}");
        assert!(!line.contains("TI["), "{line}");
    }
    for (log, own, other) in [(&logs[0], "2.500", "5.000"), (&logs[1], "5.000", "2.500")] {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let _ = std::fs::remove_file(log);
        let cmds: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(' ').map(|(_, c)| c.trim()))
            .collect();
        // Told its own clock at the start of each game, never the other's.
        let settings: Vec<&&str> = cmds
            .iter()
            .filter(|c| c.starts_with("time_settings"))
            .collect();
        assert_eq!(settings.len(), 2, "{text}");
        for c in settings {
            assert_eq!(*c, &format!("time_settings {own} 0 0"), "{text}");
        }
        assert!(!text.contains(&format!("time_settings {other}")), "{text}");
        // Its time_left reports stay within its own clock; B's first is above A's whole
        // clock.
        let left: Vec<f64> = cmds
            .iter()
            .filter_map(|c| c.strip_prefix("time_left "))
            .map(|c| c.split_whitespace().nth(1).unwrap().parse().unwrap())
            .collect();
        assert!(!left.is_empty(), "{text}");
        let own: f64 = own.parse().unwrap();
        assert!(left.iter().all(|&t| t <= own), "{text}");
        if own == 5.0 {
            assert!(left[0] > 2.5, "{text}");
        }
    }
    // The text summary names each player's clock.
    let (code, out, err) = run_match(&[
        "--engine-a",
        &sh_engine("printf \"= pass\\n\\n\"", "", "printf \"=\\n\\n\""),
        "--engine-b",
        &sh_engine("printf \"= pass\\n\\n\"", "", "printf \"=\\n\\n\""),
        "--name-a",
        "slow",
        "--name-b",
        "fast",
        "--games",
        "2",
        "--time-b",
        "0.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\ntime odds: slow 600 s per game, fast 0.5 s per game\n"),
        "{out}"
    );
}
