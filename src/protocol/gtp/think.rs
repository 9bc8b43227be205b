//! The GTP commands that search: the move of `genmove`/`reg_genmove` at the session's level,
//! `flank-hint`, the judgement of a draw offer, their `--verbose` lines on stderr, and the
//! watched search that a new input line stops.

use std::time::Instant;

use crate::engine::analyze::{analyze, info_lines, move_line};
use crate::engine::draw::{draw_budget_ms, judge_draw_offer};
use crate::engine::level::{Level, search_at_level};
use crate::engine::{SearchInfo, SearchLimits};
use crate::othello::board::Board;
use crate::othello::square::{Color, Move, Square};

use super::Gtp;
use crate::protocol::input::{ponder, watch_during};

/// The kind of a solved score in the `--verbose` lines: ` wld` when only its sign is proven
/// (the score is then −1, 0 or +1), ` exact` for a final disc difference, nothing for a
/// midgame estimate.
fn solved_kind(exact: bool, wld: bool) -> &'static str {
    if wld {
        " wld"
    } else if exact {
        " exact"
    } else {
        ""
    }
}

impl Gtp {
    /// `flank-hint N`: the `N` best moves of the side to move, one [`move_line`] each, best
    /// first, searched by [`analyze`] within the limits the time manager gives that side for
    /// a move (and `--depth`); nothing is played and no clock is charged. `pass` when the
    /// side to move must pass; `? game over` at game over; `? bad count …` when `N` exceeds
    /// the legal moves.
    pub(super) fn hint(&mut self, n: u32, start: Instant) -> Result<String, String> {
        if self.game.is_over() {
            return Err("game over".to_string());
        }
        if self.game.must_pass() {
            return Ok("pass".to_string());
        }
        let (board, side) = (self.game.position().board, self.game.position().side);
        let legal = board.moves().count_ones();
        if n > legal {
            return Err(format!(
                "bad count {n} (only {legal} legal move{})",
                if legal == 1 { "" } else { "s" }
            ));
        }
        let limits = self.time.limits(side, &board, self.options.depth, start);
        let verbose = self.options.verbose;
        let a = self.watched(|g| {
            analyze(&mut g.engine, &board, n as usize, &limits, &mut |a| {
                if verbose {
                    for line in info_lines(a) {
                        eprintln!("{line}");
                    }
                }
            })
        });
        if verbose {
            eprintln!(
                "flank: hint for {}: {} moves, depth {}{} nodes {} time {} ms",
                side,
                a.moves.len(),
                a.depth,
                if a.exact { " exact" } else { "" },
                a.nodes,
                a.time_ms
            );
        }
        let lines: Vec<String> = a.moves.iter().map(move_line).collect();
        Ok(lines.join("\n"))
    }

    /// Runs `search` (a search on this session's engine) while the reader's input is watched:
    /// a line or the end of input that arrives after the search started, and more than
    /// [`TOGETHER_MS`](super::TOGETHER_MS) after the command's own line, stops the search through
    /// [`Engine::stop_handle`](crate::engine::Engine::stop_handle) (it then answers with its
    /// best result so far) and waits in the queue for its turn. Input that arrived earlier (sent together with the command by a
    /// client that does not wait for answers) does not stop it. Without an inbox (lines handed
    /// in by [`Gtp::handle_line`]) the search just runs.
    fn watched<T>(&mut self, search: impl FnOnce(&mut Gtp) -> T) -> T {
        let mut inbox = self.inbox.take();
        let stop = self.engine.stop_handle();
        let arrived = self.arrived;
        let out = watch_during(inbox.as_mut(), arrived, &stop, || search(self));
        self.inbox = inbox;
        out
    }

    /// The move for `color`, which is to move in `board`: pass when blocked, the only move
    /// without searching, a book move when the session has a book that knows the position
    /// (at every level but `easy`), otherwise the engine's choice within the time manager's limits. An
    /// illegal answer from the search is replaced by the first legal move (and reported on
    /// stderr) so the game can go on.
    pub(super) fn choose(&mut self, color: Color, board: &Board, start: Instant) -> Move {
        let moves = board.moves();
        self.last_pv.clear();
        if moves == 0 {
            return Move::Pass;
        }
        let first = Move::Play(Square::from_index(moves.trailing_zeros() as u8));
        if moves.count_ones() == 1 {
            return first;
        }
        if self.level != Level::Easy
            && let Some(book) = &self.options.book
            && let Some(m) = book.choose(board, self.options.book_randomness, &mut self.rng)
        {
            if self.options.verbose {
                eprintln!(
                    "flank: {color} book {} value {:+} ({} games)",
                    m.mv, m.value, m.games
                );
            }
            return Move::Play(m.mv);
        }
        let limits: SearchLimits = self.time.limits(color, board, self.options.depth, start);
        let verbose = self.options.verbose;
        let mut on_info = |info: &SearchInfo| {
            if verbose {
                let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
                eprintln!(
                    "info depth {} score {:+}{} nodes {} time {} nps {} pv {}",
                    info.depth,
                    info.score,
                    solved_kind(info.exact, info.wld),
                    info.nodes,
                    info.time_ms,
                    u128::from(info.nodes) * 1000 / u128::from(info.time_ms.max(1)),
                    pv.join(" ")
                );
            }
        };
        let level = self.level;
        let result = self.watched(|g| {
            search_at_level(
                &mut g.engine,
                board,
                level,
                &limits,
                &mut g.rng,
                &mut on_info,
            )
        });
        if verbose {
            eprintln!(
                "flank: {color} (level {}) {} score {:+}{} depth {} nodes {} time {} ms",
                self.level,
                result.best,
                result.score,
                solved_kind(result.exact, result.wld),
                result.depth,
                result.nodes,
                result.time_ms
            );
        }
        self.last_pv = result.pv.clone();
        match result.best {
            Move::Play(sq) if moves & sq.bit() != 0 => result.best,
            other => {
                eprintln!("flank: search returned illegal move {other}, playing {first}");
                first
            }
        }
    }

    /// Ponders on `board` (see [`crate::engine::ponder`]) until a line arrives; the result is
    /// kept only in the transposition table. With `--verbose` one line on stderr says how far
    /// it got.
    pub(super) fn ponder(&mut self, board: &Board) {
        let Some(r) = ponder(self.inbox.as_mut(), &mut self.engine, board) else {
            return;
        };
        if self.options.verbose {
            eprintln!(
                "flank: pondered depth {}{} nodes {} time {} ms",
                r.depth,
                solved_kind(r.exact, r.wld),
                r.nodes,
                r.time_ms
            );
        }
    }

    /// True if `receiver` accepts a draw in the current position: [`judge_draw_offer`] with a
    /// budget of 1/20 of the receiver's hard per-move budget (see [`draw_budget_ms`]).
    pub(super) fn draw_offer(&mut self, receiver: Color) -> bool {
        let pos = self.game.position();
        let board = pos.board;
        let to_move = pos.side == receiver;
        let view = if to_move { board } else { board.pass() };
        let budget = draw_budget_ms(self.time.budget(receiver, &view).hard_ms);
        let j = judge_draw_offer(&mut self.engine, &board, to_move, budget);
        if self.options.verbose {
            eprintln!(
                "flank: draw offer to {receiver}: score {:+}{} nodes {} budget {budget} ms: {}",
                j.score,
                if j.exact { " exact" } else { "" },
                j.nodes,
                if j.accept { "accept" } else { "decline" }
            );
        }
        j.accept
    }
}
