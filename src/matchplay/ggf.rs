//! Game records in GGF (the Generic Game Format of GGS and NBoard), one game per line.
//!
//! `(;GM[Othello]PC[flank match]DT[<unix seconds>]PB[<black>]PW[<white>]RE[<result>]
//! TI[<m:ss>]TY[8]BO[8 <64 cells> <side>]B[f5]W[d6//1.23]…C[<reason>];)` (on one line):
//! - `TI`: each side's clock in whole seconds rounded up, `m:ss` or `h:mm:ss` ([`time_tag`]).
//!   With time odds (the two clocks differ, in ms) GGF's per-colour tags `TB[<m:ss>]TW[<m:ss>]`
//!   (black's, white's clock) stand in its place ([`time_tags`]).
//! - `BO`: the start of the game (the start position, or the handicap position), cells
//!   a1…h8 with `*` black, `O` white, `-` empty, then `*` or `O` to move.
//! - `B`/`W`: every move from `BO`, opening included; `PA` is a pass. Moves the player
//!   chose carry their time, `B[f5//1.23]` (seconds, the GGF `move/eval/time` form with no
//!   eval); opening moves and forced passes carry none.
//! - `RE`: black's disc difference with two decimals (`+12.00`, `-6.00`, `+0.00`), then a
//!   GGF flag: `:t` lost on time, `:r` resigned or forfeited by a fault (illegal move, wrong
//!   pass, crash, protocol error), `:s` a draw agreed by both players. A forfeit records the
//!   round value (±64, see [`super::rounds`]), an agreed draw `+0.00:s`.
//! - `C`: flank's addition, the reason in words (`white lost on time`, `black illegal move
//!   'z9'`, `game over`); GGF readers skip tags they do not know.
//!
//! Names and texts have `[`, `]`, `\` and control characters replaced so a record stays one
//! well-formed line.

use std::fmt::Write;

use super::referee::{EndReason, GameOutcome};
use super::rounds::round_value;
use crate::othello::Position;
use crate::othello::square::{Color, Move};

/// Makes `s` safe inside a GGF tag value on one line.
pub fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            '\\' => '/',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// `BO` contents: `8 <64 cells> <side>`.
pub fn board_tag(p: &Position) -> String {
    let cells: String = p
        .cells()
        .chars()
        .map(|c| match c {
            'X' => '*',
            'O' => 'O',
            _ => '-',
        })
        .collect();
    let side = match p.side {
        Color::Black => '*',
        Color::White => 'O',
    };
    format!("8 {cells} {side}")
}

/// `TI` contents for a clock of `time_ms`: whole seconds, rounded **up** (GGF clocks have no
/// fractions; a 0.5 s clock is `0:01`, never `0:00`), as `m:ss` below an hour and `h:mm:ss`
/// from an hour on.
pub fn time_tag(time_ms: u64) -> String {
    let secs = time_ms.div_ceil(1000);
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// The clock tags for black's and white's clocks, `time_ms` = `[black, white]` in ms:
/// `TI[m:ss]` when they are equal, else GGF's per-colour `TB[m:ss]TW[m:ss]` (each as
/// [`time_tag`]; two clocks that differ are written as two tags even when they round to the
/// same whole second).
pub fn time_tags(time_ms: [u64; 2]) -> String {
    let [black, white] = time_ms;
    if black == white {
        format!("TI[{}]", time_tag(black))
    } else {
        format!("TB[{}]TW[{}]", time_tag(black), time_tag(white))
    }
}

/// `RE` contents for `o` (see the module header).
pub fn result_tag(o: &GameOutcome) -> String {
    let v = round_value(o, Color::Black);
    let flag = match o.reason {
        EndReason::Finished => "",
        EndReason::DrawAgreed(_) => ":s",
        EndReason::Time => ":t",
        _ => ":r",
    };
    format!("{v:+}.00{flag}")
}

/// The reason in words, with the colour that forfeited or offered.
pub fn reason_text(o: &GameOutcome) -> String {
    match (&o.reason, o.forfeited_by()) {
        (EndReason::Time, Some(c)) => format!("{c} lost on time"),
        (r, Some(c)) => format!("{c} {r}"),
        (r, None) => r.to_string(),
    }
}

/// One game as a GGF line (without the newline). `time_ms` is black's and white's clock
/// (`[black, white]`, ms; see [`time_tags`]); `date` the game's end in Unix seconds.
pub fn record(o: &GameOutcome, black: &str, white: &str, time_ms: [u64; 2], date: u64) -> String {
    let mut s = format!(
        "(;GM[Othello]PC[flank match]DT[{date}]PB[{}]PW[{}]RE[{}]{}TY[8]BO[{}]",
        escape(black),
        escape(white),
        result_tag(o),
        time_tags(time_ms),
        board_tag(&o.start)
    );
    for m in &o.moves {
        let tag = match m.color {
            Color::Black => 'B',
            Color::White => 'W',
        };
        let mv = match m.mv {
            Move::Pass => "PA".to_string(),
            Move::Play(sq) => sq.to_string(),
        };
        let chosen = !m.opening && m.mv != Move::Pass;
        if chosen {
            let _ = write!(s, "{tag}[{mv}//{}.{:02}]", m.ms / 1000, (m.ms % 1000) / 10);
        } else {
            let _ = write!(s, "{tag}[{mv}]");
        }
    }
    let _ = write!(s, "C[{}];)", escape(&reason_text(o)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matchplay::referee::MoveRecord;

    #[test]
    fn a_record() {
        let f5: Move = "f5".parse().unwrap();
        let d6: Move = "d6".parse().unwrap();
        let start = Position::start();
        let last = start.play(f5).unwrap().play(d6).unwrap();
        let o = GameOutcome {
            start,
            moves: vec![
                MoveRecord {
                    color: Color::Black,
                    mv: f5,
                    ms: 0,
                    opening: true,
                },
                MoveRecord {
                    color: Color::White,
                    mv: d6,
                    ms: 1234,
                    opening: false,
                },
            ],
            last,
            board_score: 0,
            winner: Some(Color::Black),
            reason: EndReason::Time,
            offers: [0, 0],
            used_ms: [0, 1234],
        };
        assert_eq!(
            record(&o, "flank[a]", "edax", [600_000; 2], 1_700_000_000),
            "(;GM[Othello]PC[flank match]DT[1700000000]PB[flank(a)]PW[edax]RE[+64.00:t]\
             TI[10:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]\
             B[f5]W[d6//1.23]C[white lost on time];)"
        );
        // Clocks are written in whole seconds, rounded up.
        assert_eq!(time_tag(500), "0:01");
        assert_eq!(time_tag(100), "0:01");
        assert_eq!(time_tag(10_000), "0:10");
        assert_eq!(time_tag(599_001), "10:00");
        assert_eq!(time_tag(3_600_000), "1:00:00");
        assert_eq!(time_tag(5_025_500), "1:23:46");
        assert!(record(&o, "a", "b", [500; 2], 0).contains("TI[0:01]"));
        let illegal = GameOutcome {
            reason: EndReason::Illegal("z9".into()),
            winner: Some(Color::White),
            ..o
        };
        assert_eq!(result_tag(&illegal), "-64.00:r");
        assert_eq!(reason_text(&illegal), "black illegal move 'z9'");
    }

    #[test]
    fn time_odds_write_tb_and_tw() {
        let start = Position::start();
        let o = GameOutcome {
            start,
            moves: Vec::new(),
            last: start,
            board_score: 0,
            winner: Some(Color::White),
            reason: EndReason::Time,
            offers: [0, 0],
            used_ms: [10_000, 0],
        };
        // Black 10 s, white 20 s: per-colour tags in TI's place, no TI.
        let r = record(&o, "a", "b", [10_000, 20_000], 0);
        assert_eq!(
            r,
            "(;GM[Othello]PC[flank match]DT[0]PB[a]PW[b]RE[-64.00:t]TB[0:10]TW[0:20]TY[8]\
             BO[8 ---------------------------O*------*O--------------------------- *]\
             C[black lost on time];)"
        );
        assert!(!r.contains("TI["), "{r}");
        // The other way round, and with an hour on one side.
        assert_eq!(time_tags([3_600_000, 1_800_000]), "TB[1:00:00]TW[30:00]");
        // Equal clocks keep the single TI tag.
        assert_eq!(time_tags([10_000, 10_000]), "TI[0:10]");
        // Clocks that differ by less than a second still get both tags (each rounded up).
        assert_eq!(time_tags([10_200, 10_400]), "TB[0:11]TW[0:11]");
    }
}
