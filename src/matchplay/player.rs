//! The `Player` trait the referee talks to, and what a player can answer or do wrong.
//!
//! A player is one side of a game: a GTP engine process ([`super::process::GtpProcess`]) or,
//! in tests, an in-process fake. The methods mirror the GTP commands the runner sends; every
//! call carries a timeout, and the referee measures the wall time of every answer during a
//! game itself and charges it to the player's clock (the player's own report of its time is
//! never trusted).

use std::fmt;
use std::time::Duration;

use crate::othello::Position;
use crate::othello::square::{Color, Move};

/// Why a player failed a command. The referee turns a fault into a lost game (see
/// [`super::referee::EndReason`]) and the runner restarts the player before the next game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No answer within the timeout (ms waited). During a game (any command after set-up)
    /// this is a loss on time; during set-up a protocol error.
    Timeout(u64),
    /// The process ended or closed its output; the text says how (`exit status 3`).
    Exited(String),
    /// A malformed answer: not `=`/`?`, a wrong id, text where none belongs.
    Protocol(String),
    /// The engine could not be restarted after its last forfeit (why, e.g. `engine exited
    /// (exit status 1)`); it forfeits each game until a restart succeeds.
    RestartFailed(String),
    /// The player answered `? message` to a command it must accept.
    Refused {
        /// The command line sent (without id).
        command: String,
        /// The error text after `?`.
        message: String,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Timeout(ms) => write!(f, "no answer within {ms} ms"),
            Fault::Exited(how) => write!(f, "engine exited ({how})"),
            Fault::Protocol(what) => write!(f, "protocol error: {what}"),
            Fault::RestartFailed(why) => write!(f, "restart failed: {why}"),
            Fault::Refused { command, message } => {
                write!(f, "refused '{command}': {message}")
            }
        }
    }
}

impl std::error::Error for Fault {}

/// An answer to `flank-draw_offer C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawAnswer {
    /// `= accept`.
    Accept,
    /// `= decline`, or the player does not know the command (it never takes a draw).
    Decline,
}

/// What a player supports beyond plain GTP, learned from `list_commands` at start-up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// The engine's `name` answer (or the fake's name), used in game records.
    pub name: String,
    /// `flank-draw_offer` is listed.
    pub draw_offer: bool,
    /// `flank-handicap` is listed.
    pub handicap: bool,
    /// `time_settings` is listed (optional in GTP v2); without it none is sent.
    pub time_settings: bool,
    /// `time_left` is listed (optional in GTP v2); without it none is sent. The runner's
    /// own clock applies either way.
    pub time_left: bool,
}

/// How a game starts, as sent to both players before the first `genmove`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// The position before the opening moves: the start position, or a handicap position.
    pub start: Position,
    /// `Some((colour, corners))` for a handicap game: sent as `flank-handicap C N` after
    /// `clear_board`.
    pub handicap: Option<(Color, u32)>,
    /// The opening moves from `start`, each with the colour that plays it; passes explicit.
    pub opening: Vec<(Color, Move)>,
    /// The whole-game clock of black and of white, ms (`[black, white]`; equal unless the
    /// match gives time odds). Each player is sent its own as `time_settings M 0 0` (M in
    /// whole seconds rounded up), see [`GameSetup::clock_ms`].
    pub time_ms: [u64; 2],
}

impl GameSetup {
    /// The whole-game clock of `color`, ms.
    pub fn clock_ms(&self, color: Color) -> u64 {
        match color {
            Color::Black => self.time_ms[0],
            Color::White => self.time_ms[1],
        }
    }
}

/// One side of a game, driven by the referee. Errors are [`Fault`]s; after a fault the
/// runner calls [`Player::restart`] before the next game.
pub trait Player: Send {
    /// The capabilities learned at start-up (or the last restart).
    fn capabilities(&self) -> &Capabilities;

    /// Ends the player and starts it anew (a new process for a GTP engine).
    fn restart(&mut self) -> Result<(), Fault>;

    /// Sets up a new game in which the player plays `color`: `clear_board`, the handicap,
    /// `time_settings` with the player's own clock, `setup.clock_ms(color)` (if the player
    /// supports it; GTP's `time_settings` has one main time, so with time odds each engine
    /// is told its own), the opening moves. `timeout` bounds each command.
    fn new_game(&mut self, setup: &GameSetup, color: Color, timeout: Duration)
    -> Result<(), Fault>;

    /// `time_left C T 0`: the time left on `color`'s clock, ms (sent in whole seconds); a
    /// player without the command is not sent anything and answers `Ok` at once.
    fn time_left(&mut self, color: Color, ms: u64, timeout: Duration) -> Result<(), Fault>;

    /// `play C M`: the other side's move (a pass as `play C pass`).
    fn play(&mut self, color: Color, mv: Move, timeout: Duration) -> Result<(), Fault>;

    /// `genmove C`: the raw answer text (`f5`, `pass`, `resign` or anything else, which the
    /// referee judges). `timeout` is the time left on the player's clock.
    fn genmove(&mut self, color: Color, timeout: Duration) -> Result<String, Fault>;

    /// `flank-draw_offer C`: would the player take a draw offered by `offering`? A player
    /// without the command answers [`DrawAnswer::Decline`] without being asked.
    fn draw_offer(&mut self, offering: Color, timeout: Duration) -> Result<DrawAnswer, Fault>;

    /// Checks before a match that the player accepts `flank-handicap C N` (and leaves it at
    /// a cleared board). Errors: the player's refusal or fault, as text.
    fn check_handicap(&mut self, color: Color, n: u32, timeout: Duration) -> Result<(), String>;

    /// Says `quit` and ends the player (best effort, never fails).
    fn quit(&mut self);
}
