//! The referee: plays one game between two [`Player`]s under flank's own rules and clocks.
//!
//! Legality, passes, the end of the game and the score come from [`crate::othello::game::Game`]. The
//! referee never trusts a player: every `genmove` answer is checked, and each player's
//! whole-game clock (its own length per colour, [`GameSetup::time_ms`], so a match can give
//! time odds) is kept by the referee from the wall time of every command it answers
//! once the game is under way (`genmove`, draw answers, `play`, `time_left`): each wait is
//! bounded by the time left on that clock, and running out while answering any of them is a
//! loss on time. Only the set-up commands before the first move (`clear_board`, handicap,
//! `time_settings`, the opening's `play`s) are not charged; they are bounded by
//! [`RefereeConfig::command_timeout`].
//!
//! The game loop, per turn of colour C (player P):
//! 1. Game over (neither side can move): the board decides.
//! 2. C has no legal move: the referee records C's pass and sends `play C pass` to both
//!    players (each charged for its answer); P is not asked to `genmove` (so a blocked side
//!    can never answer wrongly).
//! 3. Draw offers (with [`RefereeConfig::draw_offers`], both players supporting the command,
//!    P having offers left and at most [`RefereeConfig::offer_max_empties`] empties): P is
//!    asked `flank-draw_offer <opponent>` ("would you take a draw now?"). If P accepts, P
//!    offers: one of P's [`MAX_DRAW_OFFERS`] is counted and the opponent is asked
//!    `flank-draw_offer <C>`; its accept ends the game as a draw. Each answer's time is
//!    charged to the answering player's clock.
//! 4. `time_left C T 0` then `genmove C`, each waiting at most the time left on C's clock.
//! 5. The answer must be a legal move of C: `pass` while C can move is a wrong pass, anything
//!    else unplayable is an illegal move, `resign` resigns. The move is sent to the opponent
//!    with `play C M`, charged to the opponent's clock.
//!
//! A player loses at once on: its clock running out (even when ahead on the board), an illegal
//! move, a wrong pass, a crash, a protocol error (malformed answer, `?` to a command it must
//! accept, no answer to a set-up command within the command timeout), or resigning.

use std::fmt;
use std::time::{Duration, Instant};

use super::player::{DrawAnswer, Fault, GameSetup, Player};
use crate::notation::clip;
use crate::othello::Position;
use crate::othello::board::Score;
use crate::othello::game::Game;
use crate::othello::square::{Color, Move};

/// The most draw offers one player may make in one game (the rules' cap).
pub const MAX_DRAW_OFFERS: u32 = 3;

/// How the referee runs a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeConfig {
    /// Draw offers are allowed (`--draw-offers`).
    pub draw_offers: bool,
    /// Offers per player per game, at most [`MAX_DRAW_OFFERS`] (a larger value is capped).
    pub max_offers: u32,
    /// Players are asked about draws only in positions with at most this many empties
    /// (64 = always).
    pub offer_max_empties: u32,
    /// Bound on each set-up command before the first move (`clear_board`, handicap,
    /// `time_settings`, opening moves), the only commands not charged to a clock.
    pub command_timeout: Duration,
}

impl Default for RefereeConfig {
    fn default() -> Self {
        RefereeConfig {
            draw_offers: false,
            max_offers: MAX_DRAW_OFFERS,
            offer_max_empties: 64,
            command_timeout: Duration::from_secs(30),
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// Neither side could move: the board decides.
    Finished,
    /// Both players agreed to a draw (the colour that offered).
    DrawAgreed(Color),
    /// The loser's clock ran out.
    Time,
    /// The loser answered `genmove` with an unplayable move (the answer, clipped).
    Illegal(String),
    /// The loser answered `pass` while it had a legal move.
    WrongPass,
    /// The loser answered `resign`.
    Resigned,
    /// The loser's process ended (how).
    Crashed(String),
    /// The loser broke the protocol (what).
    Protocol(String),
    /// The loser's engine could not be restarted after its previous forfeit (why).
    RestartFailed(String),
}

impl EndReason {
    /// A short code for records and JSON: `finished`, `draw-agreed`, `time`, `illegal`,
    /// `wrong-pass`, `resigned`, `crash`, `protocol`, `restart-failed`.
    pub fn code(&self) -> &'static str {
        match self {
            EndReason::Finished => "finished",
            EndReason::DrawAgreed(_) => "draw-agreed",
            EndReason::Time => "time",
            EndReason::Illegal(_) => "illegal",
            EndReason::WrongPass => "wrong-pass",
            EndReason::Resigned => "resigned",
            EndReason::Crashed(_) => "crash",
            EndReason::Protocol(_) => "protocol",
            EndReason::RestartFailed(_) => "restart-failed",
        }
    }

    /// True for the endings that forfeit the game (everything but `Finished` and agreed draws).
    pub fn is_forfeit(&self) -> bool {
        !matches!(self, EndReason::Finished | EndReason::DrawAgreed(_))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Finished => f.write_str("game over"),
            EndReason::DrawAgreed(c) => write!(f, "draw agreed ({c} offered)"),
            EndReason::Time => f.write_str("lost on time"),
            EndReason::Illegal(m) => write!(f, "illegal move '{m}'"),
            EndReason::WrongPass => f.write_str("passed with a legal move"),
            EndReason::Resigned => f.write_str("resigned"),
            EndReason::Crashed(how) => write!(f, "crashed ({how})"),
            EndReason::Protocol(what) => write!(f, "protocol error: {what}"),
            EndReason::RestartFailed(why) => write!(f, "restart failed: {why}"),
        }
    }
}

/// One recorded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Who moved.
    pub color: Color,
    /// The move ([`Move::Pass`] for a pass).
    pub mv: Move,
    /// Wall time of the `genmove`, ms (0 for opening moves and forced passes).
    pub ms: u64,
    /// Part of the opening (not chosen by the player).
    pub opening: bool,
}

/// The record of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// The position before the opening moves.
    pub start: Position,
    /// Every move from `start`, opening included.
    pub moves: Vec<MoveRecord>,
    /// The position when the game ended.
    pub last: Position,
    /// `last` scored black minus white (−64…64): when the game is over (neither side can
    /// move), the final score with the empties to the side with more discs; when it ended
    /// early (forfeit, crash, agreed draw), the plain disc difference on the board.
    pub board_score: Score,
    /// The winner; `None` for a draw (on the board or agreed).
    pub winner: Option<Color>,
    /// How the game ended; for a forfeit the loser is `winner`'s opponent.
    pub reason: EndReason,
    /// Draw offers made by black and by white.
    pub offers: [u32; 2],
    /// Clock time used by black and by white, ms.
    pub used_ms: [u64; 2],
}

impl GameOutcome {
    /// The colour that forfeited (time, illegal move, wrong pass, resignation, crash,
    /// protocol error), if any.
    pub fn forfeited_by(&self) -> Option<Color> {
        if self.reason.is_forfeit() {
            self.winner.map(Color::opposite)
        } else {
            None
        }
    }

    /// The colour whose engine should be restarted before its next game: the forfeiting side,
    /// except after a plain resignation.
    pub fn needs_restart(&self) -> Option<Color> {
        match self.reason {
            EndReason::Resigned => None,
            _ => self.forfeited_by(),
        }
    }
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

fn fault_reason(f: Fault, timed: bool) -> EndReason {
    match f {
        Fault::Timeout(_) if timed => EndReason::Time,
        Fault::Timeout(ms) => EndReason::Protocol(format!("no answer within {ms} ms")),
        Fault::Exited(how) => EndReason::Crashed(how),
        Fault::Protocol(what) => EndReason::Protocol(what),
        Fault::RestartFailed(why) => EndReason::RestartFailed(why),
        f @ Fault::Refused { .. } => EndReason::Protocol(f.to_string()),
    }
}

/// The board score of a game that ended at `game`'s position (see
/// [`GameOutcome::board_score`]).
fn board_score(game: &Game) -> Score {
    // The same rule as GTP `final_score`.
    game.score()
}

struct Table<'a> {
    players: [&'a mut dyn Player; 2],
    game: Game,
    start: Position,
    moves: Vec<MoveRecord>,
    clocks: [Duration; 2],
    used: [Duration; 2],
    offers: [u32; 2],
}

impl Table<'_> {
    fn end(self, winner: Option<Color>, reason: EndReason) -> GameOutcome {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        GameOutcome {
            start: self.start,
            moves: self.moves,
            last: *self.game.position(),
            board_score: board_score(&self.game),
            winner,
            reason,
            offers: self.offers,
            used_ms: [ms(self.used[0]), ms(self.used[1])],
        }
    }

    fn forfeit(self, loser: Color, reason: EndReason) -> GameOutcome {
        self.end(Some(loser.opposite()), reason)
    }

    /// Runs a clocked call for `c`: Ok(answer) or Err(loss reason), charging the time.
    fn timed<T>(
        &mut self,
        c: Color,
        call: impl FnOnce(&mut dyn Player, Duration) -> Result<T, Fault>,
    ) -> Result<T, EndReason> {
        let left = self.clocks[idx(c)];
        let t0 = Instant::now();
        let r = call(&mut *self.players[idx(c)], left);
        let spent = t0.elapsed();
        self.used[idx(c)] += spent.min(left);
        if spent > left {
            self.clocks[idx(c)] = Duration::ZERO;
            return Err(EndReason::Time);
        }
        self.clocks[idx(c)] = left - spent;
        r.map_err(|f| fault_reason(f, true))
    }

    /// Sends `play color mv` to `to`, charged to `to`'s clock; Err((loser, reason)) on a
    /// fault or when `to`'s clock runs out while it answers.
    fn tell(&mut self, to: Color, color: Color, mv: Move) -> Result<(), (Color, EndReason)> {
        self.timed(to, |p, left| p.play(color, mv, left))
            .map_err(|r| (to, r))
    }
}

/// Plays one game: `black` and `white` are set up with `setup`, each told its own clock
/// (`setup.time_ms`, `[black, white]`, which the referee starts each colour's clock at),
/// then play under the rules of the module header.
///
/// Errors: only for a bad `setup` (an opening move that is not legal from `setup.start`), a
/// mistake of the caller; everything a player does wrong is a lost game in the outcome.
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    setup: &GameSetup,
    cfg: &RefereeConfig,
) -> Result<GameOutcome, String> {
    let mut game = Game::from_position(setup.start);
    let mut moves = Vec::new();
    for &(c, m) in &setup.opening {
        game.play(c, m)
            .map_err(|e| format!("opening move {c} {m}: {e}"))?;
        moves.push(MoveRecord {
            color: c,
            mv: m,
            ms: 0,
            opening: true,
        });
    }
    let mut t = Table {
        players: [black, white],
        game,
        start: setup.start,
        moves,
        clocks: setup.time_ms.map(Duration::from_millis),
        used: [Duration::ZERO; 2],
        offers: [0; 2],
    };
    let timeout = cfg.command_timeout;
    for c in [Color::Black, Color::White] {
        if let Err(f) = t.players[idx(c)].new_game(setup, c, timeout) {
            let reason = match fault_reason(f, false) {
                EndReason::Protocol(w) => EndReason::Protocol(format!("set-up: {w}")),
                r => r,
            };
            return Ok(t.forfeit(c, reason));
        }
    }
    let max_offers = cfg.max_offers.min(MAX_DRAW_OFFERS);
    let offers_on = cfg.draw_offers
        && t.players[0].capabilities().draw_offer
        && t.players[1].capabilities().draw_offer;
    loop {
        if t.game.is_over() {
            let s = t.game.final_score();
            let winner = match s.cmp(&0) {
                std::cmp::Ordering::Greater => Some(Color::Black),
                std::cmp::Ordering::Less => Some(Color::White),
                std::cmp::Ordering::Equal => None,
            };
            return Ok(t.end(winner, EndReason::Finished));
        }
        let c = t.game.side_to_move();
        let o = c.opposite();
        if t.game.must_pass() {
            t.game
                .play(c, Move::Pass)
                .map_err(|e| format!("forced pass refused: {e}"))?;
            t.moves.push(MoveRecord {
                color: c,
                mv: Move::Pass,
                ms: 0,
                opening: false,
            });
            for to in [c, o] {
                if let Err((loser, r)) = t.tell(to, c, Move::Pass) {
                    return Ok(t.forfeit(loser, r));
                }
            }
            continue;
        }
        if offers_on
            && t.offers[idx(c)] < max_offers
            && t.game.position().board.empties() <= cfg.offer_max_empties
        {
            match t.timed(c, |p, left| p.draw_offer(o, left)) {
                Err(r) => return Ok(t.forfeit(c, r)),
                Ok(DrawAnswer::Decline) => {}
                Ok(DrawAnswer::Accept) => {
                    t.offers[idx(c)] += 1;
                    match t.timed(o, |p, left| p.draw_offer(c, left)) {
                        Err(r) => return Ok(t.forfeit(o, r)),
                        Ok(DrawAnswer::Accept) => {
                            return Ok(t.end(None, EndReason::DrawAgreed(c)));
                        }
                        Ok(DrawAnswer::Decline) => {}
                    }
                }
            }
        }
        let left_ms = u64::try_from(t.clocks[idx(c)].as_millis()).unwrap_or(u64::MAX);
        if let Err(r) = t.timed(c, |p, left| p.time_left(c, left_ms, left)) {
            return Ok(t.forfeit(c, r));
        }
        let t0 = Instant::now();
        let answer = match t.timed(c, |p, left| p.genmove(c, left)) {
            Ok(a) => a,
            Err(r) => return Ok(t.forfeit(c, r)),
        };
        let ms = u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX);
        let text = answer.trim();
        if text.eq_ignore_ascii_case("resign") {
            return Ok(t.forfeit(c, EndReason::Resigned));
        }
        let mv = match text.parse::<Move>() {
            Ok(Move::Pass) => return Ok(t.forfeit(c, EndReason::WrongPass)),
            Ok(m) if t.game.play(c, m).is_ok() => m,
            _ => return Ok(t.forfeit(c, EndReason::Illegal(clip(text)))),
        };
        t.moves.push(MoveRecord {
            color: c,
            mv,
            ms,
            opening: false,
        });
        if let Err((loser, r)) = t.tell(o, c, mv) {
            return Ok(t.forfeit(loser, r));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchplay::fake::{Fake, Policy};

    fn setup(time_ms: u64) -> GameSetup {
        GameSetup {
            start: Position::start(),
            handicap: None,
            opening: Vec::new(),
            time_ms: [time_ms; 2],
        }
    }

    fn cfg() -> RefereeConfig {
        RefereeConfig::default()
    }

    fn play(b: &mut Fake, w: &mut Fake, s: &GameSetup, c: &RefereeConfig) -> GameOutcome {
        play_game(b, w, s, c).unwrap()
    }

    fn count(log: &[String], prefix: &str) -> usize {
        log.iter().filter(|l| l.starts_with(prefix)).count()
    }

    #[test]
    fn a_full_game_is_scored_by_the_board() {
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::LastLegal, false);
        let o = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(o.reason, EndReason::Finished);
        assert!(o.last.board.is_game_over());
        // Both players followed the same game as the referee.
        assert_eq!(b.game().position(), &o.last);
        assert_eq!(w.game().position(), &o.last);
        let score = Game::from_position(o.last).final_score();
        assert_eq!(o.board_score, score);
        let expect = match score.cmp(&0) {
            std::cmp::Ordering::Greater => Some(Color::Black),
            std::cmp::Ordering::Less => Some(Color::White),
            std::cmp::Ordering::Equal => None,
        };
        assert_eq!(o.winner, expect);
        // Replaying the record reaches the same position.
        let mut g = Game::from_position(o.start);
        for m in &o.moves {
            g.play(m.color, m.mv).unwrap();
        }
        assert_eq!(g.position(), &o.last);
        // Every genmove was preceded by time_left for the same colour.
        let log = &b.log;
        for (i, l) in log.iter().enumerate() {
            if l.starts_with("genmove") {
                assert!(log[i - 1].starts_with("time_left b"), "{log:?}");
            }
        }
    }

    #[test]
    fn loss_on_time_while_ahead() {
        // Black sleeps 400 ms as soon as it leads; its whole clock is 100 ms.
        let mut b = Fake::new(
            "b",
            Policy::SleepWhenAhead(Duration::from_millis(400)),
            false,
        );
        let mut w = Fake::new("w", Policy::FirstLegal, false);
        let o = play(&mut b, &mut w, &setup(100), &cfg());
        assert_eq!(o.reason, EndReason::Time);
        assert_eq!(o.winner, Some(Color::White));
        assert_eq!(o.forfeited_by(), Some(Color::Black));
        assert_eq!(o.needs_restart(), Some(Color::Black));
        // Black led on the board when its clock ran out.
        let (bl, wh) = o.last.black_white();
        assert!(bl.count_ones() > wh.count_ones(), "{}", o.last);
        // The game was not over: the score is the disc difference, no empties counted.
        assert!(!o.last.board.is_game_over());
        assert_eq!(
            o.board_score,
            bl.count_ones() as Score - wh.count_ones() as Score
        );
        assert_eq!(o.used_ms[0], 100);
    }

    #[test]
    fn each_colour_has_its_own_clock() {
        // Both sleep 20 ms before each move (some 30 moves each in a full game). The colour
        // with a 250 ms clock runs out; the one with 60 s does not.
        for (time_ms, loser) in [([60_000, 250], Color::White), ([250, 60_000], Color::Black)] {
            let sleeper = Policy::SleepEachMove(Duration::from_millis(20));
            let mut b = Fake::new("b", sleeper.clone(), false);
            let mut w = Fake::new("w", sleeper, false);
            let s = GameSetup {
                time_ms,
                ..setup(0)
            };
            let o = play(&mut b, &mut w, &s, &cfg());
            // Each player was told its own colour and its own clock (`time_settings`).
            assert_eq!(
                (b.color, b.told_clock_ms),
                (Some(Color::Black), Some(time_ms[0]))
            );
            assert_eq!(
                (w.color, w.told_clock_ms),
                (Some(Color::White), Some(time_ms[1]))
            );
            assert_eq!(o.reason, EndReason::Time, "{time_ms:?}");
            assert_eq!(o.forfeited_by(), Some(loser), "{time_ms:?}");
            let (l, k) = (idx(loser), idx(loser.opposite()));
            // The loser was charged exactly its short clock; the winner at least the 20 ms of
            // each of its moves (however many a loaded machine let the loser make), and well
            // under its own clock.
            assert_eq!(o.used_ms[l], 250);
            let winner = if loser == Color::White { &b } else { &w };
            let moves = winner
                .log
                .iter()
                .filter(|l| l.starts_with("genmove"))
                .count() as u64;
            assert!(moves >= 1);
            assert!(
                o.used_ms[k] >= 20 * moves && o.used_ms[k] < 30_000,
                "{:?} for {moves} moves",
                o.used_ms
            );
            // `time_left` reported each colour's own clock: the first report of the side
            // with 60 s is above the other side's whole clock.
            let first_left = |f: &Fake, c: &str| -> u64 {
                f.log
                    .iter()
                    .find_map(|l| l.strip_prefix(&format!("time_left {c} ")))
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let (lb, lw) = (first_left(&b, "b"), first_left(&w, "w"));
            let (long, short) = if loser == Color::White {
                (lb, lw)
            } else {
                (lw, lb)
            };
            assert!(long > 50_000 && long <= 60_000, "{long}");
            assert!(short <= 250, "{short}");
        }
    }

    #[test]
    fn answering_play_is_charged_and_can_lose_on_time() {
        // White moves at once but takes 30 ms over each `play` (and `time_left`) it answers;
        // with a 200 ms clock it runs out while answering one of black's moves.
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::SlowCommands(Duration::from_millis(30)), false);
        let o = play(&mut b, &mut w, &setup(200), &cfg());
        assert_eq!(o.reason, EndReason::Time);
        assert_eq!(o.winner, Some(Color::Black));
        assert_eq!(o.used_ms[1], 200);
        // The last command white answered was the one that ran its clock out, never genmove.
        let last = w.log.last().unwrap();
        assert!(
            last.starts_with("play b") || last.starts_with("time_left w"),
            "{:?}",
            w.log
        );
        assert!(!o.last.board.is_game_over());
    }

    #[test]
    fn illegal_moves_and_wrong_passes_lose() {
        for (answer, reason) in [
            ("a1", EndReason::Illegal("a1".into())),
            ("d4", EndReason::Illegal("d4".into())),
            ("z9", EndReason::Illegal("z9".into())),
            ("", EndReason::Illegal(String::new())),
            ("pass", EndReason::WrongPass),
            ("resign", EndReason::Resigned),
        ] {
            let mut b = Fake::new("b", Policy::FirstLegal, false);
            let mut w = Fake::new("w", Policy::Answer(answer), false);
            let o = play(&mut b, &mut w, &setup(60_000), &cfg());
            assert_eq!(o.reason, reason, "{answer}");
            assert_eq!(o.winner, Some(Color::Black));
            // White's first answer ended the game: black's one move stands.
            assert_eq!(o.moves.len(), 1);
        }
    }

    #[test]
    fn crash_loses_and_asks_for_a_restart() {
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::CrashAt(3), false);
        let o = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(o.reason, EndReason::Crashed("exit status 3".into()));
        assert_eq!(o.winner, Some(Color::Black));
        assert_eq!(o.needs_restart(), Some(Color::White));
        assert_eq!(count(&w.log, "genmove"), 3);
        // Still crashed: the next game is lost at set-up until a restart.
        let o2 = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(o2.reason, EndReason::Crashed("not running".into()));
        w.restart().unwrap();
        let o3 = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(o3.reason, EndReason::Crashed("exit status 3".into()));
    }

    #[test]
    fn refusing_a_legal_move_is_a_protocol_error() {
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::RefusePlay, false);
        let o = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(
            o.reason,
            EndReason::Protocol("refused 'play b d3': not today".into())
        );
        assert_eq!(o.winner, Some(Color::Black));
    }

    #[test]
    fn at_most_three_offers_per_player() {
        // Black would take a draw at every turn, so it offers whenever asked; white never
        // accepts. Black is asked (and offers) exactly 3 times.
        let c = RefereeConfig {
            draw_offers: true,
            ..cfg()
        };
        let mut b = Fake::new("b", Policy::FirstLegal, true);
        let mut w = Fake::new("w", Policy::LastLegal, false);
        let o = play(&mut b, &mut w, &setup(60_000), &c);
        assert_eq!(o.reason, EndReason::Finished);
        assert_eq!(o.offers, [3, 0]);
        assert_eq!(count(&b.log, "draw_offer w"), 3);
        // White answered black's 3 offers, and was asked itself at each of its turns.
        assert_eq!(count(&w.log, "draw_offer b"), 3 + count(&w.log, "genmove"));
        // A larger configured cap is still capped at the rules' 3.
        let c9 = RefereeConfig {
            max_offers: 9,
            ..c.clone()
        };
        let mut b = Fake::new("b", Policy::FirstLegal, true);
        let mut w = Fake::new("w", Policy::LastLegal, false);
        assert_eq!(play(&mut b, &mut w, &setup(60_000), &c9).offers, [3, 0]);
        // Without --draw-offers nobody is asked.
        let mut b = Fake::new("b", Policy::FirstLegal, true);
        let mut w = Fake::new("w", Policy::LastLegal, true);
        let o = play(&mut b, &mut w, &setup(60_000), &cfg());
        assert_eq!(o.offers, [0, 0]);
        assert_eq!(count(&b.log, "draw_offer"), 0);
    }

    #[test]
    fn an_accepted_offer_ends_in_a_draw() {
        let c = RefereeConfig {
            draw_offers: true,
            ..cfg()
        };
        let mut b = Fake::new("b", Policy::FirstLegal, true);
        let mut w = Fake::new("w", Policy::FirstLegal, true);
        let o = play(&mut b, &mut w, &setup(60_000), &c);
        assert_eq!(o.reason, EndReason::DrawAgreed(Color::Black));
        assert_eq!(o.winner, None);
        assert_eq!(o.offers, [1, 0]);
        assert!(o.moves.is_empty());
        assert_eq!(b.log, vec!["new_game", "draw_offer w"]);
        assert_eq!(w.log, vec!["new_game", "draw_offer b"]);
        // Restricted to 20 empties: the first question comes at 20 empties.
        let c20 = RefereeConfig {
            offer_max_empties: 20,
            ..c
        };
        let mut b = Fake::new("b", Policy::FirstLegal, true);
        let mut w = Fake::new("w", Policy::LastLegal, true);
        let o = play(&mut b, &mut w, &setup(60_000), &c20);
        assert!(matches!(o.reason, EndReason::DrawAgreed(_)));
        assert_eq!(o.last.board.empties(), 20);
    }

    #[test]
    fn a_blocked_side_passes_without_genmove() {
        // White to move and blocked; black has moves and the game goes on.
        let start: Position = "----XXXXO-OOOOXX-O-OOXXXOOOOXOXXOOXXXXOXOOXXOXXXOXOXXXXXXXXXXXOX O"
            .parse()
            .unwrap();
        assert!(!start.board.has_moves() && start.board.opponent_moves() != 0);
        let s = GameSetup {
            start,
            ..setup(60_000)
        };
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::FirstLegal, false);
        let o = play(&mut b, &mut w, &s, &cfg());
        assert_eq!(
            o.moves[0],
            MoveRecord {
                color: Color::White,
                mv: Move::Pass,
                ms: 0,
                opening: false
            }
        );
        assert_eq!(o.reason, EndReason::Finished);
        // Both were told `play w pass`; white was not asked to move first.
        assert_eq!(b.log[1], "play w pass");
        assert_eq!(w.log[1], "play w pass");
        assert!(b.log[2].starts_with("time_left b"));
    }

    #[test]
    fn opening_moves_are_recorded() {
        let (moves, _) = crate::notation::parse_transcript("f5d6c3").unwrap();
        let mut side = Color::Black;
        let opening: Vec<(Color, Move)> = moves
            .iter()
            .map(|&m| {
                let r = (side, m);
                side = side.opposite();
                r
            })
            .collect();
        let s = GameSetup {
            opening,
            ..setup(60_000)
        };
        let mut b = Fake::new("b", Policy::FirstLegal, false);
        let mut w = Fake::new("w", Policy::FirstLegal, false);
        let o = play(&mut b, &mut w, &s, &cfg());
        assert!(o.moves[..3].iter().all(|m| m.opening));
        assert!(!o.moves[3].opening);
        assert_eq!(o.moves[3].color, Color::White);
        // A bad opening is the caller's error.
        let bad = GameSetup {
            opening: vec![(Color::Black, "a1".parse().unwrap())],
            ..setup(60_000)
        };
        assert!(play_game(&mut b, &mut w, &bad, &cfg()).is_err());
    }
}
