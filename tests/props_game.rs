//! Property tests of `flank::othello::game::Game`: random legal games (passes implicit or explicit)
//! undo back through every intermediate position to the start, agree with the transcript
//! parser, and a refused play never changes the game.

use flank::notation::parse_transcript;
use flank::othello::Position;
use flank::othello::game::{Game, GameError};
use flank::othello::square::{Color, Move, Square};
use proptest::prelude::*;

/// One step of a random game: which legal move to pick (modulo their number), whether a
/// forced pass is written explicitly or left implicit, and a random (colour, move) probe.
#[derive(Clone, Debug)]
struct Step {
    pick: usize,
    explicit_pass: bool,
    probe_black: bool,
    probe_square: Option<u8>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        any::<usize>(),
        any::<bool>(),
        any::<bool>(),
        proptest::option::of(0u8..64),
    )
        .prop_map(|(pick, explicit_pass, probe_black, probe_square)| Step {
            pick,
            explicit_pass,
            probe_black,
            probe_square,
        })
}

/// Whether `color` playing `mv` is legal under the pass rules, computed independently of
/// `Game::play` from the position alone.
fn expected_legal(pos: &Position, color: Color, mv: Move) -> bool {
    let p = if color == pos.side {
        *pos
    } else if pos.board.has_moves() {
        return false;
    } else {
        Position {
            board: pos.board.pass(),
            side: color,
        }
    };
    match mv {
        Move::Pass => !p.board.has_moves(),
        Move::Play(sq) => p.board.try_make_move(sq).is_some(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn undo_restores_every_position(steps in proptest::collection::vec(step(), 0..80)) {
        let mut game = Game::new();
        let mut seen: Vec<Position> = vec![*game.position()];
        let mut discs: Vec<Square> = Vec::new();
        for s in &steps {
            if game.is_over() {
                break;
            }
            // A random probe: refused plays change nothing; accepted ones are undone.
            let probe_color = if s.probe_black { Color::Black } else { Color::White };
            let probe_move = s.probe_square.map_or(Move::Pass, |i| Move::Play(Square::from_index(i)));
            let before = game.clone();
            let legal = expected_legal(game.position(), probe_color, probe_move);
            match game.play(probe_color, probe_move) {
                Ok(()) => {
                    prop_assert!(legal, "{probe_color} {probe_move} accepted in {}", before.position());
                    let steps_taken = game.history().len() - before.history().len();
                    for _ in 0..steps_taken {
                        game.undo().unwrap();
                    }
                }
                Err(e) => {
                    prop_assert!(!legal, "{probe_color} {probe_move} refused ({e}) in {}", before.position());
                    if let Move::Play(sq) = probe_move
                        && probe_color == game.side_to_move()
                        && game.position().board.empty() & sq.bit() == 0
                    {
                        prop_assert_eq!(e, GameError::Occupied(sq));
                    }
                }
            }
            prop_assert_eq!(&game, &before);

            // The real move of this step.
            let side = game.side_to_move();
            if game.must_pass() {
                let other = side.opposite();
                let moves = Position { board: game.position().board.pass(), side: other }
                    .board
                    .legal_moves()
                    .collect::<Vec<_>>();
                let sq = moves[s.pick % moves.len()];
                if s.explicit_pass {
                    game.play(side, Move::Pass).unwrap();
                    seen.push(*game.position());
                    game.play(other, Move::Play(sq)).unwrap();
                } else {
                    let n = game.history().len();
                    game.play(other, Move::Play(sq)).unwrap();
                    prop_assert_eq!(game.history().len(), n + 2);
                    seen.push(game.history()[n + 1].before);
                }
                discs.push(sq);
            } else {
                let moves = game.legal_moves();
                let sq = moves[s.pick % moves.len()];
                game.play(side, Move::Play(sq)).unwrap();
                discs.push(sq);
            }
            seen.push(*game.position());
        }
        prop_assert_eq!(game.history().len() + 1, seen.len());

        // The transcript of the discs placed leads to the same position.
        let transcript: String = discs.iter().map(|s| s.to_string()).collect();
        let (_, parsed) = parse_transcript(&transcript).unwrap();
        prop_assert_eq!(&parsed, game.position());

        // Undo everything, checking each intermediate position.
        while let Some(expected) = seen.pop() {
            prop_assert_eq!(game.position(), &expected);
            if seen.is_empty() {
                break;
            }
            game.undo().unwrap();
        }
        prop_assert_eq!(game.position(), &Position::start());
        prop_assert_eq!(game.undo(), Err(GameError::CannotUndo));
        prop_assert_eq!(game, Game::new());
    }
}
