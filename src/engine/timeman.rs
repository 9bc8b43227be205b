//! Time management v0: per-colour game clocks (GTP `time_settings` / `time_left`) turned into
//! [`SearchLimits`] for one move.
//!
//! Clocks (all times in ms inside, seconds in GTP):
//! - no `time_settings` received, or `B > 0, S = 0` ("no time limit"): a fixed per-move time,
//!   [`DEFAULT_MOVE_TIME_MS`] (1000 ms) unless configured otherwise;
//! - `B = 0`: absolute time, `M` seconds for the whole game;
//! - otherwise Canadian byo-yomi: `M` seconds main time, then `B` seconds for every `S` stones.
//!
//! Budget for one move from a clock with `r` ms left (the usual equal-split scheme):
//! - usable = `r` − safety margin, the margin being 5 % of `r` plus 50 ms for process and pipe
//!   overhead;
//! - in main time the usable time is split over the moves this side still has to play
//!   before the endgame solve takes over, shaped by game phase: ⌈(empties −
//!   [`SOLVE_HORIZON_EMPTIES`]) / 2⌉ midgame moves plus [`SOLVE_RESERVE_MOVES`] shares kept
//!   for the solve and the moves after it (which the solve's table answers at once), at least
//!   [`MIN_MOVES_TO_GO`]: target = usable / moves_to_go, so midgame moves get more than an
//!   equal split over all ⌈empties / 2⌉ moves would give; no new iteration starts after half
//!   the target (soft, since the next iteration would take about as long again), and the
//!   hard deadline is min(1.5 × target, usable / 3), never below soft;
//! - in byo-yomi with `s` stones left in the period: target = usable / `s`, soft = target / 2,
//!   hard = target + (usable − target) / `s` (the whole usable time for the last stone);
//! - a position with at most one legal move gets an immediate answer (0 ms);
//! - every budget is capped: hard at most [`MAX_MOVE_MS`] (1 hour), soft never above hard, so
//!   an answer always comes however large the clock.
//!
//! Arithmetic is saturating throughout (clock values may be anything a GTP client sends);
//! GTP seconds become ms through [`seconds_to_ms`], which clamps to [`MAX_CLOCK_MS`].
//!
//! When no `time_left` arrives, each side's clock is updated by measuring the thinking time
//! reported through [`TimeManager::spent`]. Clocks are per colour: time spent by one side
//! never changes the other side's clock.

use std::time::{Duration, Instant};

use crate::engine::SearchLimits;
use crate::othello::board::Board;
use crate::othello::square::Color;

/// Per-move time without any clock (and under "no time limit"), in ms.
pub const DEFAULT_MOVE_TIME_MS: u64 = 1000;

/// The fewest moves the remaining main time is split over, so the last moves of a game never
/// spend the whole clock.
pub const MIN_MOVES_TO_GO: u64 = 3;

/// Empties at about which flank's own moves are decided by an exact or WLD solve in a timed
/// game (10 s per side solves from about 20-22 empties, longer clocks earlier), so the main
/// time is planned for the moves before it ([`SOLVE_RESERVE_MOVES`] cover the rest).
pub const SOLVE_HORIZON_EMPTIES: u32 = 20;

/// Move shares of the main time kept for the endgame solve and the moves after it (at 10 s a
/// side the solve at 20-24 empties takes about 0.35 s a move and the later moves come from its
/// table at once; with 4 shares a side used 71 % of its clock, with 2 about 80 %: see
/// docs/benchmarks.md, "Where the clock goes").
pub const SOLVE_RESERVE_MOVES: u64 = 2;

/// Fixed part of the safety margin, in ms (process start-up, pipes, the manager's own clock).
pub const MARGIN_MS: u64 = 50;

/// Proportional part of the safety margin, in percent of the time left.
pub const MARGIN_PERCENT: u64 = 5;

/// The most one move may take, in ms (1 hour): the hard limit of every budget is capped here
/// (and the soft target with it), whatever the clock or the configured per-move time says.
pub const MAX_MOVE_MS: u64 = 3_600_000;

/// The largest clock value kept, in ms (10^12 ms, about 31.7 years): GTP times above it are
/// read as this much. Far beyond any real game, small enough for plain arithmetic.
pub const MAX_CLOCK_MS: u64 = 1_000_000_000_000;

/// Converts GTP seconds (decimals accepted) to ms, rounded, but never a positive time to 0 ms
/// (so `time_settings 5 0.0004 0` stays "no time limit"): negative is read as 0 (some managers
/// send slightly negative times when a clock has just run out) and anything above
/// [`MAX_CLOCK_MS`] as [`MAX_CLOCK_MS`]. `None` for NaN and infinities.
pub fn seconds_to_ms(seconds: f64) -> Option<u64> {
    if !seconds.is_finite() {
        return None;
    }
    let ms = (seconds.max(0.0) * 1000.0).round();
    let ms = if seconds > 0.0 { ms.max(1.0) } else { ms };
    // The cast is exact below the clamp (10^12 < 2^53).
    Some(if ms >= MAX_CLOCK_MS as f64 {
        MAX_CLOCK_MS
    } else {
        ms as u64
    })
}

/// The time control of a game, as set by GTP `time_settings M B S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock (no `time_settings` received yet): a fixed time per move (the configured
    /// default). A `time_left` in this state starts a clock (see [`TimeManager::time_left`]).
    PerMove,
    /// GTP's "no time limit" (`time_settings M B 0` with `B > 0`): a fixed time per move, and
    /// `time_left` is ignored.
    NoLimit,
    /// Absolute time: `main_ms` for the whole game.
    Absolute {
        /// Whole-game budget per side, ms.
        main_ms: u64,
    },
    /// Canadian byo-yomi: `main_ms` main time, then `byo_ms` for every `byo_stones` moves.
    Canadian {
        /// Main time per side, ms.
        main_ms: u64,
        /// Length of one byo-yomi period, ms.
        byo_ms: u64,
        /// Moves to play in one period (≥ 1).
        byo_stones: u32,
    },
}

impl TimeControl {
    /// The control for GTP `time_settings M B S`, with `M` and `B` already converted to ms.
    pub fn from_gtp(main_ms: u64, byo_ms: u64, stones: u32) -> TimeControl {
        if byo_ms == 0 {
            TimeControl::Absolute { main_ms }
        } else if stones == 0 {
            TimeControl::NoLimit
        } else {
            TimeControl::Canadian {
                main_ms,
                byo_ms,
                byo_stones: stones,
            }
        }
    }
}

/// One side's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left in ms: main time, or the current byo-yomi period when `stones_left > 0`.
    pub remaining_ms: u64,
    /// Stones still to play in the current byo-yomi period; 0 during main time.
    pub stones_left: u32,
}

/// A move budget: soft target and hard limit, both in ms from the moment the move is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// No new iteration is started after this many ms.
    pub soft_ms: u64,
    /// The search stops after this many ms whatever it is doing.
    pub hard_ms: u64,
}

/// Clocks for both colours under one [`TimeControl`].
#[derive(Clone, Debug)]
pub struct TimeManager {
    control: TimeControl,
    clocks: [Clock; 2],
    move_time_ms: u64,
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl TimeManager {
    /// A manager without a clock, spending `move_time_ms` per move (use
    /// [`DEFAULT_MOVE_TIME_MS`] for the default).
    pub fn new(move_time_ms: u64) -> TimeManager {
        TimeManager {
            control: TimeControl::PerMove,
            clocks: [Clock {
                remaining_ms: 0,
                stones_left: 0,
            }; 2],
            move_time_ms,
        }
    }

    /// The current time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// One side's clock (unused under [`TimeControl::PerMove`] and [`TimeControl::NoLimit`]).
    pub fn clock(&self, color: Color) -> Clock {
        self.clocks[idx(color)]
    }

    /// Sets the time control and resets both clocks to its start (GTP `time_settings`). A
    /// Canadian control with no main time starts directly in byo-yomi.
    pub fn set_control(&mut self, control: TimeControl) {
        self.control = control;
        let start = match control {
            TimeControl::PerMove | TimeControl::NoLimit => Clock {
                remaining_ms: 0,
                stones_left: 0,
            },
            TimeControl::Absolute { main_ms } => Clock {
                remaining_ms: main_ms,
                stones_left: 0,
            },
            TimeControl::Canadian {
                main_ms,
                byo_ms,
                byo_stones,
            } => {
                if main_ms == 0 {
                    Clock {
                        remaining_ms: byo_ms,
                        stones_left: byo_stones,
                    }
                } else {
                    Clock {
                        remaining_ms: main_ms,
                        stones_left: 0,
                    }
                }
            }
        };
        self.clocks = [start; 2];
    }

    /// Resets both clocks to the start of the current control (a new game).
    pub fn reset(&mut self) {
        self.set_control(self.control);
    }

    /// Sets one side's clock from GTP `time_left C T S`: `remaining_ms` left (main time, or
    /// the current period), `stones` left in the byo-yomi period (0 in main time).
    ///
    /// Without any `time_settings` ([`TimeControl::PerMove`]) the manager's clock is what
    /// counts: `S = 0` starts absolute time of `remaining_ms` for the rest of the game, `S > 0`
    /// a Canadian period of `remaining_ms` for `S` stones. Under [`TimeControl::NoLimit`] the
    /// clock is recorded but not used.
    pub fn time_left(&mut self, color: Color, remaining_ms: u64, stones: u32) {
        if self.control == TimeControl::PerMove {
            self.control = if stones == 0 {
                TimeControl::Absolute {
                    main_ms: remaining_ms,
                }
            } else {
                TimeControl::Canadian {
                    main_ms: 0,
                    byo_ms: remaining_ms,
                    byo_stones: stones,
                }
            };
            // The other side's clock is unknown: give it the same time until told.
            self.clocks = [Clock {
                remaining_ms,
                stones_left: stones,
            }; 2];
        }
        self.clocks[idx(color)] = Clock {
            remaining_ms,
            stones_left: stones,
        };
    }

    /// Charges `elapsed_ms` of thinking to `color`'s clock for one move played, entering
    /// byo-yomi when main time runs out and starting a new period after the period's last
    /// stone. No effect without a clock ([`TimeControl::PerMove`], [`TimeControl::NoLimit`]).
    pub fn spent(&mut self, color: Color, elapsed_ms: u64) {
        let control = self.control;
        let c = &mut self.clocks[idx(color)];
        match control {
            TimeControl::PerMove | TimeControl::NoLimit => {}
            TimeControl::Absolute { .. } => {
                c.remaining_ms = c.remaining_ms.saturating_sub(elapsed_ms);
            }
            TimeControl::Canadian {
                byo_ms, byo_stones, ..
            } => {
                let mut elapsed = elapsed_ms;
                if c.stones_left == 0 {
                    if elapsed < c.remaining_ms {
                        c.remaining_ms -= elapsed;
                        return;
                    }
                    // Main time is over: the rest of this move counts against a period.
                    elapsed = elapsed.saturating_sub(c.remaining_ms);
                    c.remaining_ms = byo_ms;
                    c.stones_left = byo_stones;
                }
                c.remaining_ms = c.remaining_ms.saturating_sub(elapsed);
                c.stones_left = c.stones_left.saturating_sub(1);
                if c.stones_left == 0 {
                    c.remaining_ms = byo_ms;
                    c.stones_left = byo_stones;
                }
            }
        }
    }

    /// The budget for `color` to move in `board` (`board.player` is `color`'s discs), capped
    /// at [`MAX_MOVE_MS`].
    pub fn budget(&self, color: Color, board: &Board) -> Budget {
        if board.moves().count_ones() <= 1 {
            return Budget {
                soft_ms: 0,
                hard_ms: 0,
            };
        }
        let clock = self.clocks[idx(color)];
        let b = match self.control {
            TimeControl::PerMove | TimeControl::NoLimit => per_move_budget(self.move_time_ms),
            _ if clock.stones_left > 0 => {
                byoyomi_budget(clock.remaining_ms, clock.stones_left as u64)
            }
            _ => main_time_budget(clock.remaining_ms, board.empties()),
        };
        let hard_ms = b.hard_ms.min(MAX_MOVE_MS);
        Budget {
            soft_ms: b.soft_ms.min(hard_ms),
            hard_ms,
        }
    }

    /// True if a real clock is running (absolute or Canadian), false for per-move time.
    pub fn has_clock(&self) -> bool {
        matches!(
            self.control,
            TimeControl::Absolute { .. } | TimeControl::Canadian { .. }
        )
    }

    /// Search limits for `color` to move in `board`, with the deadline counted from `start`
    /// (the moment the command arrived). `depth` is the `--depth` cap: the clock's limits, or
    /// without a clock the per-move time, apply as well, so a search always ends in time.
    pub fn limits(
        &self,
        color: Color,
        board: &Board,
        depth: Option<u32>,
        start: Instant,
    ) -> SearchLimits {
        let mut limits = SearchLimits {
            depth,
            ..SearchLimits::default()
        };
        let b = self.budget(color, board);
        limits.time_ms = Some(b.soft_ms);
        limits.deadline = start.checked_add(Duration::from_millis(b.hard_ms));
        limits
    }
}

/// Fixed time per move: the answer comes within `move_ms` (hard), no new iteration after half.
fn per_move_budget(move_ms: u64) -> Budget {
    Budget {
        soft_ms: move_ms / 2,
        hard_ms: move_ms,
    }
}

/// Remaining time minus the safety margin (5 % + 50 ms); the percentage is taken in 128 bits,
/// so any `u64` works.
fn usable(remaining_ms: u64) -> u64 {
    let percent = u128::from(remaining_ms) * u128::from(MARGIN_PERCENT) / 100;
    let margin = u64::try_from(percent)
        .unwrap_or(u64::MAX)
        .saturating_add(MARGIN_MS);
    remaining_ms.saturating_sub(margin)
}

/// Main time: split over this side's moves before the solve horizon plus the reserve.
fn main_time_budget(remaining_ms: u64, empties: u32) -> Budget {
    let usable = usable(remaining_ms);
    let moves_to_go = (empties.saturating_sub(SOLVE_HORIZON_EMPTIES) as u64)
        .div_ceil(2)
        .saturating_add(SOLVE_RESERVE_MOVES)
        .max(MIN_MOVES_TO_GO);
    let target = usable / moves_to_go;
    let soft = target / 2;
    let hard = (target.saturating_mul(3) / 2).min(usable / 3).max(soft);
    Budget {
        soft_ms: soft,
        hard_ms: hard,
    }
}

/// Byo-yomi: `stones` moves to play in `remaining_ms`.
fn byoyomi_budget(remaining_ms: u64, stones: u64) -> Budget {
    let usable = usable(remaining_ms);
    let stones = stones.max(1);
    let target = usable / stones;
    Budget {
        soft_ms: target / 2,
        hard_ms: target.saturating_add(usable.saturating_sub(target) / stones),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::othello::Position;

    /// The start position (4 legal moves, 60 empties).
    fn start() -> Board {
        Board::start()
    }

    /// A position with 30 empties and several legal moves for the side to move.
    fn thirty_empties() -> Board {
        let p: Position = "XXXXXXXXOOOOOOOOXXXXXXXXOOOOOOOO-------------------------------- X"
            .parse()
            .unwrap();
        assert_eq!(p.board.empties(), 32);
        // Play two moves to get 30 empties with a side to move that has moves.
        let b = p.board.make_move(p.board.legal_moves().next().unwrap());
        let b = b.make_move(b.legal_moves().next().unwrap());
        assert_eq!(b.empties(), 30);
        assert!(b.moves().count_ones() > 1);
        b
    }

    #[test]
    fn per_move_default_and_configured() {
        let t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        assert_eq!(
            t.budget(Color::Black, &start()),
            Budget {
                soft_ms: 500,
                hard_ms: 1000
            }
        );
        let t = TimeManager::new(300);
        assert_eq!(t.budget(Color::White, &start()).hard_ms, 300);
    }

    #[test]
    fn sixty_seconds_thirty_empties() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::from_gtp(300_000, 0, 0));
        t.time_left(Color::Black, 60_000, 0);
        // usable = 60000 - 3000 - 50 = 56950; (30 - 20) / 2 = 5 moves before the solve
        // horizon plus 2 reserve shares = 7 to go: target 8135, soft 8135 / 2, hard 1.5 * 8135.
        assert_eq!(
            t.budget(Color::Black, &thirty_empties()),
            Budget {
                soft_ms: 4067,
                hard_ms: 12202
            }
        );
        // White's clock still has the full 300 s: 285000 - 50 = 284950 over 7 moves.
        assert_eq!(t.budget(Color::White, &thirty_empties()).soft_ms, 40707 / 2);
    }

    #[test]
    fn start_position_and_floor() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::Absolute { main_ms: 10_000 });
        // 10000 - 550 = 9450 over 20 + 2 = 22 moves: target 429.
        assert_eq!(
            t.budget(Color::Black, &start()),
            Budget {
                soft_ms: 214,
                hard_ms: 643
            }
        );
        // Near the end, the 2 reserve shares raised to the floor of 3 moves: target 9450 / 3 =
        // 3150, hard capped at usable / 3.
        // Black (row 6) plays e8-h8 across white's row 7.
        let p: Position = "XXXXXXXXOOOOOOOOXXXXXXXXOOOOOOOOXXXXXXXXXXXXXXXXOOOOOOOOOOOO---- X"
            .parse()
            .unwrap();
        assert!(p.board.moves().count_ones() > 1, "{}", p);
        assert_eq!(
            t.budget(Color::Black, &p.board),
            Budget {
                soft_ms: 1575,
                hard_ms: 3150
            }
        );
    }

    #[test]
    fn one_legal_move_is_immediate() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::Absolute { main_ms: 60_000 });
        let p: Position = format!("XO{} X", "-".repeat(62)).parse().unwrap();
        assert_eq!(p.board.moves().count_ones(), 1);
        assert_eq!(
            t.budget(Color::Black, &p.board),
            Budget {
                soft_ms: 0,
                hard_ms: 0
            }
        );
    }

    #[test]
    fn canadian_byoyomi() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::from_gtp(0, 60_000, 10));
        assert_eq!(
            t.clock(Color::Black),
            Clock {
                remaining_ms: 60_000,
                stones_left: 10
            }
        );
        // usable 56950 over 10 stones: target 5695, hard 5695 + 51255 / 10.
        assert_eq!(
            t.budget(Color::Black, &start()),
            Budget {
                soft_ms: 2847,
                hard_ms: 10820
            }
        );
        // Last stone of a period: everything usable.
        t.time_left(Color::Black, 20_000, 1);
        assert_eq!(
            t.budget(Color::Black, &start()),
            Budget {
                soft_ms: 9475,
                hard_ms: 18950
            }
        );
        // B > 0 and S = 0 means no time limit: per-move time.
        assert_eq!(
            TimeControl::from_gtp(10_000, 5_000, 0),
            TimeControl::NoLimit
        );
    }

    #[test]
    fn own_time_tracking_is_per_colour() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::from_gtp(2_000, 10_000, 2));
        t.spent(Color::Black, 1500);
        assert_eq!(t.clock(Color::Black).remaining_ms, 500);
        assert_eq!(t.clock(Color::White).remaining_ms, 2000);
        // 700 ms more: main time runs out, 200 ms of the first period used, 1 stone left.
        t.spent(Color::Black, 700);
        assert_eq!(
            t.clock(Color::Black),
            Clock {
                remaining_ms: 9800,
                stones_left: 1
            }
        );
        // The period's last stone starts a fresh period.
        t.spent(Color::Black, 3000);
        assert_eq!(
            t.clock(Color::Black),
            Clock {
                remaining_ms: 10_000,
                stones_left: 2
            }
        );
        assert_eq!(t.clock(Color::White).remaining_ms, 2000);
        // Absolute time just counts down.
        t.set_control(TimeControl::from_gtp(5_000, 0, 0));
        t.spent(Color::White, 1234);
        assert_eq!(t.clock(Color::White).remaining_ms, 3766);
        assert_eq!(t.clock(Color::Black).remaining_ms, 5000);
    }

    #[test]
    fn time_left_without_settings_starts_a_clock() {
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.time_left(Color::White, 60_000, 0);
        assert_eq!(t.control(), TimeControl::Absolute { main_ms: 60_000 });
        assert!(t.has_clock());
        // 60 empties: 20 + 2 = 22 moves to go, target 56950 / 22 = 2588, soft half of it.
        assert_eq!(t.budget(Color::White, &start()).soft_ms, 1294);
        // Under "no time limit", time_left does not start a clock.
        let mut t = TimeManager::new(700);
        t.set_control(TimeControl::from_gtp(0, 10_000, 0));
        t.time_left(Color::White, 60_000, 0);
        assert!(!t.has_clock());
        assert_eq!(t.budget(Color::White, &start()).hard_ms, 700);
    }

    #[test]
    fn limits_depth_and_deadline() {
        let now = Instant::now();
        let mut t = TimeManager::new(800);
        // A fixed depth is a cap: the per-move time still bounds the search.
        let l = t.limits(Color::Black, &start(), Some(6), now);
        let per_move = (Some(6), Some(400), Some(now + Duration::from_millis(800)));
        assert_eq!((l.depth, l.time_ms, l.deadline), per_move);
        let l = t.limits(Color::Black, &start(), None, now);
        assert_eq!(l.time_ms, Some(400));
        assert_eq!(l.deadline, Some(now + Duration::from_millis(800)));
        t.set_control(TimeControl::Absolute { main_ms: 10_000 });
        let l = t.limits(Color::Black, &start(), Some(6), now);
        assert_eq!(l.depth, Some(6));
        assert_eq!(l.time_ms, Some(214));
        assert_eq!(l.deadline, Some(now + Duration::from_millis(643)));
    }

    #[test]
    fn seconds_to_ms_clamps_and_rejects_non_finite() {
        assert_eq!(seconds_to_ms(12.5), Some(12_500));
        // A positive time never becomes 0 ms (0 would turn "no time limit" into absolute time).
        assert_eq!(seconds_to_ms(0.0004), Some(1));
        assert_eq!(seconds_to_ms(0.0), Some(0));
        assert_eq!(seconds_to_ms(-3.0), Some(0));
        assert_eq!(seconds_to_ms(1e9), Some(MAX_CLOCK_MS));
        assert_eq!(seconds_to_ms(1e15), Some(MAX_CLOCK_MS));
        assert_eq!(seconds_to_ms(1e300), Some(MAX_CLOCK_MS));
        assert_eq!(seconds_to_ms(999_999_999.0), Some(999_999_999_000));
        assert_eq!(seconds_to_ms(f64::NAN), None);
        assert_eq!(seconds_to_ms(f64::INFINITY), None);
        assert_eq!(seconds_to_ms(f64::NEG_INFINITY), None);
    }

    #[test]
    fn huge_clocks_are_capped_at_max_move_ms() {
        let now = Instant::now();
        let capped = Budget {
            soft_ms: MAX_MOVE_MS,
            hard_ms: MAX_MOVE_MS,
        };
        // Absolute time, up to u64::MAX ms: no overflow, and at most an hour per move.
        for main_ms in [MAX_CLOCK_MS, u64::MAX / 5 + 1, u64::MAX] {
            let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
            t.set_control(TimeControl::from_gtp(main_ms, 0, 0));
            assert_eq!(t.budget(Color::Black, &start()), capped, "{main_ms}");
            let l = t.limits(Color::Black, &start(), None, now);
            assert_eq!(l.time_ms, Some(MAX_MOVE_MS));
            assert_eq!(
                l.deadline,
                Some(now + Duration::from_millis(MAX_MOVE_MS)),
                "{main_ms}"
            );
            t.spent(Color::Black, u64::MAX);
            assert_eq!(t.clock(Color::Black).remaining_ms, 0);
        }
        // Byo-yomi with a huge period, last stone and many stones.
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::from_gtp(0, u64::MAX, 1));
        assert_eq!(t.budget(Color::White, &start()), capped);
        t.time_left(Color::White, u64::MAX, u32::MAX);
        // usable / 2^32 - 1 stones is still over an hour: soft is capped too.
        assert_eq!(t.budget(Color::White, &start()), capped);
        t.spent(Color::White, u64::MAX);
        assert_eq!(t.clock(Color::White).stones_left, u32::MAX - 1);
        // Main time running out with a huge overrun charges the period, no panic.
        t.set_control(TimeControl::from_gtp(1_000, u64::MAX, 3));
        t.spent(Color::Black, u64::MAX);
        assert_eq!(
            t.clock(Color::Black),
            Clock {
                remaining_ms: 1_000,
                stones_left: 2
            }
        );
        // A hand-made Canadian control with zero stones: no underflow when main time runs out.
        let mut t = TimeManager::new(DEFAULT_MOVE_TIME_MS);
        t.set_control(TimeControl::Canadian {
            main_ms: 1_000,
            byo_ms: 60_000,
            byo_stones: 0,
        });
        t.spent(Color::Black, 70_000);
        assert_eq!(
            t.clock(Color::Black),
            Clock {
                remaining_ms: 60_000,
                stones_left: 0
            }
        );
        let b = t.budget(Color::Black, &start());
        assert!(b.soft_ms <= b.hard_ms && b.hard_ms <= MAX_MOVE_MS, "{b:?}");
        // The configured per-move time is capped too.
        let t = TimeManager::new(u64::MAX);
        assert_eq!(
            t.budget(Color::Black, &start()),
            Budget {
                soft_ms: MAX_MOVE_MS,
                hard_ms: MAX_MOVE_MS
            }
        );
    }
}
