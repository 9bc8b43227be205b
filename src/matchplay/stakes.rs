//! Stakes: money amounts in integer cents, and the settlement of one game.
//!
//! Both players stake the same amount; the pot is 2 × stake. The winner receives the pot
//! less the platform's commission of [`COMMISSION_PERCENT`] %; the loser receives nothing. A
//! draw (on the board or agreed) refunds both stakes and the platform takes nothing. A loss on
//! time or by any fault is a loss like any other.
//!
//! Rounding: `commission = pot × 10 / 100` rounded half up to the cent, i.e.
//! `(pot × 10 + 50) div 100` in integer cents; `payout = pot − commission`. So payout +
//! commission = pot exactly, to the cent, always. (As the pot is even the half-cent case never
//! arises; the rule is stated for completeness.) Example: stake 0.03 → pot 0.06, commission
//! 0.006 → 0.01, payout 0.05; stake 0.01 → pot 0.02, commission 0.002 → 0.00, payout 0.02.

use serde::Serialize;

/// The platform's share of the pot, percent.
pub const COMMISSION_PERCENT: u64 = 10;

/// The largest stake accepted, cents (1 000 000 000.00): keeps every sum far from overflow.
pub const MAX_STAKE_CENTS: u64 = 100_000_000_000;

/// Parses an amount such as `5`, `5.0` or `5.00` into cents: digits, optionally a point and
/// one or two digits; no sign, no exponent, no thousands separators.
///
/// Errors: a one-line reason naming the text (`bad amount '5.001' (expected e.g. 5.00: digits
/// with at most two decimals)`), or an amount above [`MAX_STAKE_CENTS`].
pub fn parse_amount(s: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "bad amount '{}' (expected e.g. 5.00: digits with at most two decimals)",
            crate::notation::clip(s)
        )
    };
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) {
        return Err(bad());
    }
    let too_large = || {
        format!(
            "amount '{}' too large (at most {})",
            crate::notation::clip(s),
            format_cents(MAX_STAKE_CENTS as i64)
        )
    };
    let cents_frac = match frac {
        None => 0,
        Some(f) if digits(f) && f.len() <= 2 => {
            let v: u64 = f.parse().map_err(|_| bad())?;
            if f.len() == 1 { v * 10 } else { v }
        }
        Some(_) => return Err(bad()),
    };
    // More than 12 digits (leading zeros aside) is beyond the maximum and may not fit u64.
    if int.trim_start_matches('0').len() > 12 {
        return Err(too_large());
    }
    let whole: u64 = int.parse().map_err(|_| too_large())?;
    let cents = whole * 100 + cents_frac;
    if cents > MAX_STAKE_CENTS {
        return Err(too_large());
    }
    Ok(cents)
}

/// Parses `--stake`: an amount as [`parse_amount`] reads it, which must be positive.
///
/// Errors: those of [`parse_amount`]; `stake must be positive` for 0 (`0`, `0.00`).
pub fn parse_stake(s: &str) -> Result<u64, String> {
    match parse_amount(s)? {
        0 => Err(format!(
            "stake must be positive (got '{}'; at least 0.01)",
            crate::notation::clip(s)
        )),
        c => Ok(c),
    }
}

/// Cents as money text: `500` → `5.00`, `-7` → `-0.07`.
pub fn format_cents(c: i64) -> String {
    let sign = if c < 0 { "-" } else { "" };
    let a = c.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// The platform's commission on a pot, cents (10 %, rounded half up).
pub fn commission(pot: u64) -> u64 {
    (pot * COMMISSION_PERCENT + 50) / 100
}

/// The money of one game between players 0 and 1, cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Settlement {
    /// 2 × stake.
    pub pot: u64,
    /// What the platform keeps.
    pub commission: u64,
    /// What each player receives from the pot.
    pub payout: [u64; 2],
    /// Each player's gain or loss: payout − stake.
    pub net: [i64; 2],
}

/// Settles one game: `winner` is `Some(0)`, `Some(1)` or `None` for a draw.
pub fn settle(stake: u64, winner: Option<usize>) -> Settlement {
    let pot = 2 * stake;
    let (commission, payout) = match winner {
        None => (0, [stake, stake]),
        Some(w) => {
            let c = commission(pot);
            let mut p = [0, 0];
            p[w.min(1)] = pot - c;
            (c, p)
        }
    };
    Settlement {
        pot,
        commission,
        payout,
        net: [
            payout[0] as i64 - stake as i64,
            payout[1] as i64 - stake as i64,
        ],
    }
}

/// Running totals over a match, cents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ledger {
    /// Sum of the pots.
    pub pots: u64,
    /// Sum of the commissions.
    pub commission: u64,
    /// Each player's total payout.
    pub payout: [u64; 2],
    /// Each player's total gain or loss.
    pub net: [i64; 2],
}

impl Ledger {
    /// Adds one game's settlement.
    pub fn add(&mut self, s: &Settlement) {
        self.pots += s.pot;
        self.commission += s.commission;
        for i in 0..2 {
            self.payout[i] += s.payout[i];
            self.net[i] += s.net[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("5"), Ok(500));
        assert_eq!(parse_amount("5.0"), Ok(500));
        assert_eq!(parse_amount("5.00"), Ok(500));
        assert_eq!(parse_amount("0.07"), Ok(7));
        assert_eq!(parse_amount("12.5"), Ok(1250));
        for bad in [
            "", "5.", ".5", "-5", "+5", "5.001", "1e3", "5,00", "five", " 5", "5.0a",
        ] {
            assert!(parse_amount(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(
            parse_amount("5.001").unwrap_err(),
            "bad amount '5.001' (expected e.g. 5.00: digits with at most two decimals)"
        );
        assert!(parse_amount("1000000000.01").is_err());
        // Too many digits is too large, not a format error.
        assert_eq!(
            parse_amount("99999999999999999999").unwrap_err(),
            "amount '99999999999999999999' too large (at most 1000000000.00)"
        );
        assert_eq!(parse_amount("0001.50"), Ok(150));
        assert_eq!(parse_stake("0.01"), Ok(1));
        for zero in ["0", "0.00", "000"] {
            assert_eq!(
                parse_stake(zero).unwrap_err(),
                format!("stake must be positive (got '{zero}'; at least 0.01)")
            );
        }
        assert_eq!(parse_amount("1000000000.00"), Ok(MAX_STAKE_CENTS));
        assert_eq!(format_cents(500), "5.00");
        assert_eq!(format_cents(-7), "-0.07");
        assert_eq!(format_cents(0), "0.00");
    }

    #[test]
    fn settlement_arithmetic() {
        // Stake 5.00: pot 10.00, commission 1.00, winner gets 9.00 (net +4.00), loser −5.00.
        let s = settle(500, Some(0));
        assert_eq!(s.pot, 1000);
        assert_eq!(s.commission, 100);
        assert_eq!(s.payout, [900, 0]);
        assert_eq!(s.net, [400, -500]);
        // Odd cents: stake 0.03, pot 0.06, commission 0.006 → 0.01, payout 0.05.
        let s = settle(3, Some(1));
        assert_eq!((s.commission, s.payout, s.net), (1, [0, 5], [-3, 2]));
        // Stake 0.01: commission 0.002 → 0.00, the winner takes the whole pot.
        let s = settle(1, Some(0));
        assert_eq!((s.commission, s.payout), (0, [2, 0]));
        // Stake 0.25: pot 0.50, commission 0.05 exactly.
        assert_eq!(settle(25, Some(0)).commission, 5);
        // Stake 1.27: pot 2.54, commission 0.254 → 0.25, payout 2.29.
        let s = settle(127, Some(0));
        assert_eq!((s.commission, s.payout[0]), (25, 229));
        // A draw refunds both stakes and takes nothing.
        let d = settle(500, None);
        assert_eq!((d.commission, d.payout, d.net), (0, [500, 500], [0, 0]));
        let mut l = Ledger::default();
        l.add(&settle(500, Some(0)));
        l.add(&settle(500, None));
        l.add(&settle(500, Some(1)));
        assert_eq!(l.pots, 3000);
        assert_eq!(l.commission, 200);
        assert_eq!(l.net, [-100, -100]);
        assert_eq!(l.payout, [1400, 1400]);
        // Half up: 10 % of a pot ending in 5 at the tenth of a cent (not reachable from a
        // stake, since pots are even) rounds up.
        assert_eq!(commission(5), 1);
        assert_eq!(commission(4), 0);
        assert_eq!(commission(15), 2);
    }

    proptest! {
        #[test]
        fn payout_plus_commission_is_the_pot(stake in 0u64..=MAX_STAKE_CENTS, w in 0usize..3) {
            let winner = if w == 2 { None } else { Some(w) };
            let s = settle(stake, winner);
            prop_assert_eq!(s.payout[0] + s.payout[1] + s.commission, s.pot);
            prop_assert_eq!(s.net[0] + s.net[1] + s.commission as i64, 0);
            // The commission is within half a cent of 10 % of the pot.
            let exact = s.pot as f64 * 0.1;
            if winner.is_some() {
                prop_assert!((s.commission as f64 - exact).abs() <= 0.5);
            }
            // Text round trip of the stake.
            prop_assert_eq!(parse_amount(&format_cents(stake as i64)), Ok(stake));
        }
    }
}
