//! The match runner: plays the scheduled games over parallel workers, hands each game its
//! clocks through the referee, counts the results in game order, stops, and writes GGF.
//!
//! Each worker owns one pair of players (engine processes) and plays one game at a time; results
//! are counted in game order (a finished game waits for the ones before it), so a stop by SPRT
//! or by `--target-points` falls at the same game whatever the concurrency. Games still in
//! flight after a stop are finished but not counted (their number is reported).
//!
//! The openings ([`super::openings`]), the spec and schedule ([`super::schedule`]), the
//! summary ([`super::summary`]) and its text ([`super::text`]) live in their own files; their
//! public items are re-exported here, so each is also reachable as `runner::X`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;

use super::player::{Fault, Player};
use super::referee::{GameOutcome, play_game};
use super::stats::SprtState;
use super::summary::count_game;
use crate::othello::square::Color;

pub use super::openings::{
    BUILTIN_OPENINGS, Opening, parse_opening, parse_openings, parse_openings_for_handicap,
};
pub use super::schedule::{COMMAND_TIMEOUT, MIN_TIME_MS, MatchSpec, Side, UNBOUNDED_GAMES};
pub use super::summary::{
    CLOCK_USED_LIMIT_PERCENT, GameReport, MatchSummary, SprtSummary, StakeSummary, StopReason,
    clock_fraction, over_clock_limit,
};
pub use super::text::{game_line, percent_text, seconds_text, summary_text};

/// Makes the players: `factory(Side::A)` and `factory(Side::B)` once per worker.
pub type Factory<'a> = dyn Fn(Side) -> Result<Box<dyn Player>, Fault> + Sync + 'a;

/// `name` with each control character (newline, tab, escape, …) replaced by a space and the
/// ends trimmed: a name fit for one line of output.
pub fn printable_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Plays game `i` between `a` and `b`, restarting whichever forfeited.
fn play_one(
    spec: &MatchSpec,
    i: u64,
    a: &mut dyn Player,
    b: &mut dyn Player,
) -> Result<(GameOutcome, Color, usize), String> {
    let (setup, a_color, oi) = spec.game_setup(i)?;
    let outcome = if a_color == Color::Black {
        play_game(a, b, &setup, &spec.referee)?
    } else {
        play_game(b, a, &setup, &spec.referee)?
    };
    if let Some(c) = outcome.needs_restart() {
        // A failed restart shows up as a forfeit in the next game.
        let _ = if c == a_color {
            a.restart()
        } else {
            b.restart()
        };
    }
    Ok((outcome, a_color, oi))
}

/// Runs a match: builds `spec.concurrency` pairs of players with `factory`, checks handicap
/// support, plays, counts in game order, stops on SPRT or target points, writes GGF, and
/// calls `on_game` with the spec (names filled in) and each counted game, in order. An
/// `Err` from `on_game` (e.g. stdout closed) stops the match: games in flight are finished
/// but not counted, and `run_match` returns that error.
///
/// Errors: a player that cannot start, a player without handicap support in a handicap
/// match, A and B ending up with the same name, a GGF file that cannot be written, a bad
/// game set-up, an error from `on_game`.
pub fn run_match(
    spec: &MatchSpec,
    factory: &Factory<'_>,
    on_game: &mut dyn FnMut(&MatchSpec, &GameReport) -> Result<(), String>,
) -> Result<MatchSummary, String> {
    if spec.openings.is_empty() {
        return Err("no openings".to_string());
    }
    let mut filled = spec.clone();
    let spec = &mut filled;
    let total = spec.total_games();
    let workers = spec.concurrency.max(1).min(total.max(1) as usize);
    let mut pairs: Vec<[Box<dyn Player>; 2]> = Vec::with_capacity(workers);
    for _ in 0..workers {
        let mut pair = [Side::A, Side::B].map(|s| (s, factory(s)));
        let mut made = Vec::with_capacity(2);
        for (s, p) in pair.iter_mut() {
            let p = std::mem::replace(p, Err(Fault::Exited(String::new())))
                .map_err(|f| format!("engine {s:?} could not start: {f}"))?;
            made.push(p);
        }
        let [a, b]: [Box<dyn Player>; 2] = made
            .try_into()
            .map_err(|_| "internal: player pair".to_string())?;
        pairs.push([a, b]);
    }
    // Names default to the engines' own (`name`), suffixed -A / -B, with control characters
    // replaced so that each game stays one line of output.
    for (k, suffix) in ["A", "B"].iter().enumerate() {
        if spec.names[k].trim().is_empty() {
            let name = printable_name(&pairs[0][k].capabilities().name);
            let name = if name.is_empty() { "engine" } else { &name };
            spec.names[k] = format!("{name}-{suffix}");
        } else {
            spec.names[k] = printable_name(&spec.names[k]);
        }
    }
    // A given name can equal the other side's default (`--name-a flank-B`): the summary
    // would not say who is who.
    if spec.names[0] == spec.names[1] {
        return Err(format!(
            "players A and B would both be named '{}': give --name-a/--name-b that differ",
            spec.names[0]
        ));
    }
    let spec: &MatchSpec = spec;
    if let Some((_, n)) = spec.handicap {
        for pair in pairs.iter_mut() {
            for (k, p) in pair.iter_mut().enumerate() {
                let s = if k == 0 { "A" } else { "B" };
                p.check_handicap(Color::White, n, spec.referee.command_timeout)
                    .map_err(|e| {
                        format!("engine {s} cannot play handicap games (flank-handicap): {e}")
                    })?;
            }
        }
    }
    let mut ggf_file = match &spec.ggf {
        None => None,
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        ),
    };

    let bar = if spec.progress {
        let pb = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}",
        ) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb
    } else {
        indicatif::ProgressBar::hidden()
    };

    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(u64, Result<(GameOutcome, Color, usize), String>)>();
    let mut summary = MatchSummary::new(spec);
    let mut disc_sum: i64 = 0;
    let mut pending: BTreeMap<u64, (GameOutcome, Color, usize)> = BTreeMap::new();
    let mut next_count = 0u64;
    let mut stopped = false;
    let error: Mutex<Option<String>> = Mutex::new(None);

    thread::scope(|scope| {
        for pair in pairs {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let [mut a, mut b] = pair;
                while !stop.load(Ordering::SeqCst) {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total {
                        break;
                    }
                    let r = play_one(spec, i, &mut *a, &mut *b);
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
                a.quit();
                b.quit();
            });
        }
        drop(tx);
        for (i, r) in rx {
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    if let Ok(mut slot) = error.lock() {
                        slot.get_or_insert(e);
                    }
                    continue;
                }
            };
            if stopped {
                summary.uncounted += 1;
                continue;
            }
            pending.insert(i, r);
            while let Some((outcome, a_color, oi)) = pending.remove(&next_count) {
                next_count += 1;
                let report = count_game(
                    spec,
                    &mut summary,
                    &mut disc_sum,
                    next_count,
                    &outcome,
                    a_color,
                    oi,
                );
                let mut failure = None;
                if let Some(f) = ggf_file.as_mut() {
                    use std::io::Write;
                    if let Err(e) = writeln!(f, "{}", report.ggf).and_then(|_| f.flush()) {
                        failure = Some(format!("cannot write GGF: {e}"));
                    }
                }
                bar.inc(1);
                bar.set_message(format!(
                    "A {}-{}-{} B",
                    summary.a.wins, summary.a.draws, summary.a.losses
                ));
                if failure.is_none() {
                    failure = bar.suspend(|| on_game(spec, &report)).err();
                }
                summary.game_list.push(report);
                if let Some(e) = failure {
                    // No more games are counted or reported after a failed write.
                    stop.store(true, Ordering::SeqCst);
                    if let Ok(mut slot) = error.lock() {
                        slot.get_or_insert(e);
                    }
                    stopped = true;
                    pending.clear();
                    break;
                }
                let sprt_done = summary
                    .sprt
                    .as_ref()
                    .is_some_and(|s| s.state != SprtState::Continue);
                let race_done = summary.race.as_ref().is_some_and(|r| r.winner.is_some());
                if sprt_done || race_done {
                    summary.stopped_by = if race_done {
                        StopReason::TargetPoints
                    } else {
                        StopReason::Sprt
                    };
                    stopped = true;
                    stop.store(true, Ordering::SeqCst);
                    summary.uncounted += pending.len() as u64;
                    pending.clear();
                    break;
                }
            }
        }
    });
    bar.finish_and_clear();
    if let Ok(mut slot) = error.lock()
        && let Some(e) = slot.take()
    {
        return Err(e);
    }
    summary.finish(disc_sum);
    Ok(summary)
}

/// The default concurrency: one game per two cores (each engine may use threads), at
/// least 1.
pub fn default_concurrency() -> usize {
    thread::available_parallelism()
        .map(|n| n.get() / 2)
        .unwrap_or(1)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchplay::fake::{Fake, Policy};
    use crate::matchplay::referee::RefereeConfig;
    use crate::matchplay::stats::{Sprt, Wdl};
    use crate::othello::Position;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    fn spec(openings: &[&str]) -> MatchSpec {
        MatchSpec {
            games: None,
            concurrency: 1,
            time_ms: [60_000; 2],
            openings: openings
                .iter()
                .map(|t| parse_opening(Position::start(), t).unwrap())
                .collect(),
            referee: RefereeConfig::default(),
            handicap: None,
            sprt: None,
            target_points: None,
            stake: None,
            names: ["A".into(), "B".into()],
            ggf: None,
            progress: false,
        }
    }

    fn fakes(a: Policy, b: Policy) -> impl Fn(Side) -> Result<Box<dyn Player>, Fault> + Sync {
        move |s| {
            Ok(Box::new(match s {
                Side::A => Fake::new("a", a.clone(), false),
                Side::B => Fake::new("b", b.clone(), false),
            }))
        }
    }

    fn run(spec: &MatchSpec, f: &Factory<'_>) -> MatchSummary {
        run_match(spec, f, &mut |_, _| Ok(())).unwrap()
    }

    #[test]
    fn openings_twice_with_colours_swapped() {
        let s = spec(&BUILTIN_OPENINGS);
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::LastLegal));
        assert_eq!(m.games, 8);
        assert_eq!(m.stopped_by, StopReason::Games);
        for (i, g) in m.game_list.iter().enumerate() {
            assert_eq!(g.number, i as u64 + 1);
            assert_eq!(g.opening, BUILTIN_OPENINGS[i / 2]);
            assert_eq!(g.a_color, if i % 2 == 0 { "black" } else { "white" });
            assert_eq!(g.reason, "finished");
            // The round value is A's disc difference.
            let a_sign = if i % 2 == 0 { 1 } else { -1 };
            assert_eq!(g.a_value, a_sign * g.board_score);
        }
        assert_eq!(m.a.games(), 8);
        let sum: i32 = m.game_list.iter().map(|g| g.a_value).sum();
        assert!((m.avg_disc_diff - sum as f64 / 8.0).abs() < 1e-9);
        assert_eq!(m.points[0] + m.points[1], 8.0);
    }

    #[test]
    fn concurrency_does_not_change_the_counted_games() {
        let mut s = spec(&BUILTIN_OPENINGS);
        let one = run(&s, &fakes(Policy::FirstLegal, Policy::LastLegal));
        s.concurrency = 3;
        let three = run(&s, &fakes(Policy::FirstLegal, Policy::LastLegal));
        let key = |m: &MatchSummary| -> Vec<(i32, String)> {
            m.game_list
                .iter()
                .map(|g| (g.a_value, g.opening.clone()))
                .collect()
        };
        assert_eq!(key(&one), key(&three));
    }

    #[test]
    fn target_points_stop_the_match() {
        let mut s = spec(&BUILTIN_OPENINGS);
        s.target_points = Some(100);
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::LastLegal));
        assert_eq!(m.stopped_by, StopReason::TargetPoints);
        let race = m.race.as_ref().unwrap();
        let w = race.winner.unwrap();
        assert!(race.points[w] >= 100);
        // Recount the rounds: the target was first reached at the last counted game.
        let mut pts = [0u32; 2];
        for (i, g) in m.game_list.iter().enumerate() {
            let k = if g.a_value >= 0 { 0 } else { 1 };
            pts[k] += g.a_value.unsigned_abs();
            let last = i + 1 == m.game_list.len();
            assert_eq!(pts[0] >= 100 || pts[1] >= 100, last, "round {i}: {pts:?}");
        }
        assert_eq!(pts, race.points);
        assert_eq!(m.game_list.last().unwrap().race_points, Some(pts));
        assert_eq!(race.rounds.len() as u64, m.games);
    }

    #[test]
    fn forfeits_count_64_in_rounds_and_restart_the_engine() {
        let restarts = Arc::new(AtomicU32::new(0));
        let r = restarts.clone();
        let factory = move |s: Side| -> Result<Box<dyn Player>, Fault> {
            Ok(Box::new(match s {
                Side::A => Fake::new("a", Policy::FirstLegal, false),
                Side::B => {
                    let mut f = Fake::new("b", Policy::CrashAt(2), false);
                    f.restarts = r.clone();
                    f
                }
            }))
        };
        let mut s = spec(&["f5d6"]);
        s.games = Some(4);
        s.target_points = Some(1000);
        let m = run(&s, &factory);
        assert_eq!(m.a.wins, 4);
        assert_eq!(m.forfeits, [0, 4]);
        assert!(
            m.game_list
                .iter()
                .all(|g| g.reason == "crash" && g.a_value == 64)
        );
        assert_eq!(m.race.as_ref().unwrap().points, [256, 0]);
        assert_eq!(restarts.load(Ordering::SeqCst), 4);
        assert!(m.game_list[0].reason_text.contains("exit status 3"));
    }

    #[test]
    fn sprt_stops_when_a_bound_is_reached() {
        // B always passes wrongly: A wins every game.
        let mut s = spec(&BUILTIN_OPENINGS);
        s.concurrency = 2;
        let sprt = Sprt::parse("0,10,0.05,0.05").unwrap();
        s.sprt = Some(sprt);
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::Answer("pass")));
        assert_eq!(m.stopped_by, StopReason::Sprt);
        assert_eq!(m.sprt.as_ref().unwrap().state, SprtState::H1);
        // The first game count at which the LLR crosses the upper bound.
        let first = (1..)
            .find(|&n| {
                sprt.state(&Wdl {
                    wins: n,
                    draws: 0,
                    losses: 0,
                }) == SprtState::H1
            })
            .unwrap();
        assert_eq!(m.games, first);
        assert_eq!(first, 104);
    }

    #[test]
    fn stakes_are_settled_per_game_and_in_total() {
        let mut s = spec(&["f5d6"]);
        s.stake = Some(500);
        s.games = Some(3);
        // B answers `pass` as white (loses) but plays as black... everything B does is a
        // wrong pass, so A wins all three: A nets 3 × 4.00, B loses 3 × 5.00.
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::Answer("pass")));
        let st = m.stakes.as_ref().unwrap();
        assert_eq!(st.ledger.net, [1200, -1500]);
        assert_eq!(st.ledger.commission, 300);
        assert_eq!(st.ledger.pots, 3000);
        let g = m.game_list[0].settlement.unwrap();
        assert_eq!(g.payout, [900, 0]);
    }

    #[test]
    fn handicap_games_start_from_the_corners() {
        // Each handicap, 1–4 corners for B in the order a1, h8, h1, a8, whichever colour B has.
        let corners = [0usize, 63, 7, 56];
        for n in 1..=4u32 {
            let mut s = spec(&[""]);
            s.handicap = Some((Side::B, n));
            s.games = Some(2);
            let m = run(&s, &fakes(Policy::FirstLegal, Policy::FirstLegal));
            for g in &m.game_list {
                let b_disc = if g.a_color == "black" { 'O' } else { '*' };
                let bo = g.ggf.split("BO[8 ").nth(1).unwrap();
                let cells: Vec<char> = bo.chars().take(64).collect();
                for (k, &sq) in corners.iter().enumerate() {
                    let want = if k < n as usize { b_disc } else { '-' };
                    assert_eq!(cells[sq], want, "n={n} corner {k}: {}", g.ggf);
                }
                // The rest is the start position, black to move.
                let rest: String = cells
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !corners.contains(i))
                    .map(|(_, c)| *c)
                    .collect();
                assert_eq!(rest.matches('*').count(), 2);
                assert_eq!(rest.matches('O').count(), 2);
                assert_eq!(bo.chars().nth(65), Some('*'));
            }
            // A gets the corners with --handicap-side a.
            s.handicap = Some((Side::A, n));
            let m = run(&s, &fakes(Policy::FirstLegal, Policy::FirstLegal));
            let g = &m.game_list[0];
            assert_eq!(g.a_color, "black");
            assert_eq!(
                g.ggf.split("BO[8 ").nth(1).unwrap().chars().next(),
                Some('*')
            );
        }
    }

    #[test]
    fn an_even_match_shows_elo_plus_zero() {
        // The same deterministic game twice with colours swapped: one win and one loss,
        // Elo 0, printed +0.0.
        let mut s = spec(&["f5d6"]);
        s.games = Some(2);
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::FirstLegal));
        assert_eq!((m.a.wins, m.a.losses), (1, 1));
        assert!(m.elo.unwrap().is_sign_positive());
        assert!(
            summary_text(&m).contains("Elo difference (A - B): +0.0,"),
            "{}",
            summary_text(&m)
        );
    }

    #[test]
    fn engine_names_lose_their_control_characters() {
        let factory = |s: Side| -> Result<Box<dyn Player>, Fault> {
            Ok(Box::new(match s {
                Side::A => Fake::new("evil\nname\t\u{1b}[31m", Policy::FirstLegal, false),
                Side::B => Fake::new("\r\n", Policy::FirstLegal, false),
            }))
        };
        let mut s = spec(&["f5d6"]);
        s.names = [String::new(), String::new()];
        s.games = Some(1);
        let m = run(&s, &factory);
        assert_eq!(m.names, ["evil name  [31m-A", "engine-B"]);
        let line = game_line(&s_with_names(&s, &m), &m.game_list[0]);
        assert_eq!(line.lines().count(), 1, "{line}");
    }

    fn s_with_names(s: &MatchSpec, m: &MatchSummary) -> MatchSpec {
        MatchSpec {
            names: m.names.clone(),
            ..s.clone()
        }
    }

    /// A's chosen moves in a game, from its GGF record (`B[f5//0.02]`: a chosen move
    /// carries its time, opening moves and passes do not).
    fn chosen_moves(g: &GameReport, a: bool) -> u64 {
        let black = (g.a_color == "black") == a;
        let tag = if black { "B[" } else { "W[" };
        g.ggf
            .split(tag)
            .skip(1)
            .filter(|rest| rest.split(']').next().is_some_and(|m| m.contains("//")))
            .count() as u64
    }

    #[test]
    fn the_clock_used_per_game_and_in_the_summary() {
        // A sleeps 20 ms before each move, B answers at once; 4 s clocks. A's fraction is at
        // least its moves x 20 ms / 4 s (sleeps never end early) and, with a whole second
        // of slack for a loaded machine, far below the limit.
        let mut s = spec(&["f5d6"]);
        s.games = Some(2);
        s.time_ms = [4_000; 2];
        let sleeper = Policy::SleepEachMove(Duration::from_millis(20));
        let m = run(&s, &fakes(sleeper, Policy::FirstLegal));
        assert_eq!(m.time_losses, [0, 0]);
        for g in &m.game_list {
            assert_eq!(g.reason, "finished");
            let n = chosen_moves(g, true);
            assert!(n >= 20, "{}", g.ggf);
            let low = (n * 20) as f64 / 4_000.0;
            assert!(
                g.clock_used[0] >= low && g.clock_used[0] <= low + 0.25,
                "{n} moves: {:?}",
                g.clock_used
            );
            assert!(chosen_moves(g, false) >= 20);
            assert!(g.clock_used[1] < 0.25, "{:?}", g.clock_used);
            for k in 0..2 {
                assert_eq!(g.clock_used[k], g.used_ms[k] as f64 / 4_000.0);
            }
        }
        for k in 0..2 {
            let v: Vec<f64> = m.game_list.iter().map(|g| g.clock_used[k]).collect();
            assert_eq!(m.clock_used_max[k], v[0].max(v[1]));
            assert!((m.clock_used_mean[k] - (v[0] + v[1]) / 2.0).abs() < 1e-12);
        }
        assert_eq!(m.games_over_95, [0, 0]);
        let text = summary_text(&m);
        let want = format!(
            "clock used: A max {} mean {}, 0 game(s) over 95 %; B max ",
            percent_text(m.clock_used_max[0]),
            percent_text(m.clock_used_mean[0])
        );
        assert!(text.contains(&want), "{text}");
        let line = game_line(&s, &m.game_list[0]);
        let want = format!(
            ", clock used A {} B {}",
            percent_text(m.game_list[0].clock_used[0]),
            percent_text(m.game_list[0].clock_used[1])
        );
        assert!(line.contains(&want), "{line}");
    }

    #[test]
    fn a_loss_on_time_counts_as_the_whole_clock() {
        // A (black) sleeps 400 ms as soon as it leads; its whole clock is 100 ms.
        let mut s = spec(&[""]);
        s.games = Some(1);
        s.time_ms = [100; 2];
        let sleeper = Policy::SleepWhenAhead(Duration::from_millis(400));
        let m = run(&s, &fakes(sleeper, Policy::FirstLegal));
        assert_eq!(m.time_losses, [1, 0]);
        assert_eq!(m.game_list[0].clock_used[0], 1.0);
        assert_eq!(m.clock_used_max[0], 1.0);
        assert_eq!(m.clock_used_mean[0], 1.0);
        assert_eq!(m.games_over_95, [1, 0]);
        assert!(
            summary_text(&m).contains("clock used: A max 100.00 % mean 100.00 %, 1 game(s) over"),
            "{}",
            summary_text(&m)
        );
    }

    #[test]
    fn time_odds_give_each_side_its_own_clock() {
        // Both sleep 20 ms before each move; a game needs some 30 moves per side. The side
        // with 300 ms runs out whichever colour it has; the one with 60 s never comes close.
        let sleeper = Policy::SleepEachMove(Duration::from_millis(20));
        for (clocks, loser) in [([300, 60_000], 0usize), ([60_000, 300], 1)] {
            let mut s = spec(&["f5d6"]);
            s.games = Some(2);
            s.time_ms = clocks;
            let m = run(&s, &fakes(sleeper.clone(), sleeper.clone()));
            let (winner, other) = ([Side::A, Side::B][1 - loser], 1 - loser);
            let mut losses = [0; 2];
            losses[loser] = 2;
            assert_eq!(m.time_losses, losses, "{clocks:?}");
            assert_eq!(m.games_over_95, losses, "{clocks:?}");
            assert_eq!(m.clock_ms, Some(clocks));
            for g in &m.game_list {
                assert_eq!(g.reason, "time", "{clocks:?}: {}", g.ggf);
                assert_eq!(g.winner, Some(winner));
                // The loser used its whole (short) clock, charged exactly up to it.
                assert_eq!(g.used_ms[loser], 300);
                assert_eq!(g.clock_used[loser], 1.0);
                // The other side's fraction is of its own 60 s clock, not of 300 ms.
                assert!(g.used_ms[other] >= 200, "{:?}", g.used_ms);
                assert_eq!(g.clock_used[other], g.used_ms[other] as f64 / 60_000.0);
                assert!(g.clock_used[other] < 0.5, "{:?}", g.clock_used);
                // The record gives each colour its own clock.
                let a_black = g.a_color == "black";
                let short_black = a_black == (loser == 0);
                let tags = if short_black {
                    "TB[0:01]TW[1:00]"
                } else {
                    "TB[1:00]TW[0:01]"
                };
                assert!(g.ggf.contains(tags), "{}", g.ggf);
                assert!(!g.ggf.contains("TI["), "{}", g.ggf);
            }
            assert_eq!(m.clock_used_max[loser], 1.0);
            assert!(m.clock_used_max[other] < 0.5);
            let text = summary_text(&m);
            let want = if loser == 0 {
                "time odds: A 0.3 s per game, B 60 s per game\n"
            } else {
                "time odds: A 60 s per game, B 0.3 s per game\n"
            };
            assert_eq!(
                text.lines().nth(1).map(|l| format!("{l}\n")),
                Some(want.to_string())
            );
            let json = serde_json::to_value(&m).unwrap();
            assert_eq!(json["clock_ms"], serde_json::json!(clocks));
        }
        // Equal clocks: no time-odds line, no `clock_ms` in the JSON, TI in the records.
        let mut s = spec(&["f5d6"]);
        s.games = Some(1);
        let m = run(&s, &fakes(Policy::FirstLegal, Policy::FirstLegal));
        assert_eq!(m.clock_ms, None);
        assert!(!summary_text(&m).contains("time odds"));
        assert!(serde_json::to_value(&m).unwrap().get("clock_ms").is_none());
        assert!(m.game_list[0].ggf.contains("TI[1:00]TY[8]"));
    }
}
