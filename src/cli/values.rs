//! The parsers of the command line's option values (`--mpc`, `--seed`, `--move-time`,
//! `--level`, `--positions`, `--net-phases`, `--net-empties`, `--net-rate`, the match clocks):
//! plain functions from the text to the value, whose `Err` is the one-line reason the command
//! line reports.

use std::num::IntErrorKind;

use crate::engine::level::{Level, LevelError};
use crate::engine::timeman::MAX_MOVE_MS;
use crate::eval::features::NUM_PHASES;
use crate::matchplay::runner::MIN_TIME_MS;
use crate::notation::clip;

/// A parsed `--mpc` value: `None` = midgame multi-ProbCut off, else its confidence `t` in
/// standard deviations of the calibration, in (0, 10].
#[derive(Clone, Copy, Debug)]
pub struct MpcSetting(pub Option<f64>);

/// Parses `--mpc`: `off` (any case) or a number of standard deviations in (0, 10].
///
/// # Errors
/// Anything else, with the text quoted.
pub fn parse_mpc(s: &str) -> Result<MpcSetting, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(MpcSetting(None));
    }
    match s.parse::<f64>() {
        Ok(t) if t.is_finite() && t > 0.0 && t <= 10.0 => Ok(MpcSetting(Some(t))),
        _ => Err(format!(
            "expected `off` or a number of standard deviations in (0, 10], got '{s}'"
        )),
    }
}

/// Parses a whole number >= 0 (a seed).
///
/// # Errors
/// A value above `u64::MAX` ("too large") or anything that is not a whole number >= 0.
pub fn parse_whole_number(s: &str) -> Result<u64, String> {
    s.trim().parse::<u64>().map_err(|e| match e.kind() {
        IntErrorKind::PosOverflow => format!("'{s}' is too large (at most {})", u64::MAX),
        _ => format!("expected a whole number >= 0, got '{s}'"),
    })
}

/// Parses `--move-time`: whole ms, at most [`MAX_MOVE_MS`] (an hour, the cap of every
/// search).
///
/// # Errors
/// More than an hour, or not a whole number of ms >= 0.
pub fn parse_move_time(s: &str) -> Result<u64, String> {
    let max = MAX_MOVE_MS;
    match s.trim().parse::<u128>() {
        Ok(v) if v <= u128::from(max) => Ok(v as u64),
        Ok(_) => Err(format!("'{s}' ms is more than an hour (at most {max})")),
        Err(_) => Err(format!("expected a whole number of ms >= 0, got '{s}'")),
    }
}

/// Parses `--level`: `easy`, `medium`, `hard` or 1-60 (see [`Level`]).
///
/// # Errors
/// The [`LevelError`]'s text.
pub fn parse_level(s: &str) -> Result<Level, String> {
    s.parse().map_err(|e: LevelError| e.to_string())
}

/// The numbers of `--net-phases` or `--net-empties`, each once, in the order given.
#[derive(Clone, Debug)]
pub struct NumberList(pub Vec<usize>);

/// Parses `--net-phases`: `none`, or comma-separated phases (0 to `NUM_PHASES - 1`) and
/// ranges (`1,2`, `0-3`).
///
/// # Errors
/// A part that is not a phase, or an empty range.
pub fn parse_phases(s: &str) -> Result<NumberList, String> {
    parse_list(s, NUM_PHASES - 1, "a phase")
}

/// Parses `--net-empties`: `none`, or comma-separated empties counts (0-60) and ranges (`4,5`,
/// `2-9`).
///
/// # Errors
/// A part that is not an empties count, or an empty range.
pub fn parse_empties(s: &str) -> Result<NumberList, String> {
    parse_list(s, 60, "an empties count")
}

/// Parses `--depths` of `flank eval-swing`: comma-separated search depths (0-30, 0 = static)
/// and ranges (`0-4,8,9`), each once, in the order given.
///
/// # Errors
/// A part that is not a depth, or an empty range.
pub fn parse_depths(s: &str) -> Result<NumberList, String> {
    numbers(s, "a depth (0-30)", 30)
}

/// A list of numbers 0..=`max` and ranges, or `none`; `what` names one in errors.
fn parse_list(s: &str, max: usize, what: &str) -> Result<NumberList, String> {
    if s == "none" {
        return Ok(NumberList(Vec::new()));
    }
    numbers(s, &format!("{what} (0-{max}, or none)"), max)
}

/// Comma-separated numbers 0..=`max` and ranges, each number once, in the order given (at
/// least one); `what` says what a number should be in errors.
fn numbers(s: &str, what: &str, max: usize) -> Result<NumberList, String> {
    let mut out = Vec::new();
    for (a, b) in parse_ranges(s, what, max)? {
        for p in a..=b {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(NumberList(out))
}

/// Comma-separated numbers 0..=`max` and inclusive ranges (`4,5`, `2-9`) as ranges; `what`
/// says what a number should be in errors.
fn parse_ranges(s: &str, what: &str, max: usize) -> Result<Vec<(usize, usize)>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let num = |t: &str| -> Result<usize, String> {
            match t.trim().parse::<usize>() {
                Ok(v) if v <= max => Ok(v),
                // A sign or a missing bound ("-1", "3-") names the whole part.
                _ if t.trim().is_empty() => Err(format!("'{part}' is not {what}")),
                _ => Err(format!("'{t}' is not {what}")),
            }
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if a > b {
            return Err(format!("empty range '{part}'"));
        }
        out.push((a, b));
    }
    Ok(out)
}

/// Parses `--empties` of `flank evalset`: one empties count (`14`) or an inclusive range
/// (`30-50`), each 1-59.
///
/// # Errors
/// Anything else, or a range whose first count is above its last.
pub fn parse_empties_range(s: &str) -> Result<(u32, u32), String> {
    let r = parse_ranges(s, "an empties count 1-59 (e.g. 14 or 30-50)", 59)?;
    match r.as_slice() {
        [(a, b)] if *a >= 1 => Ok((*a as u32, *b as u32)),
        _ => Err(format!(
            "'{s}' is not an empties count 1-59 or a range like 30-50"
        )),
    }
}

/// Inclusive ranges `(first, last)` of position numbers, from `--positions`.
#[derive(Clone, Debug)]
pub struct IdRanges(pub Vec<(usize, usize)>);

/// Parses `--positions`: comma-separated numbers and ranges (`40-44`, `3,7,10-12`).
///
/// # Errors
/// A part that is not a position number, or an empty range.
pub fn parse_id_ranges(s: &str) -> Result<IdRanges, String> {
    parse_ranges(s, "a position number (e.g. 40-44 or 3,7)", usize::MAX).map(IdRanges)
}

/// Parses `--net-rate`: a learning rate, a number in (0, 1].
///
/// # Errors
/// Anything else.
pub fn parse_rate(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a learning rate (a number in (0, 1])")),
    }
}

/// Parses `--time`, `--time-a`, `--time-b` of `flank match`: seconds (decimals allowed, at
/// least [`MIN_TIME_MS`] ms, at most 10^7 s) to ms, rounded.
///
/// # Errors
/// Under the minimum clock, or not a positive number of seconds up to 10^7.
pub fn parse_seconds(s: &str) -> Result<u64, String> {
    let text = clip(s);
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * 1000.0 < MIN_TIME_MS as f64 => Err(format!(
            "bad time '{text}' (the clock must be at least {} s)",
            MIN_TIME_MS as f64 / 1000.0
        )),
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e7 => Ok((v * 1000.0).round() as u64),
        _ => Err(format!(
            "bad time '{text}' (expected seconds, e.g. 600 or 0.5)"
        )),
    }
}

/// Parses a label mix (`--mix`): a number in [0, 1].
///
/// # Errors
/// Anything else, with the text quoted.
pub fn parse_mix(s: &str) -> Result<f64, String> {
    number_in(s, |m| (0.0..=1.0).contains(&m), "a number in [0, 1]")
}

/// Parses a ridge strength (`--lambda`): a finite number in [0, 1e6].
///
/// # Errors
/// Anything else, with the text quoted.
pub fn parse_lambda(s: &str) -> Result<f64, String> {
    number_in(s, |l| (0.0..=1e6).contains(&l), "a number in [0, 1000000]")
}

/// Parses a softmax temperature (`--temperature`): a finite number in (0, 100] discs.
///
/// # Errors
/// Anything else, with the text quoted.
pub fn parse_temperature(s: &str) -> Result<f64, String> {
    number_in(
        s,
        |t| t > 0.0 && t <= 100.0,
        "a temperature in (0, 100] discs",
    )
}

/// `s` as a number that `ok` accepts; the error says `what` was expected.
fn number_in(s: &str, ok: impl Fn(f64) -> bool, what: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if ok(v) => Ok(v),
        _ => Err(format!("expected {what}, got {s:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_lists_have_depths_only() {
        assert_eq!(parse_depths("0-2,8,1,9").unwrap().0, vec![0, 1, 2, 8, 9]);
        for (s, e) in [
            ("none", "'none' is not a depth (0-30)"),
            ("-1", "'-1' is not a depth (0-30)"),
            ("3-", "'3-' is not a depth (0-30)"),
            ("31", "'31' is not a depth (0-30)"),
            ("", "'' is not a depth (0-30)"),
            ("3-1", "empty range '3-1'"),
        ] {
            assert_eq!(parse_depths(s).unwrap_err(), e, "{s}");
        }
        // Phase and empties lists take `none`.
        assert!(parse_empties("none").unwrap().0.is_empty());
        assert_eq!(
            parse_empties("61").unwrap_err(),
            "'61' is not an empties count (0-60, or none)"
        );
    }
}
