//! The GTP session's text views of the game: `showboard`'s board, GoGui's
//! `gogui-rules_board` and the free-text `gogui-rules_final_result`.

use crate::othello::square::Square;

use super::Gtp;

impl Gtp {
    /// Text board: column letters, rows 1–8 top to bottom, `X` black, `O` white, `.` empty,
    /// then the disc counts and the side to move.
    pub(super) fn showboard(&self) -> String {
        let (black, white) = self.game.position().black_white();
        let mut s = String::from("\n  a b c d e f g h\n");
        for row in 0..8u8 {
            s.push((b'1' + row) as char);
            for col in 0..8u8 {
                let bit = Square::from_coords(col, row).bit();
                s.push(' ');
                s.push(if black & bit != 0 {
                    'X'
                } else if white & bit != 0 {
                    'O'
                } else {
                    '.'
                });
            }
            s.push(' ');
            s.push((b'1' + row) as char);
            s.push('\n');
        }
        s.push_str("  a b c d e f g h\n");
        let (b, w) = self.game.disc_counts();
        let state = if self.game.is_over() {
            "game over".to_string()
        } else {
            format!("{} to move", self.game.side_to_move())
        };
        s.push_str(&format!("black X {b}, white O {w}, {state}"));
        s
    }

    /// GoGui's board: 8 lines of 8 `X`/`O`/`.`, row 8 first.
    pub(super) fn rules_board(&self) -> String {
        let (black, white) = self.game.position().black_white();
        let rows: Vec<String> = (0..8u8)
            .rev()
            .map(|row| {
                (0..8u8)
                    .map(|col| {
                        let bit = Square::from_coords(col, row).bit();
                        if black & bit != 0 {
                            'X'
                        } else if white & bit != 0 {
                            'O'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect();
        rows.join("\n")
    }

    /// Free-text result: `Black wins 40-24 (B+16)`, `White wins …`, `Draw 32-32 (0)`, or
    /// `Game not over` while a side can still move.
    pub(super) fn final_result(&self) -> String {
        if !self.game.is_over() {
            return "Game not over".to_string();
        }
        let (b, w) = self.game.disc_counts();
        let score = self.game.final_score_text();
        let who = match self.game.final_score() {
            s if s > 0 => "Black wins",
            s if s < 0 => "White wins",
            _ => "Draw",
        };
        format!("{who} {b}-{w} ({score})")
    }
}
