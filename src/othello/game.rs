//! A game record with colours: the current [`Position`], the pass rules GUIs rely on, and undo.
//!
//! The board layer ([`crate::othello::board`]) knows only "side to move / other side"; a [`Game`] maps
//! that back to black and white and keeps a history stack so every recorded move — a disc
//! placed or a pass — can be taken back one at a time.
//!
//! Pass rules (from `docs/protocols.md`, "Passes: the number one interoperability fault"):
//! 1. `play(C, Pass)` is accepted when `C` is to move and has no legal move (also at game over);
//!    otherwise it is an [`GameError::IllegalMove`].
//! 2. `play(C, m)` where `C` is **not** the side to move: if the side to move has no legal
//!    move, its pass is recorded implicitly and then `m` is played for `C` (both steps succeed
//!    or neither happens); otherwise [`GameError::WrongColor`].
//! 3. [`Game::prepare_turn`] does the same implicit pass for move generation (`genmove C`).
//! 4. Every pass, explicit or implicit, is one entry of the history, so [`Game::undo`] takes
//!    back passes one at a time like any other move.
//!
//! Corner handicaps ([`handicap_position`], [`add_handicap`], [`Game::handicap`]) add 1–4
//! discs of one colour on a1, h8, h1, a8 (in that order) before the first move; the rules of
//! play are unchanged (black moves first, the discs count in the final score).
//!
//! A failed call never changes the game.

use std::fmt;

use crate::othello::Position;
use crate::othello::board::Score;
use crate::othello::square::{Color, Move, Square};

/// Why a move or an undo was refused. The game is unchanged after any error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The move flips nothing, or it is a pass while the colour has a legal move.
    /// Display: `illegal move`.
    IllegalMove(Move),
    /// The square already holds a disc. Display: `occupied square f5`.
    Occupied(Square),
    /// The colour (given) is not to move and the side to move is not blocked. Display:
    /// `wrong color: white to move` (naming the side to move, the other colour).
    WrongColor(Color),
    /// The history is empty (start of the game or just after `setboard`). Display: `cannot undo`.
    CannotUndo,
    /// A handicap of other than 1–4 corners. Display: `bad handicap 5 (expected 1-4 corners)`.
    BadHandicap(u32),
    /// A handicap after a move was played since `clear_board`/`setboard`. Display:
    /// `handicap only before the first move`.
    HandicapAfterMoves,
    /// A handicap corner already holds a disc. Display: `handicap corner a1 is not empty`.
    CornerOccupied(Square),
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::IllegalMove(_) => f.write_str("illegal move"),
            GameError::Occupied(sq) => write!(f, "occupied square {sq}"),
            GameError::WrongColor(c) => write!(f, "wrong color: {} to move", c.opposite()),
            GameError::CannotUndo => f.write_str("cannot undo"),
            GameError::BadHandicap(n) => write!(f, "bad handicap {n} (expected 1-4 corners)"),
            GameError::HandicapAfterMoves => f.write_str("handicap only before the first move"),
            GameError::CornerOccupied(sq) => write!(f, "handicap corner {sq} is not empty"),
        }
    }
}

impl std::error::Error for GameError {}

/// The handicap corners in the order they are given: a1, h8, h1, a8 (a handicap of `n`
/// corners uses the first `n`).
pub const HANDICAP_CORNERS: [Square; 4] = [
    Square::from_index(0),
    Square::from_index(63),
    Square::from_index(7),
    Square::from_index(56),
];

/// `position` with `n` corner discs of `color` added, the corners taken in the order of
/// [`HANDICAP_CORNERS`] (a1, h8, h1, a8); the side to move and every other disc are kept.
///
/// Errors: [`GameError::BadHandicap`] unless 1 ≤ `n` ≤ 4, [`GameError::CornerOccupied`] when
/// one of the `n` corners already holds a disc.
pub fn add_handicap(position: &Position, color: Color, n: u32) -> Result<Position, GameError> {
    if !(1..=4).contains(&n) {
        return Err(GameError::BadHandicap(n));
    }
    let (mut black, mut white) = position.black_white();
    for &sq in &HANDICAP_CORNERS[..n as usize] {
        if (black | white) & sq.bit() != 0 {
            return Err(GameError::CornerOccupied(sq));
        }
        match color {
            Color::Black => black |= sq.bit(),
            Color::White => white |= sq.bit(),
        }
    }
    // The corners were empty, so the discs cannot overlap.
    Position::from_black_white(black, white, position.side)
        .ok_or(GameError::CornerOccupied(HANDICAP_CORNERS[0]))
}

/// The standard start position (black to move) with a handicap of `n` corner discs for
/// `color`: a1 for `n = 1`, then h8, h1, a8 (see [`add_handicap`]). Black still moves first
/// and the corner discs count in the final score like any other disc.
///
/// Error: [`GameError::BadHandicap`] unless 1 ≤ `n` ≤ 4.
pub fn handicap_position(color: Color, n: u32) -> Result<Position, GameError> {
    add_handicap(&Position::start(), color, n)
}

/// True if the last two of `moves` (a game's moves in order) are passes: the game ended
/// there, so a third pass in a row is refused by the readers of recorded games (GGF, NBoard's
/// `move`).
pub fn ends_with_two_passes(moves: impl DoubleEndedIterator<Item = Move>) -> bool {
    let mut last = moves.rev();
    last.next() == Some(Move::Pass) && last.next() == Some(Move::Pass)
}

/// One entry of the history: who moved, what, and the position before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The colour that moved (or passed).
    pub color: Color,
    /// The move, [`Move::Pass`] for a pass (explicit or implicit).
    pub mv: Move,
    /// The position before the move (restored by [`Game::undo`]).
    pub before: Position,
}

/// A game: the current position with its colour to move, and the moves that led to it since
/// the start position or the last [`Game::setboard`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    position: Position,
    history: Vec<Record>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    /// A new game at the standard start position, black to move, empty history.
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game starting at `position` with an empty history.
    pub fn from_position(position: Position) -> Game {
        Game {
            position,
            history: Vec::new(),
        }
    }

    /// Back to the standard start position with an empty history (GTP `clear_board`).
    pub fn clear(&mut self) {
        *self = Game::new();
    }

    /// Replaces the position and clears the history (GTP `setboard`): the new position cannot
    /// be undone past.
    pub fn setboard(&mut self, position: Position) {
        *self = Game::from_position(position);
    }

    /// Gives `color` a handicap of `n` corner discs in the current position (GTP
    /// `flank-handicap`), as [`add_handicap`] does; the history stays empty, so the handicap
    /// is part of the starting position (`undo` cannot take it back, `clear_board` does).
    ///
    /// Errors: [`GameError::HandicapAfterMoves`] when a move (or pass) was recorded since the
    /// start or the last [`Game::setboard`], and those of [`add_handicap`]. On error the game
    /// is unchanged.
    pub fn handicap(&mut self, color: Color, n: u32) -> Result<(), GameError> {
        if !self.history.is_empty() {
            return Err(GameError::HandicapAfterMoves);
        }
        self.position = add_handicap(&self.position, color, n)?;
        Ok(())
    }

    /// The current position (board and colour to move).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The colour to move. When that side is blocked it still is the side to move: it must pass.
    pub fn side_to_move(&self) -> Color {
        self.position.side
    }

    /// The recorded moves, oldest first, passes included.
    pub fn history(&self) -> &[Record] {
        &self.history
    }

    /// Legal moves of the side to move in square order (a1, b1 … h8); empty when it must pass.
    pub fn legal_moves(&self) -> Vec<Square> {
        self.position.board.legal_moves().collect()
    }

    /// True if `color` has at least one legal move in the current position.
    pub fn has_legal_move(&self, color: Color) -> bool {
        if color == self.position.side {
            self.position.board.has_moves()
        } else {
            self.position.board.opponent_moves() != 0
        }
    }

    /// True if neither side has a legal move (this includes a full board).
    pub fn is_over(&self) -> bool {
        self.position.board.is_game_over()
    }

    /// True if the side to move has no legal move but the other side has one: the side to move
    /// must pass.
    pub fn must_pass(&self) -> bool {
        !self.position.board.has_moves() && !self.is_over()
    }

    /// Black's and white's disc counts.
    pub fn disc_counts(&self) -> (u32, u32) {
        let (b, w) = self.position.black_white();
        (b.count_ones(), w.count_ones())
    }

    /// The score of the current position as black minus white discs, with the empty squares
    /// given to the side with more discs (the world-championship rule; a draw with empties
    /// stays 0). Range −64…64. Meaningful as a result once [`Game::is_over`]; before that it is
    /// the current count under the same rule, not a prediction.
    pub fn final_score(&self) -> Score {
        let s = self.position.board.final_score();
        match self.position.side {
            Color::Black => s,
            Color::White => -s,
        }
    }

    /// The score GTP `final_score` reports, black minus white, −64…64: [`Game::final_score`]
    /// (empties to the side ahead) once the game is over; before that the plain disc
    /// difference, empty squares not assigned to anyone.
    pub fn score(&self) -> Score {
        if self.is_over() {
            self.final_score()
        } else {
            let (b, w) = self.disc_counts();
            b as Score - w as Score
        }
    }

    /// [`Game::score`] as GTP text: `B+n` when black leads, `W+n` when white leads, `0` for a
    /// draw (empties go to the winner only once the game is over).
    pub fn final_score_text(&self) -> String {
        let s = self.score();
        match s.cmp(&0) {
            std::cmp::Ordering::Greater => format!("B+{s}"),
            std::cmp::Ordering::Less => format!("W+{}", -s),
            std::cmp::Ordering::Equal => "0".to_string(),
        }
    }

    /// Plays `mv` for `color` under the pass rules of the module header.
    ///
    /// Errors: [`GameError::Occupied`] for a disc on an occupied square,
    /// [`GameError::IllegalMove`] for a move that flips nothing or a pass while `color` has a
    /// move, [`GameError::WrongColor`] when `color` is not to move and the side to move is not
    /// blocked. On error the game is unchanged.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), GameError> {
        let mut records = Vec::with_capacity(2);
        let mut pos = self.position;
        if color != pos.side {
            if pos.board.has_moves() {
                return Err(GameError::WrongColor(color));
            }
            records.push(Record {
                color: pos.side,
                mv: Move::Pass,
                before: pos,
            });
            pos = pos
                .play(Move::Pass)
                .ok_or(GameError::IllegalMove(Move::Pass))?;
        }
        let next = Self::apply(&pos, mv)?;
        records.push(Record {
            color,
            mv,
            before: pos,
        });
        self.history.extend(records);
        self.position = next;
        Ok(())
    }

    /// Makes `color` the side to move for move generation: does nothing if it already is,
    /// records the side to move's pass if that side is blocked (rule 3), and otherwise fails
    /// with [`GameError::WrongColor`] leaving the game unchanged.
    pub fn prepare_turn(&mut self, color: Color) -> Result<(), GameError> {
        if color == self.position.side {
            return Ok(());
        }
        if self.position.board.has_moves() {
            return Err(GameError::WrongColor(color));
        }
        self.play(self.position.side, Move::Pass)
    }

    /// The position `color` would search from: the current one if `color` is to move, the one
    /// after the side to move's forced pass if that side is blocked; otherwise
    /// [`GameError::WrongColor`]. Never changes the game (for `reg_genmove`).
    pub fn position_for(&self, color: Color) -> Result<Position, GameError> {
        if color == self.position.side {
            return Ok(self.position);
        }
        if self.position.board.has_moves() {
            return Err(GameError::WrongColor(color));
        }
        self.position
            .play(Move::Pass)
            .ok_or(GameError::IllegalMove(Move::Pass))
    }

    /// Takes back the last recorded move (a pass is a move). Returns it, or
    /// [`GameError::CannotUndo`] when the history is empty.
    pub fn undo(&mut self) -> Result<Record, GameError> {
        let r = self.history.pop().ok_or(GameError::CannotUndo)?;
        self.position = r.before;
        Ok(r)
    }

    /// The position after the side to move of `pos` plays `mv`, with a typed error.
    fn apply(pos: &Position, mv: Move) -> Result<Position, GameError> {
        if let Move::Play(sq) = mv
            && pos.board.empty() & sq.bit() == 0
        {
            return Err(GameError::Occupied(sq));
        }
        pos.play(mv).ok_or(GameError::IllegalMove(mv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Move {
        s.parse().unwrap()
    }

    /// Black: a1; white: b1; everything else empty except what is needed. Black to move can
    /// play c1 (flanking b1); white has no move at all (no black disc can be outflanked).
    fn blocked_white() -> Position {
        let p: Position = format!("XO{} X", "-".repeat(62)).parse().unwrap();
        assert!(p.board.has_moves());
        assert_eq!(p.board.opponent_moves(), 0);
        p
    }

    #[test]
    fn start_and_simple_moves() {
        let mut g = Game::new();
        assert_eq!(g.side_to_move(), Color::Black);
        assert_eq!(g.legal_moves().len(), 4);
        g.play(Color::Black, m("f5")).unwrap();
        assert_eq!(g.side_to_move(), Color::White);
        assert_eq!(g.disc_counts(), (4, 1));
        assert_eq!(g.final_score(), 62); // 4 - 1 + 59 empties to black
        // Not over: the plain disc difference.
        assert_eq!(g.score(), 3);
        assert_eq!(g.final_score_text(), "B+3");
        let undone = g.undo().unwrap();
        assert_eq!(undone.mv, m("f5"));
        assert_eq!(g, Game::new());
        assert_eq!(g.undo(), Err(GameError::CannotUndo));
    }

    #[test]
    fn errors_leave_the_game_unchanged() {
        let mut g = Game::new();
        g.play(Color::Black, m("f5")).unwrap();
        let before = g.clone();
        assert_eq!(
            g.play(Color::White, m("f5")),
            Err(GameError::Occupied(m("f5").square().unwrap()))
        );
        assert_eq!(
            g.play(Color::White, m("a1")),
            Err(GameError::IllegalMove(m("a1")))
        );
        assert_eq!(
            g.play(Color::White, Move::Pass),
            Err(GameError::IllegalMove(Move::Pass))
        );
        assert_eq!(
            g.play(Color::Black, m("c4")),
            Err(GameError::WrongColor(Color::Black))
        );
        assert_eq!(
            g.prepare_turn(Color::Black),
            Err(GameError::WrongColor(Color::Black))
        );
        assert_eq!(g, before);
        assert_eq!(
            GameError::Occupied(m("f5").square().unwrap()).to_string(),
            "occupied square f5"
        );
        assert_eq!(
            GameError::IllegalMove(Move::Pass).to_string(),
            "illegal move"
        );
        assert_eq!(
            GameError::WrongColor(Color::Black).to_string(),
            "wrong color: white to move"
        );
        assert_eq!(GameError::CannotUndo.to_string(), "cannot undo");
    }

    #[test]
    fn implicit_and_explicit_passes() {
        // Black plays c1 taking b1: the board is all black, game over.
        let p = blocked_white();
        let mut g = Game::from_position(p);
        g.play(Color::Black, m("c1")).unwrap();
        assert!(g.is_over());
        assert_eq!(g.final_score(), 64);
        assert_eq!(g.final_score_text(), "B+64");
        // White to move, blocked: white may pass (rule 1, at game over too).
        assert_eq!(g.side_to_move(), Color::White);
        g.play(Color::White, Move::Pass).unwrap();
        assert_eq!(g.side_to_move(), Color::Black);
        assert_eq!(g.history().len(), 2);
        // Black passes too (game over: no moves).
        g.play(Color::Black, Move::Pass).unwrap();
        assert_eq!(g.undo().unwrap().mv, Move::Pass);
        assert_eq!(g.undo().unwrap().mv, Move::Pass);
        assert_eq!(g.undo().unwrap().mv, m("c1"));
        assert_eq!(g.position(), &p);
    }

    #[test]
    fn playing_for_the_other_side_records_the_pass() {
        // White to move but blocked; black has c1.
        let p = blocked_white();
        let p = Position {
            board: p.board.pass(),
            side: Color::White,
        };
        let mut g = Game::from_position(p);
        assert!(g.must_pass());
        // Black's illegal move with an implicit pass fails as a whole.
        assert_eq!(
            g.play(Color::Black, m("h8")),
            Err(GameError::IllegalMove(m("h8")))
        );
        assert_eq!(g.history().len(), 0);
        assert_eq!(g.position_for(Color::Black).unwrap().side, Color::Black);
        g.play(Color::Black, m("c1")).unwrap();
        let h: Vec<(Color, Move)> = g.history().iter().map(|r| (r.color, r.mv)).collect();
        assert_eq!(h, vec![(Color::White, Move::Pass), (Color::Black, m("c1"))]);
        g.undo().unwrap();
        assert_eq!(g.side_to_move(), Color::Black);
        g.undo().unwrap();
        assert_eq!(g.position(), &p);
        // prepare_turn inserts the same pass.
        g.prepare_turn(Color::Black).unwrap();
        assert_eq!(g.history().len(), 1);
        assert_eq!(g.side_to_move(), Color::Black);
    }

    #[test]
    fn draw_and_white_win_texts() {
        // 2 black, 2 white, rest empty: a draw stays 0 even with empties.
        let d: Position = format!("XXOO{} X", "-".repeat(60)).parse().unwrap();
        assert_eq!(Game::from_position(d).final_score_text(), "0");
        // Not over (black has d1): the plain difference 1 - 2, empties unassigned.
        let w: Position = format!("XOO{} O", "-".repeat(61)).parse().unwrap();
        let g = Game::from_position(w);
        assert!(!g.is_over());
        assert_eq!(g.final_score(), -(2 - 1 + 61));
        assert_eq!(g.score(), -1);
        assert_eq!(g.final_score_text(), "W+1");
    }

    #[test]
    fn scores_at_game_over_give_empties_to_the_winner() {
        // a1 b1 black, h8 white: neither side can move; 61 empties go to black.
        let over: Position = format!("XX{}O X", "-".repeat(61)).parse().unwrap();
        let g = Game::from_position(over);
        assert!(g.is_over());
        assert_eq!(g.score(), 2 - 1 + 61);
        assert_eq!(g.final_score_text(), "B+62");
        // a1 black, h8 white: a draw stays 0 with empties.
        let draw: Position = format!("X{}O O", "-".repeat(62)).parse().unwrap();
        let g = Game::from_position(draw);
        assert!(g.is_over());
        assert_eq!(g.final_score_text(), "0");
    }
}
