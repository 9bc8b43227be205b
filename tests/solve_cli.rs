//! `flank solve` end to end: JSON fields, `ok` judgement, exit statuses, the built-in set.
//! Uses `$FLANK_DATA/endgame/random-10-empties-1k.txt` (skipped with a message when missing,
//! unless `FLANK_REQUIRE_DATA=1`).

mod common;

use common::{data_file, flank};

#[test]
fn json_records_agree_with_the_10_empties_set() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let lines: Vec<&str> = text.lines().take(40).collect();
    let (code, out, err) = flank(&["solve", "--json", "-"], &lines.join("\n"));
    assert_eq!(code, 0, "{err}");
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(recs.len(), lines.len());
    for (i, (rec, line)) in recs.iter().zip(&lines).enumerate() {
        let expected: i64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(rec["id"], i as i64 + 1);
        assert_eq!(rec["empties"], 10);
        assert_eq!(rec["score"], expected, "{line}");
        assert_eq!(rec["expected"], expected);
        assert_eq!(rec["expected_score"], expected);
        assert_eq!(rec["ok"], true);
        assert_eq!(rec["exact"], true);
        assert_eq!(rec["board"].as_str().unwrap(), &line[..64]);
        assert_eq!(rec["side"].as_str().unwrap(), &line[65..66]);
        for key in ["best", "depth", "nodes", "time_ms", "pv"] {
            assert!(!rec[key].is_null(), "missing {key}");
        }
        // The PV starts with the best move.
        let best = rec["best"].as_str().unwrap();
        assert!(rec["pv"].as_str().unwrap().starts_with(best));
    }
}

#[test]
fn a_wrong_expected_score_fails_the_run() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let line = text.lines().next().unwrap();
    let (board, score) = line.rsplit_once(' ').unwrap();
    let wrong = format!("{board} {}", score.parse::<i32>().unwrap() + 2);
    let (code, out, _) = flank(&["solve", "--json", "-"], &wrong);
    assert_eq!(code, 1);
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(rec["ok"], false);
    // Text mode marks the row.
    let (code, out, _) = flank(&["solve", "-"], &wrong);
    assert_eq!(code, 1);
    assert!(out.contains("WRONG (expected"), "{out}");
    assert!(out.contains("total: 1 positions, 0 ok, 1 wrong"), "{out}");
    // A WLD solve judged wrong names the expected win/draw/loss before the listed score.
    let exact: i32 = score.parse().unwrap();
    let flipped = if exact == 0 { 2 } else { -exact };
    let word = match flipped.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    };
    let (code, out, _) = flank(&["solve", "--wld", "-"], &format!("{board} {flipped}"));
    assert_eq!(code, 1);
    assert!(
        out.contains(&format!("WRONG (expected {word} ({flipped:+}))")),
        "{out}"
    );
}

#[test]
fn wld_and_exact_agree_in_sign() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let lines: Vec<&str> = text.lines().skip(100).take(30).collect();
    let (code, out, err) = flank(&["solve", "--wld", "--json", "-"], &lines.join("\n"));
    assert_eq!(code, 0, "{err}");
    for (l, line) in out.lines().zip(&lines) {
        let rec: serde_json::Value = serde_json::from_str(l).unwrap();
        let expected: i64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(rec["score"].as_i64().unwrap(), expected.signum(), "{line}");
        // `expected` compares with `score`: the win/loss/draw; the disc score is beside it.
        assert_eq!(rec["expected"], expected.signum(), "{line}");
        assert_eq!(rec["expected_score"], expected, "{line}");
        assert_eq!(rec["ok"], true, "{line}");
    }
}

#[test]
fn wld_json_expects_the_sign_of_the_best_listed_score() {
    // FFO #1: G8 wins by 18 discs.
    let obf = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6;";
    let (code, out, err) = flank(&["solve", "--wld", "--json", "--threads", "1", "-"], obf);
    assert_eq!(code, 0, "{err}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(rec["score"], 1);
    assert_eq!(rec["expected"], 1);
    assert_eq!(rec["expected_score"], 18);
    assert_eq!(rec["ok"], true);
    // The same line with a losing listed score: `ok` judges the sign as before.
    let wrong = obf
        .replace("G8:+18", "G8:-18")
        .replace("H1:+12", "H1:-20")
        .replace("H7:+6", "H7:-22");
    let (code, out, _) = flank(&["solve", "--wld", "--json", "--threads", "1", "-"], &wrong);
    assert_eq!(code, 1);
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(rec["expected"], -1);
    assert_eq!(rec["expected_score"], -18);
    assert_eq!(rec["ok"], false);
    // A board without a score: neither field.
    let board = &obf[..66];
    let (code, out, err) = flank(&["solve", "--wld", "--json", "--threads", "1", "-"], board);
    assert_eq!(code, 0, "{err}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(rec["score"], 1);
    assert!(rec.get("expected").is_none(), "{rec}");
    assert!(rec.get("expected_score").is_none(), "{rec}");
    assert!(rec.get("ok").is_none(), "{rec}");
}

#[test]
fn builtin_positions_solve_without_a_file() {
    let (code, out, err) = flank(&["solve", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), flank::cli::solve::BUILTIN_TRANSCRIPTS.len());
    for rec in &recs {
        assert_eq!(rec["exact"], true);
        assert!(
            rec["ok"].is_null(),
            "built-in positions carry no expected score"
        );
        let score = rec["score"].as_i64().unwrap();
        assert!(
            (-64..=64).contains(&score) && score % 2 == 0,
            "even disc difference: {score}"
        );
    }
}

#[test]
fn positions_selects_by_number_and_keeps_the_numbering() {
    let Some(text) = data_file("endgame/random-10-empties-1k.txt") else {
        return;
    };
    let lines: Vec<&str> = text.lines().take(12).collect();
    let input = lines.join("\n");
    let args = [
        "solve",
        "--json",
        "--first-id",
        "20",
        "--positions",
        "22,25-27",
        "-",
    ];
    let (code, out, err) = flank(&args, &input);
    assert_eq!(code, 0, "{err}");
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<i64> = recs.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [22, 25, 26, 27]);
    for rec in &recs {
        let line = lines[rec["id"].as_i64().unwrap() as usize - 20];
        assert_eq!(rec["board"].as_str().unwrap(), &line[..64]);
        let expected: i64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(rec["score"], expected, "{line}");
    }
    // Numbers beyond the input get a note; what exists is solved.
    let (code, out, err) = flank(&["solve", "--json", "--positions", "12-15", "-"], &input);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1);
    assert!(
        err.contains("--positions names numbers the input does not have (it has 1-12)"),
        "{err}"
    );
    // A selection that matches nothing is an error naming the numbers the input has.
    let (code, out, err) = flank(&["solve", "--positions", "40-44", "-"], &input);
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert!(
        err.contains("none of the 12 positions in the input (numbered 1-12)"),
        "{err}"
    );
    let (code, _, err) = flank(&["solve", "--positions", "5-3", "-"], &input);
    assert_eq!(code, 2);
    assert!(err.contains("empty range '5-3'"), "{err}");
}

#[test]
fn a_finished_game_gets_no_long_solve_note() {
    // Four black discs and 60 empties: neither side can move, so nothing is searched and the
    // note about long exact solves (> 34 empties) would be noise.
    let board = format!(
        "{}XX{}XX{} X",
        "-".repeat(27),
        "-".repeat(6),
        "-".repeat(27)
    );
    let (code, out, err) = flank(&["solve", "--json", "-"], &format!("{board} +64\n"));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("may not finish"), "{err}");
    assert!(out.contains("\"empties\":60"), "{out}");
    assert!(
        out.contains("\"score\":64") && out.contains("\"ok\":true"),
        "{out}"
    );
}
