//! The NBoard commands that search: `go`, `hint` and `analyze`, their answer lines, and the
//! watched search that a new input line stops.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

use crate::book::BookMove;
use crate::engine::analyze::{Analysis, analyze};
use crate::engine::level::{DEFAULT_SEED, Endgame, Level, search_at_level};
use crate::engine::{SearchInfo, SearchLimits, SearchResult, SolveMode};
use crate::othello::board::{Board, Score};
use crate::othello::square::{Move, Square};
use crate::protocol::input::{ponder, watch_during};

use super::{NBoard, send};

/// A move as NBoard writes it: `F5`, or `PA` for a pass.
fn move_text(m: Move) -> String {
    match m {
        Move::Play(sq) => sq.to_upper(),
        Move::Pass => "PA".to_string(),
    }
}

/// The `DEPTH` field: `100%W` for a win/draw/loss result, `100%` for an exact one, else the
/// depth in plies.
fn depth_text(depth: u32, exact: bool, wld: bool) -> String {
    if wld {
        "100%W".to_string()
    } else if exact {
        "100%".to_string()
    } else {
        depth.to_string()
    }
}

/// One `search PV EVAL 0 DEPTH` line; `None` for an empty PV.
fn search_line(pv: &[Move], score: Score, depth: u32, exact: bool, wld: bool) -> Option<String> {
    if pv.is_empty() {
        return None;
    }
    let pv: String = pv.iter().map(|&m| move_text(m)).collect();
    Some(format!(
        "search {pv} {:.2} 0 {}",
        f64::from(score),
        depth_text(depth, exact, wld)
    ))
}

/// One `book MOVE EVAL GAMES DEPTH` line: a book move, its value from the mover's view, the
/// source games through it and the book's search depth.
fn book_line(m: &BookMove, depth: u32) -> String {
    format!(
        "book {} {:.2} {} {depth}",
        m.mv.to_upper(),
        f64::from(m.value),
        m.games
    )
}

/// `nodestats NODES SECONDS` for a search of `nodes` nodes that started at `start`.
fn nodestats(nodes: u64, start: Instant) -> String {
    format!("nodestats {nodes} {:.2}", start.elapsed().as_secs_f64())
}

impl NBoard {
    /// Runs `search` on this session while the reader's input is watched: a line that arrives
    /// during it stops the engine's search (see [`watch_during`]).
    fn watched<T>(&mut self, search: impl FnOnce(&mut NBoard) -> T) -> T {
        let stop = self.engine.stop_handle();
        self.watched_on(&stop, search)
    }

    /// [`NBoard::watched`] with `stop` as the flag a new line sets (for work that does not
    /// search on the session's engine, such as `learn`).
    pub(super) fn watched_on<T>(
        &mut self,
        stop: &AtomicBool,
        search: impl FnOnce(&mut NBoard) -> T,
    ) -> T {
        let mut inbox = self.inbox.take();
        let arrived = self.arrived;
        let out = watch_during(inbox.as_mut(), arrived, stop, || search(self));
        self.inbox = inbox;
        out
    }

    /// The limits of `hint` and `analyze` for `board`: at a numeric level its depth and no time
    /// limit, solved exactly when the level solves at these empties; at level `hard` the time
    /// a move would get (see [`NBoard::time_manager`]) with the engine's automatic solve.
    fn analysis_limits(&self, board: &Board, start: Instant) -> SearchLimits {
        let spec = self.level.spec();
        match (spec.depth, spec.endgame) {
            (Some(depth), endgame) => SearchLimits {
                depth: Some(depth),
                mode: match endgame {
                    Endgame::AtEmpties(e) if board.empties() <= e => SolveMode::Exact,
                    _ => SolveMode::Midgame,
                },
                time_ms: None,
                deadline: None,
            },
            (None, _) => {
                let side = self.game.position().side;
                let mut l = self
                    .time_manager()
                    .map(|tm| tm.limits(side, board, None, start))
                    .unwrap_or_default();
                l.mode = SolveMode::Auto;
                l
            }
        }
    }

    /// `go`: the move for the side to move, answered `=== MOVE/EVAL/SECONDS` after the
    /// search's `search …` lines and `nodestats`; not played. From the book when it knows the
    /// position; else with a clock (`TI`) at level `hard` within the time, the set depth a cap,
    /// and without a clock at the numeric level `set depth` gave.
    pub(super) fn go(&mut self, start: Instant, out: &mut dyn Write) -> io::Result<()> {
        if self.game.is_over() {
            return send(out, "status game over");
        }
        if self.game.must_pass() {
            return send(out, "=== PA");
        }
        let pos = *self.game.position();
        let board = pos.board;
        let moves = board.moves();
        let first = Move::Play(Square::from_index(moves.trailing_zeros() as u8));
        if moves.count_ones() == 1 {
            return send(out, &format!("=== {}", move_text(first)));
        }
        if let Some(book) = self.book.clone()
            && let Some(m) = book.choose(&board, self.options.book_randomness, &mut self.rng)
        {
            send(out, &book_line(&m, book.depth))?;
            self.last_go = Some((Move::Play(m.mv), Vec::new(), board));
            return send(
                out,
                &format!(
                    "=== {}/{:.2}/{:.2}",
                    m.mv.to_upper(),
                    f64::from(m.value),
                    start.elapsed().as_secs_f64()
                ),
            );
        }
        // Under the game's clock the depth is a cap on full-strength play (level `hard`, whose
        // endgame solve fits the time); without a clock it is the numeric level.
        let (level, cap) = match (self.clock_ms, self.level.spec().depth) {
            (Some(_), depth) => (Level::Hard, depth),
            (None, _) => (self.level, None),
        };
        let limits = self
            .time_manager()
            .map(|tm| tm.limits(pos.side, &board, cap, start))
            .unwrap_or_default();
        let verbose = self.options.verbose;
        let mut failed: Option<io::Error> = None;
        let mut on_info = |info: &SearchInfo| {
            if let Some(line) = search_line(&info.pv, info.score, info.depth, info.exact, info.wld)
            {
                if verbose {
                    eprintln!(
                        "flank: {line} nodes {} time {} ms",
                        info.nodes, info.time_ms
                    );
                }
                if let Err(e) = send(out, &line)
                    && failed.is_none()
                {
                    failed = Some(e);
                }
            }
        };
        // The levels `set depth` gives have no randomness; the generator is only a parameter.
        let mut rng = ChaCha12Rng::seed_from_u64(DEFAULT_SEED);
        let r: SearchResult = self.watched(|s| {
            search_at_level(
                &mut s.engine,
                &board,
                level,
                &limits,
                &mut rng,
                &mut on_info,
            )
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let best = match r.best {
            Move::Play(sq) if moves & sq.bit() != 0 => r.best,
            other => {
                eprintln!("flank: search returned illegal move {other}, playing {first}");
                first
            }
        };
        send(out, &nodestats(r.nodes, start))?;
        self.last_go = Some((best, r.pv.clone(), board));
        send(
            out,
            &format!(
                "=== {}/{:.2}/{:.2}",
                move_text(best),
                f64::from(r.score),
                start.elapsed().as_secs_f64()
            ),
        )
    }

    /// Ponders on `board` until a line arrives (see [`crate::engine::ponder`]); the work is
    /// kept in the transposition table only.
    pub(super) fn ponder(&mut self, board: &Board) {
        let Some(r) = ponder(self.inbox.as_mut(), &mut self.engine, board) else {
            return;
        };
        if self.options.verbose {
            eprintln!(
                "flank: pondered depth {} nodes {} time {} ms",
                r.depth, r.nodes, r.time_ms
            );
        }
    }

    /// `hint N`: the `N` best moves (at most the legal ones), `search PV EVAL 0 DEPTH` each
    /// after every iteration, then `nodestats`. A side that must pass gets one `search PA …`
    /// line with the value of passing.
    pub(super) fn hint(&mut self, n: usize, out: &mut dyn Write) -> io::Result<()> {
        let start = Instant::now();
        if self.game.is_over() {
            return send(out, "status game over");
        }
        let board = self.game.position().board;
        let limits = self.analysis_limits(&board, start);
        if !board.has_moves() {
            let r = self.watched(|s| s.engine.search(&board, &limits, &mut |_| {}));
            if let Some(line) = search_line(&[Move::Pass], r.score, r.depth, r.exact, r.wld) {
                send(out, &line)?;
            }
            return send(out, &nodestats(r.nodes, start));
        }
        if let Some(book) = &self.book
            && book.choose(&board, 0, &mut self.rng).is_some()
        {
            for m in book.moves(&board) {
                send(out, &book_line(&m, book.depth))?;
            }
            return send(out, &nodestats(0, start));
        }
        let verbose = self.options.verbose;
        let mut failed: Option<io::Error> = None;
        let mut on_iter = |a: &Analysis| {
            for m in &a.moves {
                let Some(line) = search_line(&m.pv, m.score, m.depth, m.exact, false) else {
                    continue;
                };
                if verbose {
                    eprintln!("flank: {line} nodes {} time {} ms", a.nodes, a.time_ms);
                }
                if let Err(e) = send(out, &line)
                    && failed.is_none()
                {
                    failed = Some(e);
                }
            }
        };
        let a = self.watched(|s| analyze(&mut s.engine, &board, n, &limits, &mut on_iter));
        if let Some(e) = failed {
            return Err(e);
        }
        send(out, &nodestats(a.nodes, start))
    }

    /// `analyze`: every position of the game from the last back to the first, searched as
    /// `hint` searches, answered `analysis K EVAL` (K = moves before it, EVAL the side to
    /// move's score; a finished game its final score); then `nodestats`. A line that arrives
    /// meanwhile ends it after the position being searched.
    pub(super) fn analyze(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let start = Instant::now();
        let mut boards: Vec<Board> = self.game.history().iter().map(|r| r.before.board).collect();
        boards.push(self.game.position().board);
        let stop = self.engine.stop_handle();
        let mut nodes = 0u64;
        let result = self.watched(|s| -> io::Result<()> {
            for (k, board) in boards.iter().enumerate().rev() {
                let score = if board.is_game_over() {
                    board.final_score()
                } else {
                    let limits = s.analysis_limits(board, Instant::now());
                    let r = s.engine.search(board, &limits, &mut |_| {});
                    nodes += r.nodes;
                    if stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    r.score
                };
                send(out, &format!("analysis {k} {:.2}", f64::from(score)))?;
            }
            Ok(())
        });
        result?;
        send(out, &nodestats(nodes, start))
    }
}
