//! Match statistics: the Elo difference with its 95 % interval, and the GSPRT stop.
//!
//! Elo: the logistic model, `elo(s) = −400 · log10(1/s − 1)` for a score fraction `s` (wins
//! count 1, draws ½). The interval is the normal approximation on the per-game scores, as
//! cutechess-cli reports it: `s ± 1.959964 · σ/√n` with `σ²` the variance of the n per-game
//! scores (wins, draws and losses: the trinomial), each end mapped through `elo()`.
//!
//! SPRT: the generalised SPRT (GSPRT) on the trinomial (loss, draw, win) with the logistic
//! Elo model, as Fishtest computes it (M. Van den Bergh, "Generalized SPRT for multinomial
//! distributions"): with observed frequencies `f` and `s_k = 1/(1 + 10^(−elo_k/400))`,
//! `LLR = n · Σ f_i ln(p1_i / p0_i)` where `p_k` is the maximum-likelihood trinomial with mean
//! score `s_k` ([`mle_with_mean`]). Each count is raised to at least [`COUNT_FLOOR`] = 0.001
//! (Fishtest's regularisation) so zero counts stay finite. For large n this is
//! `n · (s1 − s0)(2·s̄ − s0 − s1) / (2σ²)` (Fishtest's `LLR_logistic`), which the tests check;
//! unlike that quadratic form the exact one does not blow up when all games so far have the
//! same result (after n straight wins it is n · ln(s1/s0)-like, 0.0284 per win for 0–10 Elo,
//! not thousands). Bounds (Wald): stop for H1 when `LLR ≥ ln((1 − β)/α)`, for H0 when
//! `LLR ≤ ln(β/(1 − α))`.

use serde::Serialize;

/// Win, draw and loss counts from one player's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

/// The floor of each of the three counts in the LLR (Fishtest's regularisation).
pub const COUNT_FLOOR: f64 = 1e-3;

/// The scores of a loss, a draw and a win.
const OUTCOME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// The trinomial distribution closest (maximum likelihood) to the observed frequencies
/// `freq` (loss, draw, win) among those with mean score `s` (0 < s < 1): `p_i = f_i / (1 +
/// λ(a_i − s))` with λ the root of `Σ f_i (a_i − s) / (1 + λ(a_i − s)) = 0`, found by
/// bisection on `(−1/(1 − s), 1/s)` where the sum falls strictly (Van den Bergh,
/// "Generalized SPRT for multinomial distributions", as used by Fishtest). All `f_i > 0`.
pub fn mle_with_mean(freq: &[f64; 3], s: f64) -> [f64; 3] {
    let f = |lam: f64| -> f64 {
        (0..3)
            .map(|i| {
                let d = OUTCOME_SCORES[i] - s;
                freq[i] * d / (1.0 + lam * d)
            })
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lam = 0.5 * (lo + hi);
    let mut p = [0.0; 3];
    for i in 0..3 {
        p[i] = freq[i] / (1.0 + lam * (OUTCOME_SCORES[i] - s));
    }
    p
}

/// The two-sided 97.5 % quantile of the standard normal distribution.
pub const Z_95: f64 = 1.959_963_984_540_054;

impl Wdl {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points: 1 per win, ½ per draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean score per game (0–1), `None` before any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    /// Per-game score variance (population variance of the n scores), `None` before any game.
    pub fn variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.games() as f64;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.draws as f64 * (0.5 - s).powi(2)
                + self.losses as f64 * s.powi(2))
                / n,
        )
    }

    /// The Elo difference and its 95 % interval `(elo, low, high)`; each is `None` when it
    /// is infinite (a score of 0 or 1) and all are `None` before any game.
    pub fn elo_interval(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        let finite = |x: f64| x.is_finite().then_some(x);
        match self.elo_interval_raw() {
            Some((e, lo, hi)) => (finite(e), finite(lo), finite(hi)),
            None => (None, None, None),
        }
    }

    /// As [`Wdl::elo_interval`] with infinities kept (`±inf` for a score of 1 or 0 and for
    /// interval ends beyond them); `None` before any game.
    pub fn elo_interval_raw(&self) -> Option<(f64, f64, f64)> {
        let (s, var) = (self.score()?, self.variance()?);
        let margin = Z_95 * (var / self.games() as f64).sqrt();
        let raw = |x: f64| {
            elo(x).unwrap_or(if x >= 1.0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            })
        };
        Some((raw(s), raw(s - margin), raw(s + margin)))
    }
}

/// The Elo difference for a score fraction `s`; `None` outside the open interval (0, 1).
/// An even score gives +0.0, never −0.0.
pub fn elo(s: f64) -> Option<f64> {
    // `+ 0.0` turns the −0.0 of `−400 · log10(1)` into +0.0.
    (s > 0.0 && s < 1.0).then(|| -400.0 * (1.0 / s - 1.0).log10() + 0.0)
}

/// The expected score for an Elo difference (the logistic model).
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The parameters of `--sprt elo0,elo1,alpha,beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo difference of H0 (|elo0| ≤ [`MAX_SPRT_ELO`]).
    pub elo0: f64,
    /// Elo difference of H1 (> elo0, |elo1| ≤ [`MAX_SPRT_ELO`]).
    pub elo1: f64,
    /// False positive rate (0 < α < 0.5).
    pub alpha: f64,
    /// False negative rate (0 < β < 0.5).
    pub beta: f64,
}

/// The largest |elo0| and |elo1| `--sprt` accepts: 1000 Elo is an expected score of 0.9968,
/// far beyond any test worth running; larger values only push the expected scores to 0 or 1,
/// where the LLR is meaningless (NaN for 1e308).
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// The state of an SPRT after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtState {
    /// Neither bound reached.
    Continue,
    /// LLR reached the upper bound: H1 (elo1) accepted.
    H1,
    /// LLR reached the lower bound: H0 (elo0) accepted.
    H0,
}

impl Sprt {
    /// Parses `elo0,elo1,alpha,beta` (e.g. `0,10,0.05,0.05`).
    ///
    /// Errors: a one-line reason: not four numbers, an elo not finite or beyond
    /// ±[`MAX_SPRT_ELO`], elo0 ≥ elo1, α or β outside (0, 0.5).
    pub fn parse(s: &str) -> Result<Sprt, String> {
        let v: Vec<f64> = s
            .split(',')
            .map(|t| t.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("bad --sprt '{s}' (expected elo0,elo1,alpha,beta)"))?;
        let [elo0, elo1, alpha, beta] = v[..] else {
            return Err(format!(
                "bad --sprt '{s}' (expected four numbers elo0,elo1,alpha,beta)"
            ));
        };
        let s = crate::notation::clip(s);
        if ![elo0, elo1]
            .iter()
            .all(|e| e.is_finite() && e.abs() <= MAX_SPRT_ELO)
        {
            return Err(format!(
                "bad --sprt '{s}': elo0 and elo1 must be between -{MAX_SPRT_ELO} and {MAX_SPRT_ELO}"
            ));
        }
        if elo0 >= elo1 {
            return Err(format!("bad --sprt '{s}': elo0 must be below elo1"));
        }
        let rate = |x: f64| x > 0.0 && x < 0.5;
        if !(rate(alpha) && rate(beta)) {
            return Err(format!(
                "bad --sprt '{s}': alpha and beta must be above 0 and below 0.5"
            ));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower and upper LLR bounds `(ln(β/(1−α)), ln((1−β)/α))`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 for `wdl` (the module header's GSPRT);
    /// 0 before any game.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        if wdl.games() == 0 {
            return 0.0;
        }
        let counts = [wdl.losses, wdl.draws, wdl.wins].map(|c| (c as f64).max(COUNT_FLOOR));
        let n: f64 = counts.iter().sum();
        let freq = counts.map(|c| c / n);
        let p0 = mle_with_mean(&freq, expected_score(self.elo0));
        let p1 = mle_with_mean(&freq, expected_score(self.elo1));
        n * (0..3).map(|i| freq[i] * (p1[i] / p0[i]).ln()).sum::<f64>() + 0.0
    }

    /// Where the test stands after `wdl`.
    pub fn state(&self, wdl: &Wdl) -> SprtState {
        let llr = self.llr(wdl);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::H1
        } else if llr <= lower {
            SprtState::H0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn elo_known_values() {
        // s = 0.75: -400 log10(1/3) = 190.848501...
        assert!(close(elo(0.75).unwrap(), 190.848_501_887_864_9));
        assert!(close(elo(0.5).unwrap(), 0.0));
        // An even score is +0.0 (no "-0.0" in text or JSON).
        assert!(elo(0.5).unwrap().is_sign_positive());
        let even = Wdl {
            wins: 1,
            draws: 0,
            losses: 1,
        };
        assert!(even.elo_interval().0.unwrap().is_sign_positive());
        assert_eq!(
            serde_json::to_string(&even.elo_interval().0).unwrap(),
            "0.0"
        );
        assert!(close(elo(0.25).unwrap(), -190.848_501_887_864_9));
        assert_eq!(elo(1.0), None);
        assert_eq!(elo(0.0), None);
        assert!(close(expected_score(190.848_501_887_864_9), 0.75));
    }

    #[test]
    fn elo_interval_known_values() {
        // 30 wins, 40 draws, 30 losses: s = 0.5, per-game variance (30·0.25 + 30·0.25)/100
        // = 0.15, margin 1.959964·sqrt(0.15/100) = 0.0759090; elo(0.5759091) = 53.15798.
        let wdl = Wdl {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (e, lo, hi) = wdl.elo_interval();
        assert!(close(e.unwrap(), 0.0));
        assert!((hi.unwrap() - 53.158_0).abs() < 1e-3, "{hi:?}");
        assert!((lo.unwrap() + 53.158_0).abs() < 1e-3, "{lo:?}");
        // 60 wins, 20 draws, 20 losses: s = 0.7, elo 147.1906.
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        assert!((wdl.elo_interval().0.unwrap() - 147.190_6).abs() < 1e-3);
        // All wins: infinite Elo.
        let all = Wdl {
            wins: 4,
            draws: 0,
            losses: 0,
        };
        assert_eq!(all.elo_interval().0, None);
        assert_eq!(
            all.elo_interval_raw(),
            Some((f64::INFINITY, f64::INFINITY, f64::INFINITY))
        );
        assert_eq!(Wdl::default().elo_interval(), (None, None, None));
    }

    #[test]
    fn sprt_known_values() {
        let sprt = Sprt::parse("0,10,0.05,0.05").unwrap();
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_438_979_166_44));
        assert!(close(hi, 2.944_438_979_166_44));
        // 100 wins, 80 draws, 90 losses. The quadratic approximation, by hand:
        // n = 270, mean = 140/270 = 0.5185185, var = 0.1755830; s0 = 0.5, s1 = 0.5143872;
        // 270 · 0.0143872 · (2·0.5185185 − 1.0143872) / (2 · 0.1755830) = 0.2505489.
        // The exact GSPRT (an independent bisection in Python): 0.2501622.
        let wdl = Wdl {
            wins: 100,
            draws: 80,
            losses: 90,
        };
        assert!(
            (sprt.llr(&wdl) - 0.250_162_2).abs() < 1e-6,
            "{}",
            sprt.llr(&wdl)
        );
        assert!((sprt.llr(&wdl) - 0.250_548_9).abs() < 1e-3);
        assert_eq!(sprt.state(&wdl), SprtState::Continue);
        let strong = Wdl {
            wins: 300,
            draws: 100,
            losses: 200,
        };
        // LLR 3.157422 ≥ 2.9444 (quadratic form: 3.2636).
        assert!((sprt.llr(&strong) - 3.157_421_8).abs() < 1e-6);
        assert_eq!(sprt.state(&strong), SprtState::H1);
        let weak = Wdl {
            wins: 200,
            draws: 100,
            losses: 300,
        };
        // LLR −3.749821 ≤ −2.9444 (quadratic form: −3.8803).
        assert!((sprt.llr(&weak) + 3.749_821_1).abs() < 1e-6);
        assert_eq!(sprt.state(&weak), SprtState::H0);
        assert_eq!(sprt.llr(&Wdl::default()), 0.0);
        // Straight wins: 0.0283673 after one; the upper bound is first reached at 104.
        let wins = |n| Wdl {
            wins: n,
            draws: 0,
            losses: 0,
        };
        assert!((sprt.llr(&wins(1)) - 0.028_367_27).abs() < 1e-7);
        assert!((sprt.llr(&wins(103)) - 2.921_919_7).abs() < 1e-6);
        assert!((sprt.llr(&wins(104)) - 2.950_287_8).abs() < 1e-6);
        assert_eq!(sprt.state(&wins(103)), SprtState::Continue);
        assert_eq!(sprt.state(&wins(104)), SprtState::H1);
    }

    #[test]
    fn sprt_parse_errors() {
        assert!(Sprt::parse("0,10,0.05").is_err());
        assert!(Sprt::parse("10,0,0.05,0.05").is_err());
        assert!(Sprt::parse("0,10,0,0.05").is_err());
        assert!(Sprt::parse("0,10,0.05,x").is_err());
        // Absurd values are refused at parse time, each with its reason.
        for (text, reason) in [
            ("0,1e308,0.05,0.05", "between -1000 and 1000"),
            ("-1001,0,0.05,0.05", "between -1000 and 1000"),
            ("0,inf,0.05,0.05", "between -1000 and 1000"),
            ("NaN,10,0.05,0.05", "between -1000 and 1000"),
            ("5,5,0.05,0.05", "elo0 must be below elo1"),
            ("0,10,0.5,0.05", "below 0.5"),
            ("0,10,0.05,0.9", "below 0.5"),
            ("0,10,-0.05,0.05", "above 0"),
        ] {
            let e = Sprt::parse(text).unwrap_err();
            assert!(e.contains(reason), "{text}: {e}");
        }
        // The extremes that are accepted give a finite LLR.
        let edge = Sprt::parse("-1000,1000,0.01,0.49").unwrap();
        let w = Wdl {
            wins: 3,
            draws: 1,
            losses: 2,
        };
        assert!(edge.llr(&w).is_finite());
        assert_eq!(
            Sprt::parse(" -5 , 5 ,0.1,0.2").unwrap(),
            Sprt {
                elo0: -5.0,
                elo1: 5.0,
                alpha: 0.1,
                beta: 0.2
            }
        );
    }
}
