//! `flank selfplay` end to end: the records, their exact scores, determinism across threads
//! and shards, resuming, and the refusals; `flank eval-error` on a labelled set.

mod common;

use common::flank;
use flank::othello::board::Board;
use flank::train::selfplay_records::{GameRecord, read_records};

/// A fresh path in the temp directory for this test.
fn temp(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("flank-selfplay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// Runs `flank selfplay` with small settings (random openings, depth 2, exact from 12
/// empties) and `extra` arguments; returns (exit code, stderr).
fn selfplay(out: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "selfplay",
        "--openings",
        "random",
        "--depth",
        "2",
        "--solve-empties",
        "12",
        "--noise-plies",
        "6",
        "--seed",
        "9",
        "--hash",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = flank(&args, "");
    (code, err)
}

/// The record lines of `path`, sorted by game index.
fn sorted_lines(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect();
    lines.sort_by_key(|l| l.split('\t').next().unwrap().parse::<u64>().unwrap());
    lines
}

#[test]
fn games_end_with_their_exact_score_and_resume_and_shard_to_the_same_set() {
    let a = temp("a.txt");
    let (code, err) = selfplay(&a, &["--games", "4", "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("4 games played"), "{err}");
    let (header, records) = read_records(&a).unwrap();
    assert_eq!(
        header,
        "# flank selfplay v1 seed=9 depth=2 solve-empties=12 noise-plies=6 temperature=2 openings=random eval=trained"
    );
    let mut indices: Vec<u64> = records.iter().map(|r| r.index).collect();
    indices.sort();
    assert_eq!(indices, [0, 1, 2, 3]);
    // A gzipped copy (as the committed corpus shards are kept) reads the same; self-play
    // refuses to append to one.
    let gz = temp("a.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, &std::fs::read(&a).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let (gz_header, gz_records) = read_records(&gz).unwrap();
    assert_eq!(gz_header, header);
    assert_eq!(gz_records, records);
    let (code, err) = selfplay(&gz, &["--games", "1"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
    let _ = std::fs::remove_file(&gz);
    for r in &records {
        // Replay: the game is played to its end, and from the exact solve on every move is
        // perfect, so the final disc difference is the recorded exact score.
        let positions = r.positions();
        assert_eq!(positions.len(), r.values.len());
        let mut pos = flank::othello::Position::start();
        for &m in &r.moves {
            pos = pos.play(m).expect("legal move");
        }
        assert!(pos.board.is_game_over());
        let black_final = match pos.side {
            flank::othello::square::Color::Black => pos.board.final_score(),
            flank::othello::square::Color::White => -pos.board.final_score(),
        };
        assert_eq!(black_final, r.exact, "game {}", r.index);
        for p in positions
            .iter()
            .filter(|p| p.position.board.empties() <= 12)
        {
            assert_eq!(p.value, p.exact, "game {}", r.index);
        }
        // Values before the solve are search estimates, within the disc range.
        assert!(r.values.iter().all(|v| (-64..=64).contains(v)));
    }

    // Resume: the same settings with more games play only the new ones; a line cut short
    // by an interrupted write is dropped and played again.
    let before = std::fs::read_to_string(&a).unwrap();
    let cut = records.iter().find(|r| r.index == 3).unwrap().line();
    let kept: String = before
        .lines()
        .filter(|l| !l.starts_with("3\t"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&a, format!("{kept}{}", &cut[..cut.len() / 2])).unwrap();
    let (code, err) = selfplay(&a, &["--games", "6", "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("3 games played") && err.contains("3 already in"),
        "{err}"
    );

    // The same games from one thread, in two shards.
    let b = temp("b.txt");
    let (code, err) = selfplay(&b, &["--games", "2", "--threads", "1"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = selfplay(&b, &["--first", "2", "--games", "4", "--threads", "1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(sorted_lines(&a), sorted_lines(&b));
    assert_eq!(sorted_lines(&a).len(), 6);

    // Other settings never extend a file: it is left as it was.
    let kept = std::fs::read_to_string(&b).unwrap();
    let (code, err) = selfplay(&b, &["--games", "2", "--temperature", "3"]);
    assert_eq!(code, 2);
    assert!(err.contains("holds games of other settings"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), kept);

    // A damaged line is reported with its line number.
    std::fs::write(
        &b,
        format!("{}\n7\t0\tf5a1\t+2\t+1\n", kept.lines().next().unwrap()),
    )
    .unwrap();
    let (code, err) = selfplay(&b, &["--games", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains(":2: bad self-play record"), "{err}");
    for p in [a, b] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn record_lines_parse_back_to_the_same_game() {
    let line = "0\t2\tf5d6c3d3\t+4\t+1,-2";
    let r = GameRecord::parse(line).unwrap();
    assert_eq!(r.line(), line);
    let p = r.positions();
    assert_eq!(p.len(), 2);
    // The third move is black's: the exact score is black's view.
    assert_eq!((p[0].value, p[0].exact), (1, 4));
    assert_eq!((p[1].value, p[1].exact), (-2, -4));
    assert_eq!(p[0].position.board.empties(), 58);
}

#[test]
fn eval_error_reports_the_static_evaluation_against_the_labels() {
    let set = temp("set.obf");
    // The start position (60 empties) and one after f5 (59), labelled +4 and −2.
    std::fs::write(
        &set,
        "---------------------------OX------XO--------------------------- X; F5:+4;\n\
         ---------------------------OX------XXX-------------------------- O; F4:-2;\n",
    )
    .unwrap();
    let (code, out, err) = flank(
        &[
            "eval-error",
            set.to_str().unwrap(),
            "--eval",
            "classic",
            "--bucket",
            "10",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let e0 = flank::eval::classic::evaluate(&Board::start());
    let after_f5 = flank::notation::parse_transcript("f5").unwrap().1.board;
    let e1 = flank::eval::classic::evaluate(&after_f5);
    let (d0, d1) = ((e0 - 4) as f64, (e1 + 2) as f64);
    let expected = format!(
        "all 59-60         2 {:>6.2} {:>6.2} {:>+6.2}",
        (d0.abs() + d1.abs()) / 2.0,
        ((d0 * d0 + d1 * d1) / 2.0).sqrt(),
        (d0 + d1) / 2.0
    );
    assert!(
        out.lines().any(|l| l == expected),
        "{out}\nwanted {expected}"
    );
    assert_eq!(out.lines().count(), 4, "{out}");
    let (code, _, err) = flank(&["eval-error", "/nonexistent/set.obf"], "");
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
    let _ = std::fs::remove_file(set);
}

#[test]
fn eval_swing_sums_a_position_and_its_best_child() {
    // The classic evaluation at depth 0: the position after f5 plus its child with the lowest
    // static value.
    let after_f5 = flank::notation::parse_transcript("f5").unwrap().1.board;
    let line = "---------------------------OX------XXX-------------------------- O\n";
    let (code, out, err) = flank(
        &[
            "eval-swing",
            "-",
            "--eval",
            "classic",
            "--depths",
            "0,1",
            "--empties",
            "50-59",
            "--threads",
            "1",
        ],
        line,
    );
    assert_eq!(code, 0, "{err}");
    let lowest = after_f5
        .legal_moves()
        .map(|sq| flank::eval::classic::evaluate(&after_f5.make_move(sq)))
        .min()
        .unwrap();
    let expected = flank::eval::classic::evaluate(&after_f5) + lowest;
    let row = out
        .lines()
        .find(|l| l.starts_with("50-59"))
        .unwrap_or_default();
    let static_sum: f64 = row.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(static_sum, expected as f64, "{out}");
    assert!(out.contains("static-d1"), "{out}");
    // The depth stability |v(P) at d1 - v(P) static|: a depth-1 search's value is minus the
    // lowest child's static value.
    let value = flank::eval::classic::evaluate(&after_f5);
    let stability = out
        .lines()
        .skip_while(|l| !l.starts_with("depth stability"))
        .find(|l| l.starts_with("50-59"))
        .unwrap_or_default();
    let change: f64 = stability
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(change, (-lowest - value).abs() as f64, "{out}");
    // No position in range, and a malformed depth list: a one-line error, exit 2.
    let (code, _, err) = flank(&["eval-swing", "-", "--empties", "20-30"], line);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
    let (code, _, err) = flank(&["eval-swing", "-", "--depths", "3-1"], line);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn refit_changes_only_the_chosen_phases_and_keeps_nets_and_probcut() {
    let games = temp("refit-games.txt");
    let (code, err) = selfplay(&games, &["--games", "6", "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    let out = temp("refit.bin");
    let (code, report, err) = flank(
        &[
            "refit",
            "--no-wthor",
            "--selfplay",
            games.to_str().unwrap(),
            "--phases",
            "24-25",
            "--mix",
            "0.5",
            "--iterations",
            "20",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(report.contains("self-play: 6 of 6 games"), "{report}");
    // Test games (index 2 mod 3: games 2 and 5) are never fitted, and --selfplay-every 2
    // keeps the even indices of the rest: games 0 and 4.
    let subset_out = temp("refit-subset.bin");
    let (code, subset, err) = flank(
        &[
            "refit",
            "--no-wthor",
            "--selfplay",
            games.to_str().unwrap(),
            "--phases",
            "24",
            "--iterations",
            "1",
            "--selfplay-test-every",
            "3",
            "--selfplay-every",
            "2",
            "--out",
            subset_out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(subset.contains("self-play: 2 of 6 games"), "{subset}");
    // `flank evalset --selfplay` writes exactly those test games' positions, each with the
    // move played and its game's exact result; --selfplay-test-every needs --selfplay, and a
    // file given twice (each game twice) is refused, by evalset and refit alike.
    let (code, set, err) = flank(
        &[
            "evalset",
            "--selfplay",
            games.to_str().unwrap(),
            "--selfplay-test-every",
            "3",
            "--empties",
            "1-59",
            "--count",
            "100000",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let (_, all) = read_records(&games).unwrap();
    let mut expected: Vec<String> = all
        .iter()
        .filter(|r| r.index % 3 == 2)
        .flat_map(|r| r.positions())
        .map(|p| {
            format!(
                "{} {}; {}:{:+};",
                p.position.cells(),
                p.position.side.letter(),
                p.played.to_string().to_uppercase(),
                p.exact
            )
        })
        .collect();
    let mut got: Vec<String> = set.lines().map(str::to_string).collect();
    expected.sort();
    got.sort();
    assert!(!got.is_empty());
    assert_eq!(got, expected);
    let g = games.to_str().unwrap();
    for args in [
        &["evalset", "--selfplay-test-every", "3"][..],
        &["evalset", "--selfplay", g, g],
        &[
            "refit",
            "--no-wthor",
            "--selfplay",
            g,
            g,
            "--out",
            "/dev/null",
        ],
        &["refit", "--selfplay-every", "2", "--out", "/dev/null"],
    ] {
        let (code, _, err) = flank(args, "");
        assert_eq!((code, err.lines().count()), (2, 1), "{args:?}: {err}");
    }
    let base = flank::eval::weights::decode_all(flank::eval::weights::EMBEDDED).unwrap();
    let new = flank::eval::weights::decode_all(&std::fs::read(&out).unwrap()).unwrap();
    let n = flank::eval::features::LAYOUT.compact_len;
    let phase = |w: &[i16], p: usize| w[p * n..(p + 1) * n].to_vec();
    for p in 0..flank::eval::features::NUM_PHASES {
        if p == 24 || p == 25 {
            assert_ne!(phase(&base.0, p), phase(&new.0, p), "phase {p} refitted");
        } else {
            assert_eq!(phase(&base.0, p), phase(&new.0, p), "phase {p} kept");
        }
    }
    assert_eq!(base.1, new.1, "nets kept");
    assert_eq!(base.2, new.2, "ProbCut table kept");
    // Refit positions of phase 24-25 (48-51 empties) are fitted better than by the base: the
    // training error of the refitted weights on their own labels is below the base's.
    let (_, records) = read_records(&games).unwrap();
    let base_eval = flank::eval::pattern::PatternEval::from_compact(&base.0).unwrap();
    let new_eval = flank::eval::pattern::PatternEval::from_compact(&new.0).unwrap();
    let (mut eb, mut en, mut count) = (0.0, 0.0, 0);
    for r in &records {
        for p in r.positions() {
            if (48..=51).contains(&p.position.board.empties()) {
                let label = 0.5 * p.value as f64 + 0.5 * p.exact as f64;
                eb += (base_eval.evaluate(&p.position.board) as f64 - label).powi(2);
                en += (new_eval.evaluate(&p.position.board) as f64 - label).powi(2);
                count += 1;
            }
        }
    }
    assert!(count > 0);
    assert!(
        en < eb,
        "refitted {en} against base {eb} over {count} positions"
    );
    for p in [games, out, subset_out] {
        let _ = std::fs::remove_file(p);
    }
}
