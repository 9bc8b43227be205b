//! Tests of the trained evaluation: symmetry invariance of features and values, the weights
//! file's error handling through the CLI, `--eval` selection, the embedded weights' quality on
//! hard-20 against the classic evaluation, and a deterministic `flank train --quick` subset.

mod common;

use common::{data_file, flank};
use flank::eval::features::{DiscDigits, FEATURES_PER_POSITION, compact_features};
use flank::eval::{ChildEval, Evaluator};
use flank::notation::parse_problem_line;
use flank::othello::board::{Board, Symmetry};

/// Positions from deterministic pseudo-random games, every ply.
fn positions(n: usize) -> Vec<Board> {
    let mut out = Vec::new();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    while out.len() < n {
        let mut b = Board::start();
        while !b.is_game_over() && out.len() < n {
            out.push(b);
            let moves: Vec<_> = b.legal_moves().collect();
            if moves.is_empty() {
                b = b.pass();
                continue;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b = b.make_move(moves[(x % moves.len() as u64) as usize]);
        }
    }
    out
}

/// Every child of 3,000 positions of random games (all phases, the residual nets at 2–9
/// empties included): the child evaluation from the parent's pattern digits equals the
/// evaluation of the child board, and the updated digits equal those read from the child.
#[test]
fn child_evaluation_equals_evaluating_the_child() {
    let mut children = 0;
    for b in positions(3000) {
        let ce = ChildEval::new(flank::eval::active(), b.player, b.opponent);
        let parent = DiscDigits::new(b.player, b.opponent);
        assert_eq!(parent, DiscDigits::by_gather(b.player, b.opponent), "{b:?}");
        for sq in b.legal_moves() {
            let x = sq.index() as u32;
            let c = b.make_move(sq);
            let flipped = b.opponent & !c.player;
            assert_eq!(
                parent.child(x, flipped),
                DiscDigits::new(c.player, c.opponent),
                "{b:?} {sq}"
            );
            let cm = c.moves();
            if cm != 0 {
                let v = ce.evaluate(c.player, c.opponent, x, flipped, cm);
                assert_eq!(v, flank::eval::evaluate(&c), "{b:?} {sq}");
                children += 1;
            }
        }
    }
    assert!(children > 20_000, "{children}");
}

#[test]
fn features_and_values_are_symmetric() {
    let trained = Evaluator::embedded().expect("embedded weights decode");
    for b in positions(600) {
        let mut f0 = [0u32; FEATURES_PER_POSITION];
        compact_features(&b, &mut f0);
        f0.sort_unstable();
        let v0 = trained.evaluate(&b);
        for s in Symmetry::ALL {
            let t = b.transform(s);
            let mut f = [0u32; FEATURES_PER_POSITION];
            compact_features(&t, &mut f);
            f.sort_unstable();
            assert_eq!(f, f0, "features differ under {s:?}");
            assert_eq!(trained.evaluate(&t), v0, "value differs under {s:?}");
        }
    }
}

#[test]
fn trained_values_are_clamped_and_antisymmetric_at_the_start() {
    let trained = Evaluator::embedded().expect("embedded weights decode");
    for b in positions(2000) {
        let v = trained.evaluate(&b);
        assert!((-63..=63).contains(&v), "{v} out of range");
    }
    // The start position is balanced: a small value either way.
    assert!(trained.evaluate(&Board::start()).abs() <= 3);
}

/// Static evaluation of the 20-empties hard-20 positions against their exact scores: the
/// trained evaluation must estimate the final disc difference far better than the classic one.
#[test]
fn trained_static_error_on_hard20_beats_classic() {
    let Some(text) = data_file("endgame/hard-20.obf") else {
        return;
    };
    let trained = Evaluator::embedded().expect("embedded weights decode");
    let (mut n, mut et, mut ec) = (0, 0i64, 0i64);
    for line in text.lines() {
        let Some(p) = parse_problem_line(line).expect("hard-20 parses") else {
            continue;
        };
        let Some(exact) = p.expected else { continue };
        let b = p.position.board;
        et += (trained.evaluate(&b) - exact).abs() as i64;
        ec += (Evaluator::Classic.evaluate(&b) - exact).abs() as i64;
        n += 1;
    }
    assert_eq!(n, 276);
    let (mt, mc) = (et as f64 / n as f64, ec as f64 / n as f64);
    eprintln!("hard-20 static MAE: trained {mt:.2}, classic {mc:.2}");
    assert!(mt < 7.0, "trained static MAE {mt:.2}");
    assert!(mt < mc, "trained {mt:.2} vs classic {mc:.2}");
}

#[test]
fn bad_weights_files_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("flank-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.bin");
    std::fs::write(
        &bad,
        b"FLANKEVL\x01\x00\x00\x00 these bytes are not really any weights",
    )
    .unwrap();
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, vec![7u8; 100]).unwrap();
    let trailing = dir.join("trailing.bin");
    let mut t = flank::eval::weights::EMBEDDED.to_vec();
    t.extend_from_slice(b"junk");
    std::fs::write(&trailing, t).unwrap();
    for (path, reason) in [
        (dir.join("missing.bin"), "cannot read weights file"),
        (
            "Classic".into(),
            "(the evaluation is classic, trained or a weights file)",
        ),
        (bad.clone(), "another flank version"),
        (garbage.clone(), "bad magic"),
        (
            trailing.clone(),
            "4 unexpected bytes after the weights data",
        ),
    ] {
        let p = path.to_string_lossy().to_string();
        let (code, out, err) = flank(&["solve", "--eval", &p, "--depth", "2", "-"], "");
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty());
        assert!(err.starts_with("flank: "), "{err}");
        assert!(err.contains(reason), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `flank train` refuses, before any work, what would lose the committed weights or a long
/// run: `--quick` without `--out`, an output path that is a directory or in a missing
/// directory, and a run with no samples at all.
#[test]
fn train_rejects_bad_settings_up_front() {
    let dir = std::env::temp_dir().join(format!("flank-train-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_string_lossy().to_string();
    let missing = dir.join("no/such/dir/w.bin").to_string_lossy().to_string();
    let ok_out = dir.join("w.bin").to_string_lossy().to_string();
    let no_base = dir.join("no-base.bin").to_string_lossy().to_string();
    let cases: [(&[&str], &str); 5] = [
        (
            &["train", "--quick", "--out", &ok_out, "--base", &no_base],
            "cannot read --base",
        ),
        (&["train", "--quick"], "--quick needs --out FILE"),
        (&["train", "--quick", "--out", &d], "is a directory"),
        (&["train", "--quick", "--out", &missing], "does not exist"),
        (
            &[
                "train",
                "--quick",
                "--out",
                &ok_out,
                "--games",
                "0",
                "--wthor-games",
                "0",
            ],
            "no training samples",
        ),
    ];
    for (args, reason) in cases {
        let (code, out, err) = flank(args, "");
        // Checked before any work (zero samples can only be known after it).
        if reason != "no training samples" {
            assert!(!out.contains("wthor:"), "{args:?}: {out}");
        }
        // The output path is checked before the data directory is looked up; --base and the
        // samples are read after it: without the data, skip those cases.
        if err.contains("shared data directory not found")
            && std::env::var("FLANK_REQUIRE_DATA").as_deref() != Ok("1")
        {
            common::skipped(&format!("({reason}) {}", err.trim()));
            continue;
        }
        if reason == "no training samples" && err.contains("not found") {
            common::skipped(err.trim());
            continue;
        }
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("flank: "), "{err}");
        assert!(err.contains(reason), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert!(!dir.join("no").exists(), "no directory may be created");
    assert!(!dir.join("w.bin").exists(), "no weights from zero samples");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn eval_flag_selects_the_evaluator() {
    let board = "---------------------------OX------XO--------------------------- X\n";
    for spec in ["classic", "trained"] {
        let (code, out, err) = flank(
            &["solve", "--eval", spec, "--depth", "4", "--json", "-"],
            board,
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON line");
        let best = v["best"].as_str().unwrap_or("");
        // The four first moves are symmetric: any of them.
        assert!(["d3", "c4", "f5", "e6"].contains(&best), "{best}");
    }
    let (code, out, _) = flank(&["gtp", "--eval", "classic"], "1 name\nquit\n");
    assert_eq!(code, 0);
    assert!(out.starts_with("=1 flank"), "{out}");
}

/// Whether the WTHOR games are there (`$FLANK_DATA/games/wthor`); if not, says SKIPPED (or
/// fails under `FLANK_REQUIRE_DATA=1`).
fn wthor_available() -> bool {
    let root = std::env::var("FLANK_DATA").unwrap_or_else(|_| "../shared/data".into());
    let wthor = std::path::PathBuf::from(root).join("games/wthor");
    if wthor.join("WTH_2020.wtb").is_file() {
        return true;
    }
    assert!(
        std::env::var("FLANK_REQUIRE_DATA").as_deref() != Ok("1"),
        "{} is required (FLANK_REQUIRE_DATA=1)",
        wthor.display()
    );
    common::skipped(&format!("{} not found (set FLANK_DATA)", wthor.display()));
    false
}

/// `flank train` on a tiny subset runs end to end, writes a loadable file, and is
/// deterministic: two runs with the same seed give the same bytes.
#[test]
fn tiny_training_is_deterministic_and_loadable() {
    if !wthor_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flank-train-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (i, jobs) in ["1", "2"].iter().enumerate() {
        let out = dir.join(format!("w{i}.bin"));
        let o = out.to_string_lossy().to_string();
        let (code, stdout, err) = flank(
            &[
                "train",
                "--quick",
                "--wthor-games",
                "300",
                "--games",
                "8",
                "--deviation-plies",
                "1",
                "--leaf-samples",
                "300",
                "--jobs",
                jobs,
                "--out",
                &o,
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains("wthor: "), "{stdout}");
        assert!(stdout.contains("300 used"), "{stdout}");
        assert!(stdout.contains("self-play: 8 games"), "{stdout}");
        assert!(stdout.contains("search leaves: "), "{stdout}");
        // One row per phase, and one per residual net (empties 2-9 by default).
        assert_eq!(
            stdout
                .lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count(),
            flank::eval::features::NUM_PHASES + 8,
            "{stdout}"
        );
        assert!(
            stdout.contains("residual nets (32 hidden units"),
            "{stdout}"
        );
        // The file holds the nets the report marks as kept (those that lowered the error).
        let kept: Vec<usize> = stdout
            .lines()
            .filter(|l| l.ends_with("  yes"))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        let bytes = std::fs::read(&out).unwrap();
        let ev = flank::eval::weights::evaluator_from_bytes(&bytes).expect("loadable");
        assert_eq!(ev.nets().slot_list(), kept, "{stdout}");
        files.push(bytes);
    }
    assert_eq!(
        files[0], files[1],
        "same seed, different thread counts: same weights"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--base trained` keeps the built-in linear weights and the built-in nets of the phases
/// that are not retrained.
#[test]
fn base_keeps_linear_weights_and_other_phases_nets() {
    if !wthor_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flank-train-base-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("b.bin");
    let o = out.to_string_lossy().to_string();
    let (code, stdout, err) = flank(
        &[
            "train",
            "--quick",
            "--wthor-games",
            "200",
            "--games",
            "4",
            "--leaf-samples",
            "200",
            "--base",
            "trained",
            "--net-phases",
            "none",
            "--net-empties",
            "5",
            "--out",
            &o,
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("not refitted"), "{stdout}");
    let (w, nets) = flank::eval::weights::decode(&std::fs::read(&out).unwrap()).unwrap();
    let (w0, nets0) = flank::eval::weights::decode(flank::eval::weights::EMBEDDED).unwrap();
    let five = flank::eval::net::empties_slot(5);
    let kept: Vec<usize> = nets0
        .slot_list()
        .into_iter()
        .filter(|&s| s != five)
        .collect();
    assert!(!kept.is_empty(), "the built-in weights have nets");
    assert!(
        stdout.contains(&format!("residual nets kept from the base: slots {kept:?}")),
        "{stdout}"
    );
    assert!(w == w0, "linear weights must be the base's");
    for s in kept {
        assert!(
            nets.get(s) == nets0.get(s),
            "slot {s} net must be the base's"
        );
    }
    assert!(
        nets.get(five) != nets0.get(five),
        "the 5-empties net was retrained (or dropped)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plain negamax to the end of the game (passes included): the exact final disc difference.
fn exact(b: &Board) -> i32 {
    if b.is_game_over() {
        return b.final_score();
    }
    let moves: Vec<_> = b.legal_moves().collect();
    if moves.is_empty() {
        return -exact(&b.pass());
    }
    moves
        .iter()
        .map(|&m| -exact(&b.make_move(m)))
        .max()
        .unwrap()
}

/// Roots for search-leaf walks: the positions with 9-22 empties and a move among the first
/// `n` of [`positions`], numbered as games from `first_game` on (labels unused).
fn walk_roots(n: usize, first_game: u32) -> Vec<flank::train::Sample> {
    positions(n)
        .into_iter()
        .filter(|b| (9..=22).contains(&b.empties()) && b.has_moves())
        .enumerate()
        .map(|(i, board)| flank::train::Sample {
            board,
            label: 0,
            game: first_game + i as u32,
        })
        .collect()
}

/// Search-leaf samples sit at 2-9 empties, carry the exact score of their own position
/// (checked by plain negamax), keep their root's game number, and do not depend on the call.
#[test]
fn leaf_samples_are_exactly_labelled_low_empties_positions() {
    let roots = walk_roots(4000, 1000);
    assert!(roots.len() > 100);
    let mut opts = flank::train::TrainOptions::quick("unused".into(), "unused".into());
    opts.leaf_samples = 300;
    let policy = Evaluator::Classic;
    let leaves = flank::train::leaf_samples(&roots, &opts, &policy);
    // A walk may end in a finished game or a position to pass: those are skipped.
    assert!(leaves.len() > 250, "{}", leaves.len());
    let games: std::collections::HashSet<u32> = roots.iter().map(|s| s.game).collect();
    for s in &leaves {
        assert!((2..=9).contains(&s.board.empties()));
        assert!(s.board.has_moves());
        assert!(games.contains(&s.game));
        assert_eq!(s.label as i32, exact(&s.board), "{:?}", s.board);
    }
    let again = flank::train::leaf_samples(&roots, &opts, &policy);
    assert_eq!(leaves.len(), again.len());
    assert!(
        leaves
            .iter()
            .zip(&again)
            .all(|(a, b)| a.board == b.board && a.label == b.label && a.game == b.game)
    );
    opts.seed = 2;
    let other = flank::train::leaf_samples(&roots, &opts, &policy);
    assert!(leaves.iter().zip(&other).any(|(a, b)| a.board != b.board));
}

/// The residual nets learn what a linear part misses: on top of an all-zero linear
/// evaluation, nets trained on exactly solved positions at 2-9 empties must cut the held-out
/// error of every phase or empties count they cover by a wide margin, and training is
/// deterministic.
#[test]
fn residual_nets_learn_the_residual() {
    let roots = walk_roots(20_000, 0);
    let mut opts = flank::train::TrainOptions::quick("unused".into(), "unused".into());
    opts.leaf_samples = 6000;
    opts.validation_percent = 20;
    opts.net_phases = vec![2, 3];
    opts.net_empties = vec![5];
    opts.net_epochs = 10;
    opts.net_rate = 0.01;
    let samples = flank::train::leaf_samples(&roots, &opts, &Evaluator::Classic);
    let n = flank::eval::features::LAYOUT.compact_len * flank::eval::features::NUM_PHASES;
    let zero = flank::eval::pattern::PatternEval::from_compact(&vec![0; n]).unwrap();
    let (nets, reports) = flank::train::train_nets(&samples, &opts, &zero);
    let five = flank::eval::net::empties_slot(5);
    assert_eq!(nets.slot_list(), vec![2, 3, five]);
    assert_eq!(reports.len(), 3);
    for r in &reports {
        eprintln!(
            "slot {} ({}-{} empties): {} train, {} valid, MAE {:.2} -> {:.2}",
            r.slot, r.empties.0, r.empties.1, r.train, r.valid, r.linear_mae, r.net_mae
        );
        assert!(r.valid > 100, "{r:?}");
        assert!(r.net_mae < 0.7 * r.linear_mae, "{r:?}");
    }
    let (again, _) = flank::train::train_nets(&samples, &opts, &zero);
    assert!(again == nets, "same seed, same nets");
}

/// A WTHOR game through a test position is left out of training, in any symmetry.
#[test]
fn games_through_test_positions_are_left_out() {
    if !wthor_available() {
        return;
    }
    let file = flank::data::data_file("games/wthor/WTH_2020.wtb").unwrap();
    let dir = file.parent().unwrap();
    let none = std::collections::HashSet::new();
    let (all, stats) = flank::train::load_wthor(dir, Some(40), 6, 0, &none).unwrap();
    assert_eq!(stats.test_games, 0);
    // A position of game 3 at 20 empties, mirrored, written as an OBF test file.
    let b = all
        .iter()
        .find(|s| s.game == 3 && s.board.empties() == 20)
        .unwrap()
        .board
        .transform(Symmetry::ALL[5]);
    let cells: String = (0..64)
        .map(|i| match (b.player >> i & 1, b.opponent >> i & 1) {
            (1, _) => 'X',
            (_, 1) => 'O',
            _ => '-',
        })
        .collect();
    let path = std::env::temp_dir().join(format!("flank-test-pos-{}.obf", std::process::id()));
    std::fs::write(&path, format!("{cells} X;\n")).unwrap();
    let test = flank::train::load_test_positions(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(test.contains(&(b.player, b.opponent)));
    let (kept, stats) = flank::train::load_wthor(dir, Some(40), 6, 0, &test).unwrap();
    assert_eq!(stats.test_games, 1);
    assert!(kept.iter().all(|s| s.game != 3));
    assert_eq!(
        kept.len(),
        all.iter().filter(|s| s.game != 3).count(),
        "only game 3 is left out"
    );
    // A missing test file leaves out nothing.
    assert!(
        flank::train::load_test_positions(std::path::Path::new("/nonexistent/x.obf"))
            .unwrap()
            .is_empty()
    );
}

/// The weights file is the product of `flank train`: a reader that stops reading the report
/// (`flank train | head -1`) does not stop the training; and a run that fails writes no
/// samples cache that a later run would pick up.
#[test]
fn train_survives_a_closed_report_and_writes_nothing_on_failure() {
    if !wthor_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flank-train-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.bin");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_flank"))
        .args(["train", "--quick", "--wthor-games", "200", "--games", "4"])
        .args(["--leaf-samples", "200", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    assert_eq!(
        done.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let bytes = std::fs::read(&out).expect("weights written although the report was cut");
    assert!(flank::eval::weights::evaluator_from_bytes(&bytes).is_ok());

    let cache = dir.join("cache.bin");
    let (code, _, err) = flank(
        &[
            "train",
            "--quick",
            "--wthor-games",
            "0",
            "--games",
            "0",
            "--out",
            &dir.join("none.bin").to_string_lossy(),
            "--samples",
            &cache.to_string_lossy(),
        ],
        "",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no training samples"), "{err}");
    assert!(!cache.exists(), "a failed run wrote the samples cache");
    assert!(!dir.join("none.bin").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The exact score of `b` for the side to move by plain negamax (the reference for
/// `flank evalset`'s move scores; only for few empties).
fn negamax_exact(b: &Board) -> i32 {
    if !b.has_moves() {
        let q = b.pass();
        return if q.has_moves() {
            -negamax_exact(&q)
        } else {
            b.final_score()
        };
    }
    b.legal_moves()
        .map(|m| -negamax_exact(&b.make_move(m)))
        .max()
        .expect("a legal move")
}

#[test]
fn evalset_lists_every_move_with_its_exact_score_from_held_out_games() {
    if !wthor_available() {
        return;
    }
    let dir = std::env::temp_dir();
    let a = dir.join(format!("flank-evalset-{}-a.obf", std::process::id()));
    let b = dir.join(format!("flank-evalset-{}-b.obf", std::process::id()));
    let run = |path: &std::path::Path, seed: &str| {
        let (code, _, err) = flank(
            &[
                "evalset",
                "--empties",
                "8",
                "--count",
                "25",
                "--seed",
                seed,
                "--out",
                path.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("with 8 empties; wrote 25"), "{err}");
        let text = std::fs::read_to_string(path).unwrap();
        let _ = std::fs::remove_file(path);
        text
    };
    let text = run(&a, "1");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 25);
    let distinct: std::collections::HashSet<&&str> = lines.iter().collect();
    assert_eq!(distinct.len(), 25, "positions are distinct");
    for line in &lines {
        let p = parse_problem_line(line).unwrap().expect("an OBF line");
        let board = p.position.board;
        assert_eq!(board.empties(), 8, "{line}");
        let mut listed: Vec<String> = p.move_scores.iter().map(|(m, _)| m.to_string()).collect();
        let mut legal: Vec<String> = board.legal_moves().map(|m| m.to_string()).collect();
        listed.sort();
        legal.sort();
        assert_eq!(listed, legal, "every legal move once: {line}");
        let mut last = i32::MAX;
        for &(m, s) in &p.move_scores {
            let flank::othello::square::Move::Play(sq) = m else {
                panic!("a pass listed: {line}");
            };
            assert_eq!(s, -negamax_exact(&board.make_move(sq)), "{m} in {line}");
            assert!(s <= last, "best first: {line}");
            last = s;
        }
    }
    // Another seed's validation split gives other games.
    let other = run(&b, "2");
    assert_ne!(text, other);
    // An unwritable output fails before the work, with a one-line reason.
    let (code, _, err) = flank(&["evalset", "--out", "/nonexistent-dir/x.obf"], "");
    assert_ne!(code, 0);
    assert!(err.contains("cannot write /nonexistent-dir/x.obf"), "{err}");
}

#[test]
fn midgame_evalset_labels_each_position_with_its_search_value() {
    if !wthor_available() {
        return;
    }
    let (code, out, err) = flank(
        &[
            "evalset",
            "--empties",
            "30-33",
            "--depth",
            "3",
            "--count",
            "8",
            "--eval",
            "classic",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("with 30-33 empties; wrote 8 labelled by depth-3"),
        "{err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8);
    let mut per_count = [0; 4];
    for line in &lines {
        let p = parse_problem_line(line).unwrap().expect("an OBF line");
        let e = p.position.board.empties();
        assert!((30..=33).contains(&e), "{line}");
        per_count[(e - 30) as usize] += 1;
        // One move, the search's, with its value.
        assert_eq!(p.move_scores.len(), 1, "{line}");
        let flank::othello::square::Move::Play(sq) = p.move_scores[0].0 else {
            panic!("a pass listed: {line}");
        };
        assert!(
            p.position.board.moves() & sq.bit() != 0,
            "a legal move: {line}"
        );
    }
    // The same search, run by `flank eval-error --depth 3` (in its own process, so with the
    // classic evaluation), gives every label exactly.
    let set = std::env::temp_dir().join(format!("flank-midset-{}.obf", std::process::id()));
    std::fs::write(&set, &out).unwrap();
    let (code, table, err) = flank(
        &[
            "eval-error",
            set.to_str().unwrap(),
            "--depth",
            "3",
            "--eval",
            "classic",
            "--bucket",
            "4",
        ],
        "",
    );
    let _ = std::fs::remove_file(&set);
    assert_eq!(code, 0, "{err}");
    assert!(
        table
            .lines()
            .any(|l| l == "all 30-33         8   0.00   0.00  +0.00"),
        "{table}"
    );
    assert_eq!(per_count, [2; 4], "the count is shared among the empties");
    // Above 24 empties a set needs a label depth.
    let (code, _, err) = flank(&["evalset", "--empties", "30-40"], "");
    assert_eq!(code, 2);
    assert!(err.contains("need a label depth"), "{err}");
}

#[test]
fn evalset_failure_keeps_an_existing_output_and_stdout_errors_count() {
    // A data directory whose WTHOR folder is empty: the run fails after the output check.
    let root = std::env::temp_dir().join(format!("flank-evalset-empty-{}", std::process::id()));
    std::fs::create_dir_all(root.join("games/wthor")).unwrap();
    let out = root.join("set.obf");
    std::fs::write(&out, "previous set\n").unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_flank"))
            .args(args)
            .env("FLANK_DATA", &root)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["evalset", "--count", "1", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no .wtb files"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous set\n");
    let left: Vec<_> = std::fs::read_dir(&root).unwrap().collect();
    assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
    std::fs::remove_dir_all(&root).unwrap();
    // A full disk on stdout is an error, not a silent success.
    if std::path::Path::new("/dev/full").exists() && wthor_available() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_flank"))
            .args(["evalset", "--count", "2", "--empties", "6"])
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("cannot write to stdout"), "{err}");
    }
}

/// The exact solver orders its moves and cuts with the weights file's solver weights
/// ([`flank::eval::weights::SolverWeights`]), the midgame search with its main weights: a file
/// whose main linear weights are changed (a third of the built-in ones halved; no nets) but
/// which keeps the built-in solver weights solves three 20-empties positions with the same
/// scores and the same node count as the built-in weights, where the same file without solver
/// weights takes another count; and its depth-6 midgame search differs from the built-in one.
#[test]
fn the_solver_orders_with_the_solver_weights() {
    use flank::eval::weights::{EMBEDDED, base_solver, decode_all, encode_full};
    let (w, _, mpc) = decode_all(EMBEDDED).expect("built-in weights decode");
    // Without the nets (2-9 empties), which neither the solver's ordering nor its ProbCut
    // reaches: the files are quick to write, and the counts still must agree.
    let nets = flank::eval::net::Nets::none();
    let solver = base_solver(EMBEDDED).expect("built-in solver weights");
    let changed: Vec<i16> = w
        .iter()
        .enumerate()
        .map(|(i, &x)| if i % 3 == 0 { x / 2 } else { x })
        .collect();
    let dir = std::env::temp_dir().join(format!("flank-solver-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let keep = dir.join("keep.bin");
    let plain = dir.join("plain.bin");
    std::fs::write(
        &keep,
        encode_full(&changed, &nets, mpc.as_ref(), Some(&solver)),
    )
    .unwrap();
    std::fs::write(&plain, encode_full(&changed, &nets, mpc.as_ref(), None)).unwrap();
    // Three positions of random games at 20 empties, as board strings (X to move).
    let boards: Vec<String> = positions(4000)
        .into_iter()
        .filter(|b| b.empties() == 20 && b.has_moves())
        .take(3)
        .map(|b| {
            let sq = |i: u32| match (b.player >> i & 1, b.opponent >> i & 1) {
                (1, _) => 'X',
                (_, 1) => 'O',
                _ => '-',
            };
            format!("{} X\n", (0..64).map(sq).collect::<String>())
        })
        .collect();
    assert_eq!(boards.len(), 3);
    let input = boards.concat();
    let run = |spec: &str, extra: &[&str]| -> Vec<(i64, u64)> {
        let mut args = vec!["solve", "--threads", "1", "--hash", "64", "--json"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--eval", spec, "-"]);
        let (code, out, err) = flank(&args, &input);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("one JSON line");
                (v["score"].as_i64().unwrap(), v["nodes"].as_u64().unwrap())
            })
            .collect()
    };
    let (keep_s, plain_s) = (keep.to_string_lossy(), plain.to_string_lossy());
    let built_in = run("trained", &[]);
    let kept = run(&keep_s, &[]);
    let own = run(&plain_s, &[]);
    assert_eq!(built_in.len(), 3);
    assert_eq!(kept, built_in, "solver weights kept: same scores and nodes");
    let scores = |r: &[(i64, u64)]| r.iter().map(|x| x.0).collect::<Vec<_>>();
    let nodes = |r: &[(i64, u64)]| r.iter().map(|x| x.1).sum::<u64>();
    assert_eq!(scores(&own), scores(&built_in), "exact scores never change");
    assert_ne!(
        nodes(&own),
        nodes(&built_in),
        "the changed weights order otherwise"
    );
    assert_ne!(
        run(&keep_s, &["--depth", "6"]),
        run("trained", &["--depth", "6"]),
        "the midgame search uses the main weights"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `flank refit --wthor-cache` labels the WTHOR positions once: a second refit reads the
/// labels back and writes the same weights, and a refit with other labelling settings is
/// refused with the cache kept.
#[test]
fn refit_wthor_cache_gives_the_same_weights_and_refuses_other_settings() {
    if !wthor_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flank-refit-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cache = dir.join("wthor.cache");
    let refit = |out: &str, children_depth: &str| {
        let out = dir.join(out);
        let r = flank(
            &[
                "refit",
                "--eval",
                "classic",
                "--wthor-games",
                "150",
                "--phases",
                "27-29",
                "--children-every",
                "3",
                "--children-depth",
                children_depth,
                "--iterations",
                "5",
                "--wthor-cache",
                cache.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            "",
        );
        (r, std::fs::read(&out).ok())
    };
    let ((code, first, err), written) = refit("a.bin", "3");
    assert_eq!(code, 0, "{err}");
    assert!(first.contains("wthor: labels written to"), "{first}");
    let cached = std::fs::read(&cache).unwrap();
    let ((code, second, err), read) = refit("b.bin", "3");
    assert_eq!(code, 0, "{err}");
    assert!(second.contains("wthor: labels read from"), "{second}");
    // The same positions and searches, and the same weights.
    let counts = |report: &str| {
        report
            .lines()
            .find(|l| l.starts_with("wthor: ") && l.contains(" positions with "))
            .map(|l| l.split(" (").next().unwrap().to_owned())
    };
    assert!(counts(&first).is_some(), "{first}");
    assert_eq!(counts(&first), counts(&second));
    assert!(written.is_some());
    assert_eq!(written, read, "the cached labels fit the same weights");
    // Children searched one ply deeper label otherwise: refused, nothing written.
    let ((code, _, err), other) = refit("c.bin", "4");
    assert_ne!(code, 0);
    assert!(err.contains("was labelled with other settings"), "{err}");
    assert!(other.is_none());
    assert_eq!(std::fs::read(&cache).unwrap(), cached, "the cache is kept");
    // The cache named as the output too: refused before anything is written.
    let ((code, _, err), _) = refit("wthor.cache", "3");
    assert_ne!(code, 0);
    assert!(err.contains("is also the --out file"), "{err}");
    assert_eq!(std::fs::read(&cache).unwrap(), cached, "the cache is kept");
    let _ = std::fs::remove_dir_all(&dir);
}
