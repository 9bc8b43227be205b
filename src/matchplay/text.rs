//! The text output of a match: one line per counted game and the summary lines, with the
//! clock, percentage, Elo and board-score formats they use.

use super::schedule::{MatchSpec, Side};
use super::stakes::format_cents;
use super::stats::SprtState;
use super::summary::{CLOCK_USED_LIMIT_PERCENT, GameReport, MatchSummary, StopReason};

/// A fraction (0–1) as a percentage with two decimals, rounded down (`0.95049` is
/// `95.04 %`), so a side that used all its clock is the only one shown at `100.00 %`.
pub fn percent_text(fraction: f64) -> String {
    // The small addend keeps 0.9504 (9503.99… basis points in floating point) at 95.04.
    let bp = (fraction * 10_000.0 + 1e-6).floor().max(0.0);
    format!("{:.2} %", bp / 100.0)
}

/// One line per counted game for the text output: number, colours, winner, reason, round
/// value, the fraction of its clock each player used, and the settlement when playing for a
/// stake.
pub fn game_line(spec: &MatchSpec, r: &GameReport) -> String {
    let (a, b) = (&spec.names[0], &spec.names[1]);
    let (black, white) = if r.a_color == "black" { (a, b) } else { (b, a) };
    let who = match r.winner {
        Some(Side::A) => format!("{a} wins"),
        Some(Side::B) => format!("{b} wins"),
        None => "draw".to_string(),
    };
    let mut s = format!(
        "game {}: {black} (black) vs {white} (white), opening {}: {who}, {} ({}), round value for {a}: {:+}",
        r.number,
        if r.opening.is_empty() {
            "none"
        } else {
            &r.opening
        },
        r.reason_text,
        board_text(r.board_score),
        r.a_value
    );
    s.push_str(&format!(
        ", clock used {a} {} {b} {}",
        percent_text(r.clock_used[0]),
        percent_text(r.clock_used[1])
    ));
    if let Some([pa, pb]) = r.race_points {
        s.push_str(&format!(", race {a} {pa} - {b} {pb}"));
    }
    if let Some(st) = &r.settlement {
        s.push_str(&format!(
            ", payout {a} {} {b} {}, commission {}",
            format_cents(st.payout[0] as i64),
            format_cents(st.payout[1] as i64),
            format_cents(st.commission as i64)
        ));
    }
    s
}

/// A board score (black minus white) as `board B+n`, `board W+n` or `board even`.
fn board_text(score: i32) -> String {
    match score.cmp(&0) {
        std::cmp::Ordering::Greater => format!("board B+{score}"),
        std::cmp::Ordering::Less => format!("board W+{}", -score),
        std::cmp::Ordering::Equal => "board even".to_string(),
    }
}

/// `e` with a sign and one decimal, `+inf`/`-inf`; values that round to zero print `+0.0`.
fn elo_text(e: f64) -> String {
    if e.is_finite() {
        format!("{:+.1}", no_negative_zero(e, 1))
    } else if e > 0.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// `x`, or +0.0 when it rounds to zero at `decimals` decimals (so text never shows `-0.0`).
fn no_negative_zero(x: f64, decimals: i32) -> f64 {
    if (x * 10f64.powi(decimals)).round() == 0.0 {
        0.0
    } else {
        x
    }
}

/// A clock of `ms` milliseconds as seconds for the text output, without trailing zeros:
/// `10 s`, `2.5 s`, `0.125 s`.
pub fn seconds_text(ms: u64) -> String {
    let (whole, frac) = (ms / 1000, ms % 1000);
    if frac == 0 {
        format!("{whole} s")
    } else {
        let digits = format!("{frac:03}");
        format!("{whole}.{} s", digits.trim_end_matches('0'))
    }
}

/// The summary as text lines (with a `time odds:` line after the first when A's and B's
/// clocks differ).
pub fn summary_text(s: &MatchSummary) -> String {
    let (a, b) = (&s.names[0], &s.names[1]);
    let mut out = String::new();
    out.push_str(&format!(
        "{a} vs {b}: {} games, {a} +{} ={} -{}, points {} - {}, average disc difference {:+.2}\n",
        s.games, s.a.wins, s.a.draws, s.a.losses, s.points[0], s.points[1], s.avg_disc_diff
    ));
    if let Some([ta, tb]) = s.clock_ms {
        out.push_str(&format!(
            "time odds: {a} {} per game, {b} {} per game\n",
            seconds_text(ta),
            seconds_text(tb)
        ));
    }
    if let Some((e, lo, hi)) = s.a.elo_interval_raw() {
        out.push_str(&format!(
            "Elo difference ({a} - {b}): {}, 95 % interval [{}, {}]\n",
            elo_text(e),
            elo_text(lo),
            elo_text(hi)
        ));
    }
    out.push_str(&format!(
        "forfeits: {a} {} ({} on time), {b} {} ({} on time); agreed draws {}\n",
        s.forfeits[0], s.time_losses[0], s.forfeits[1], s.time_losses[1], s.agreed_draws
    ));
    let clock = |k: usize| {
        format!(
            "max {} mean {}, {} game(s) over {CLOCK_USED_LIMIT_PERCENT} %",
            percent_text(s.clock_used_max[k]),
            percent_text(s.clock_used_mean[k]),
            s.games_over_95[k]
        )
    };
    out.push_str(&format!("clock used: {a} {}; {b} {}\n", clock(0), clock(1)));
    if let Some(sp) = &s.sprt {
        out.push_str(&format!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {:.3} bounds [{:.3}, {:.3}] -> {}\n",
            sp.params.elo0,
            sp.params.elo1,
            sp.params.alpha,
            sp.params.beta,
            no_negative_zero(sp.llr, 3),
            sp.bounds.0,
            sp.bounds.1,
            match sp.state {
                SprtState::Continue => "no decision",
                SprtState::H0 => "H0 accepted (elo0)",
                SprtState::H1 => "H1 accepted (elo1)",
            }
        ));
    }
    if let Some(r) = &s.race {
        out.push_str(&format!(
            "race to {} points: {a} {} - {b} {} after {} rounds{}\n",
            r.target,
            r.points[0],
            r.points[1],
            r.rounds.len(),
            match r.winner {
                Some(0) => format!(", {a} wins the race"),
                Some(_) => format!(", {b} wins the race"),
                None => ", no winner".to_string(),
            }
        ));
    }
    if let Some(st) = &s.stakes {
        let l = &st.ledger;
        out.push_str(&format!(
            "stakes {} per game: {a} paid out {} (net {}), {b} paid out {} (net {}), commission {} of pots {}\n",
            format_cents(st.stake as i64),
            format_cents(l.payout[0] as i64),
            format_cents(l.net[0]),
            format_cents(l.payout[1] as i64),
            format_cents(l.net[1]),
            format_cents(l.commission as i64),
            format_cents(l.pots as i64),
        ));
    }
    if s.stopped_by != StopReason::Games || s.uncounted > 0 {
        out.push_str(&format!(
            "stopped by {}; {} game(s) finished after the stop not counted\n",
            match s.stopped_by {
                StopReason::Games => "the game count",
                StopReason::Sprt => "the SPRT",
                StopReason::TargetPoints => "the target points",
            },
            s.uncounted
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_negative_zero_in_the_elo_text() {
        assert_eq!(elo_text(-0.0), "+0.0");
        assert_eq!(elo_text(-0.04), "+0.0");
        assert_eq!(elo_text(-0.05), "-0.1");
        assert_eq!(elo_text(12.34), "+12.3");
        assert_eq!(elo_text(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn percents_in_the_text() {
        assert_eq!(percent_text(0.9504), "95.04 %");
        assert_eq!(percent_text(0.95049), "95.04 %");
        assert_eq!(percent_text(0.99999), "99.99 %");
        assert_eq!(percent_text(1.0), "100.00 %");
        assert_eq!(percent_text(0.0), "0.00 %");
    }

    #[test]
    fn clock_seconds_in_the_text() {
        assert_eq!(seconds_text(10_000), "10 s");
        assert_eq!(seconds_text(2_500), "2.5 s");
        assert_eq!(seconds_text(125), "0.125 s");
        assert_eq!(seconds_text(600_000), "600 s");
        assert_eq!(seconds_text(1_050), "1.05 s");
    }
}
