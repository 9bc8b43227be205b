//! The NBoard protocol, version 2 (the NBoard GUI's engine protocol, which Edax and NTest
//! also speak): an [`NBoard`] session over a [`Game`] and an [`Engine`], and [`run`], its loop
//! on a reader and a writer.
//!
//! One command a line, GUI to engine; flank ignores any line it does not understand, and
//! answers only what the protocol asks (see `docs/protocols.md` in the shared data and
//! `docs/nboard.md`):
//!
//! | GUI sends | flank does |
//! |---|---|
//! | `nboard 2` | answers `set myname flank` |
//! | `set depth D` | without a clock, plays at numeric level `D` (1–60, a larger `D` is read as 60; see `docs/levels.md`): midgame depth `D`, exact at ≤ min(2D, 30) empties; under a clock, full strength (level `hard`) with `D` as a depth cap; before any `set depth`, level `hard` |
//! | `set game GGF` | the game ([`crate::notation::ggf`]): start board, moves, passes, clock; a bad GGF leaves the game as it was and answers `status bad GGF game: …` |
//! | `set contempt C` | keeps `C` (centi-discs, black's view); flank's search values a draw at 0 whatever it is |
//! | `move M[/EVAL[/SECONDS]]` | plays `M` (a square or `PA`) on the game and charges `SECONDS` to the mover's clock; an illegal move (or a third pass in a row) answers `status …` with the reason and changes nothing |
//! | `hint N` | the `N` best moves (fewer if fewer are legal), searched at the level's depth without a time limit: after every iteration one line a move, best first, `search PV EVAL 0 DEPTH` |
//! | `go` | searches (as `set depth` says) within the game clock and answers `=== MOVE/EVAL/SECONDS` (the move is not played: the GUI sends `move` next) |
//! | `ping N` | answers `pong N` (a search running when the line arrives stops first and answers) |
//! | `learn` | adds the game's first plies to the book at the book's depth and answers `learned`; a line arriving while it searches stops it (`status learning stopped by new input; the book is unchanged`), then is handled |
//! | `analyze` | from the last position back to the first: `analysis K EVAL` for each, `K` the moves played before it (passes count) |
//! | `quit` | ends the session |
//!
//! Formats: `PV` is the moves in upper case without separators (`F5D6C3`, `PA` for a pass);
//! `EVAL` is discs from the side to move's view with two decimals (`2.00`, `-1.50`); `DEPTH`
//! is the depth in plies, or `100%` for an exact score and `100%W` for a proven win, draw or
//! loss (the score then −1, 0 or +1). `go`, `hint` and `analyze` end with `nodestats NODES
//! SECONDS`; `go` also sends its thinking lines (`search …`, as `hint`) before `===`.
//!
//! Clocks: a GGF with `TI[…]` gives each side that whole-game time, less the seconds written
//! with its moves in the GGF and in later `move` commands; `go` then searches within the time
//! left, as GTP does with `time_left`. Without `TI`, `go` has no time limit (the level's depth
//! bounds it) unless `--move-time` is given. At game over `go` and `hint` answer `status game
//! over`; a side that must pass answers `=== PA` to `go`.
//!
//! Stop on demand: the input is read on a thread of its own (as in GTP), and a line that
//! arrives while `go`, `hint` or `analyze` searches stops the search: `go` answers at once with
//! its best move so far, `hint` and `analyze` keep what they have sent; then the line is
//! handled, so `ping N` is answered within milliseconds of any search.

mod think;

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

use crate::book::Book;
use crate::book::build::{BuildOptions, build_until};
use crate::engine::Engine;
use crate::engine::level::{DEFAULT_SEED, Level, MAX_LEVEL};
use crate::engine::ponder::ponder_position;
use crate::engine::timeman::{TimeControl, TimeManager};
use crate::notation::ggf::{GgfGame, parse_ggf, parse_move_field};
use crate::notation::{ParseError, clip};
use crate::othello::game::{Game, ends_with_two_passes};
use crate::othello::square::{Color, Move};
use crate::protocol::gtp::MAX_LINE_BYTES;
use crate::protocol::input::{Framing, Inbox, Input, READ_AHEAD_LINES, read_input};

/// The plies of a game `learn` adds to the book.
pub const LEARN_PLIES: u32 = 30;

/// The name flank gives itself (`set myname flank`).
pub const NAME: &str = "flank";

/// Settings of an NBoard session (from the `flank nboard` command line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NBoardOptions {
    /// Time per `go` in ms when the game has no clock (`TI`); `None` = no time limit then (the
    /// level's depth bounds the search). Level `hard` (before any `set depth`) uses
    /// [`crate::engine::timeman::DEFAULT_MOVE_TIME_MS`] when neither is given.
    pub move_time_ms: Option<u64>,
    /// Print one line of search info per iteration to stderr.
    pub verbose: bool,
    /// The opening book `go` plays from and `hint` shows (`None` = no book).
    pub book: Option<Arc<Book>>,
    /// Book randomness in discs: 0 plays the best book move, R any book move within R discs
    /// of the position's value.
    pub book_randomness: u32,
    /// The file `learn` writes the book back to (`None`: the game is learned for this
    /// session only).
    pub book_file: Option<PathBuf>,
    /// Seed of the book's random choice (`--seed`; 0, the default of a session built in code,
    /// is read as [`DEFAULT_SEED`]): the same seed and the same commands give the same moves.
    pub seed: u64,
    /// Ponder: once the GUI plays flank's `go` answer with `move`, think on the position
    /// after the predicted reply until the next line arrives ([`crate::engine::ponder`]).
    pub ponder: bool,
}

/// An NBoard session: the game, its clock, the level and the engine.
pub struct NBoard {
    game: Game,
    /// Each side's whole-game clock in ms (`TI`), if the game has one.
    clock_ms: Option<u64>,
    /// Thinking time recorded for [black, white] in ms (the GGF's move times and `move`'s).
    used_ms: [u64; 2],
    level: Level,
    /// `set contempt` in centi-discs, black's view (kept, not used by the search).
    contempt: i32,
    engine: Engine,
    options: NBoardOptions,
    /// The book in use (`learn` extends it).
    book: Option<Arc<Book>>,
    /// The generator behind the book's randomness (seeded from [`NBoardOptions::seed`]).
    rng: ChaCha12Rng,
    quit: bool,
    /// The last `go` answer: the move, its principal variation and the board it was chosen in.
    last_go: Option<(Move, Vec<Move>, crate::othello::board::Board)>,
    /// The position to ponder on once the current line is handled ([`run`] takes it).
    ponder_on: Option<crate::othello::board::Board>,
    /// The input read ahead by [`run`]'s reader thread; `None` when lines are handed in by
    /// [`NBoard::handle_line`] alone (then nothing interrupts a search).
    inbox: Option<Inbox>,
    /// When the line being handled arrived (set by [`run`]).
    arrived: Option<Instant>,
}

fn color_index(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl NBoard {
    /// A session at the start position, level `hard`, no clock.
    pub fn new(engine: Engine, options: NBoardOptions) -> NBoard {
        NBoard {
            game: Game::new(),
            clock_ms: None,
            used_ms: [0; 2],
            level: Level::Hard,
            contempt: 0,
            engine,
            book: options.book.clone(),
            rng: ChaCha12Rng::seed_from_u64(if options.seed == 0 {
                DEFAULT_SEED
            } else {
                options.seed
            }),
            options,
            quit: false,
            last_go: None,
            ponder_on: None,
            inbox: None,
            arrived: None,
        }
    }

    /// The game as the GUI set it.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The level (`hard` until `set depth D` makes it numeric level `D`).
    pub fn level(&self) -> Level {
        self.level
    }

    /// `set contempt` in centi-discs from black's view (0 until set).
    pub fn contempt(&self) -> i32 {
        self.contempt
    }

    /// The ms left on `color`'s clock, if the game has one (never below 0).
    pub fn clock_left_ms(&self, color: Color) -> Option<u64> {
        self.clock_ms
            .map(|c| c.saturating_sub(self.used_ms[color_index(color)]))
    }

    /// True once `quit` has been read.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Handles one input line, writing every answer line to `out` (flushed). Unknown and
    /// empty lines write nothing. Only errors of `out` are returned.
    pub fn handle_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<()> {
        let start = Instant::now();
        let cleaned: String = line
            .chars()
            .filter(|&c| c != '\u{feff}' && (c == '\t' || !c.is_control()))
            .collect();
        let text = cleaned.trim();
        let (name, rest) = match text.split_once(char::is_whitespace) {
            Some((n, r)) => (n, r.trim()),
            None => (text, ""),
        };
        match name {
            "nboard" => send(out, &format!("set myname {NAME}")),
            "set" => self.set(rest, out),
            "move" => self.play_move(rest, out),
            "hint" => match parse_count(rest) {
                Some(n) if n >= 1 => self.hint(n.min(64) as usize, out),
                _ => send(
                    out,
                    &format!(
                        "status bad hint count '{}' (expected 1 or more)",
                        clip(rest)
                    ),
                ),
            },
            "go" => self.go(start, out),
            "ping" if rest.is_empty() => send(out, "pong"),
            "ping" => send(out, &format!("pong {}", clip(rest))),
            "learn" => self.learn(out),
            "analyze" => self.analyze(out),
            "quit" => {
                self.quit = true;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `set depth D`, `set game GGF`, `set contempt C`; other `set` lines are ignored.
    fn set(&mut self, args: &str, out: &mut dyn Write) -> io::Result<()> {
        let (key, value) = match args.split_once(char::is_whitespace) {
            Some((k, v)) => (k, v.trim()),
            None => (args, ""),
        };
        match key {
            "depth" => match parse_count(value) {
                Some(d) if d >= 1 => {
                    self.level = Level::Numeric(d.min(u64::from(MAX_LEVEL)) as u32);
                    Ok(())
                }
                _ => send(
                    out,
                    &format!(
                        "status bad depth '{}' (expected 1-{MAX_LEVEL})",
                        clip(value)
                    ),
                ),
            },
            "game" => match parse_ggf(value) {
                Ok(g) => {
                    self.set_game(&g);
                    Ok(())
                }
                Err(e) => send(out, &format!("status {e}")),
            },
            "contempt" => match value.parse::<i32>() {
                Ok(c) => {
                    self.contempt = c;
                    Ok(())
                }
                Err(_) => send(
                    out,
                    &format!(
                        "status bad contempt '{}' (expected centi-discs)",
                        clip(value)
                    ),
                ),
            },
            _ => Ok(()),
        }
    }

    /// Replaces the game by `g` (already checked move by move): its start, its moves, its
    /// clock and the time its moves carry.
    fn set_game(&mut self, g: &GgfGame) {
        let mut game = Game::from_position(g.start);
        let mut used = [0u64; 2];
        for m in &g.moves {
            // Every move of a parsed record is legal in turn.
            if game.play(m.color, m.mv).is_err() {
                return;
            }
            used[color_index(m.color)] += seconds_ms(m.seconds);
        }
        self.game = game;
        self.clock_ms = g.clock_ms;
        self.used_ms = used;
    }

    /// `move M[/EVAL[/SECONDS]]`: plays `M` for the side to move (a square for the other
    /// colour when the side to move is blocked records its pass first) and charges the time.
    fn play_move(&mut self, args: &str, out: &mut dyn Write) -> io::Result<()> {
        let (mv, _eval, seconds) = match parse_move_field(args) {
            Ok(m) => m,
            // The field's own fault (`bad move 'Z9'`, `bad move time 'x'`): no GGF game here.
            Err(ParseError::BadGgf(what)) => return send(out, &format!("status {what}")),
            Err(e) => return send(out, &format!("status {e}")),
        };
        if mv == Move::Pass && ends_with_two_passes(self.game.history().iter().map(|r| r.mv)) {
            return send(
                out,
                &format!(
                    "status a third pass in a row (two passes end the game) '{}'",
                    clip(args)
                ),
            );
        }
        let side = self.game.side_to_move();
        let color = match mv {
            // A square while the side to move is blocked is the other colour's move.
            Move::Play(_) if self.game.must_pass() => side.opposite(),
            _ => side,
        };
        let before = self.game.position().board;
        match self.game.play(color, mv) {
            Ok(()) => {
                self.used_ms[color_index(color)] += seconds_ms(seconds);
                // The GUI plays flank's own answer: ponder on the predicted reply.
                if let Some((ours, pv, board)) = self.last_go.take()
                    && self.options.ponder
                    && ours == mv
                    && board == before
                {
                    self.ponder_on = ponder_position(&board, ours, &pv);
                }
                Ok(())
            }
            Err(e) => send(out, &format!("status {e} '{}'", clip(args))),
        }
    }

    /// The book in use, if any (`learn` extends it).
    pub fn book(&self) -> Option<&Book> {
        self.book.as_deref()
    }

    /// `learn`: adds the game's positions (up to [`LEARN_PLIES`] plies from the standard start)
    /// to the book, searching their moves out of the book at the book's depth, and writes the
    /// book to its file when the session has one; answers `learned` (also without a book, for
    /// a game from another start, or when a line arriving during the searches stopped them:
    /// then nothing is learned, and a `status` line says why).
    fn learn(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let Some(book) = self.book.clone() else {
            send(out, "status no book to learn into")?;
            return send(out, "learned");
        };
        let history = self.game.history();
        let start = history.first().map_or(*self.game.position(), |r| r.before);
        if start != crate::othello::Position::start() {
            send(out, "status only games from the standard start are learned")?;
            return send(out, "learned");
        }
        let moves: Vec<Move> = history.iter().map(|r| r.mv).collect();
        let positions = crate::book::build::opening_positions(&moves, LEARN_PLIES);
        let opts = BuildOptions {
            plies: LEARN_PLIES,
            min_games: 1,
            depth: book.depth.max(1),
            hash_mb: 16,
        };
        // Learning searches too: a line arriving meanwhile stops it (and is then handled).
        let stop = AtomicBool::new(false);
        let result = self.watched_on(&stop, |_| {
            build_until((*book).clone(), &[positions], &opts, false, Some(&stop))
        });
        let Some(learned) = result else {
            send(
                out,
                "status learning stopped by new input; the book is unchanged",
            )?;
            return send(out, "learned");
        };
        let learned = Arc::new(learned);
        if let Some(path) = &self.options.book_file
            && let Err(e) = crate::data::write_atomically(path, learned.to_text().as_bytes())
        {
            send(out, &format!("status cannot write the book: {e}"))?;
        }
        self.book = Some(learned);
        send(out, "learned")
    }

    /// The time manager for a search by `color`: the game's clock when it has one, else the
    /// per-move time given (or, for level `hard`, the default per-move time); `None` = no time
    /// limit.
    fn time_manager(&self) -> Option<TimeManager> {
        if let Some(main_ms) = self.clock_ms {
            let mut tm = TimeManager::new(0);
            tm.set_control(TimeControl::Absolute { main_ms });
            for c in [Color::Black, Color::White] {
                tm.time_left(c, self.clock_left_ms(c).unwrap_or(0), 0);
            }
            return Some(tm);
        }
        let per_move = match (self.options.move_time_ms, self.level) {
            (Some(ms), _) => ms,
            (None, Level::Hard) => crate::engine::timeman::DEFAULT_MOVE_TIME_MS,
            (None, _) => return None,
        };
        Some(TimeManager::new(per_move))
    }
}

/// A whole number written in digits (`12`, `007`), any size: one beyond `u64` reads as
/// `u64::MAX` (`set depth` and `hint` clamp it); `None` for anything else.
fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse().unwrap_or(u64::MAX))
}

/// `seconds` (a GGF move time) in whole ms; none is 0.
fn seconds_ms(seconds: Option<f64>) -> u64 {
    seconds.map_or(0, |s| (s * 1000.0).round().min(1e15) as u64)
}

/// Writes `line` and a newline to `out` and flushes.
fn send(out: &mut dyn Write, line: &str) -> io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// True if `line` is `quit`: the last line a session reads.
fn is_quit(line: &str) -> bool {
    line.trim() == "quit"
}

/// Runs an NBoard session: reads commands from `input` line by line on a thread of its own,
/// writes the answers to `output` (flushing every line), until `quit` or end of input. A
/// line longer than [`MAX_LINE_BYTES`] is read to its end in bounded chunks and answered
/// `status line too long`. A line that arrives while a search runs stops it (see the module
/// header). Only I/O errors are returned.
pub fn run<R: BufRead + Send, W: Write>(
    input: R,
    output: &mut W,
    engine: Engine,
    options: NBoardOptions,
) -> io::Result<()> {
    let (tx, rx) = sync_channel(READ_AHEAD_LINES);
    let framing = Framing {
        comment: None,
        max_line: MAX_LINE_BYTES,
        is_last: is_quit,
    };
    std::thread::scope(|scope| {
        scope.spawn(move || read_input(input, tx, framing));
        let mut session = NBoard::new(engine, options);
        session.inbox = Some(Inbox::new(rx));
        let result = serve(&mut session, output);
        // Dropping the inbox lets a reader still sending (after an output error) end.
        session.inbox = None;
        result
    })
}

/// The session loop of [`run`] on the reader's items.
fn serve<W: Write>(session: &mut NBoard, output: &mut W) -> io::Result<()> {
    loop {
        let Some(inbox) = session.inbox.as_mut() else {
            return Ok(());
        };
        let a = inbox.next();
        match a.input {
            Input::End => return Ok(()),
            Input::Failed(e) => return Err(e),
            Input::Line(line) => {
                session.arrived = Some(a.at);
                session.handle_line(&line, output)?;
            }
            Input::TooLong(_) => send(output, "status line too long")?,
        }
        if session.should_quit() {
            return Ok(());
        }
        if let Some(board) = session.ponder_on.take() {
            session.ponder(&board);
        }
    }
}
