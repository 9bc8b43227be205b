//! Edax's binary opening book format (`.dat`): reading one into a [`Book`] and writing a
//! [`Book`] in it.
//!
//! The format is the one of Edax's `book.c` (Edax 4.x, by Richard Delorme); this reader and
//! writer are flank's own code, written from the byte layout of a real Edax book. Every number
//! is little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0–3 | `XADE`: the u32 0x45444158 (`EDAX`) |
//! | 4–7 | `KOOB`: the u32 0x424F4F4B (`BOOK`) |
//! | 8, 9 | version, release (u8 each; 4 and 4 for Edax 4.4) |
//! | 10–16 | date: year (u16), month, day, hour, minute, second (u8 each) |
//! | 17 | padding (0) |
//! | 18–37 | build options, i32 each: level, empties, midgame error, endcut error, verbosity |
//! | 38–41 | the number of positions (u32) |
//!
//! then each position, 42 bytes plus 2 a link:
//!
//! | bytes | field |
//! |---|---|
//! | 0–7, 8–15 | player (side to move) and opponent discs, u64 each: bit 0 = a1, bit 7 = h1, bit 63 = h8 (flank's [`Board`] layout) |
//! | 16–31 | wins, draws, losses, lines (u32 each) |
//! | 32–37 | value, lower bound, upper bound (i16 each, discs for the side to move) |
//! | 38 | link count N (u8) |
//! | 39 | level (u8) |
//! | 40… | N links, then one leaf: a score (i8, discs for the side to move) and a move (u8) each |
//!
//! Moves: 0–63 a square (the index of its bit), 64 a pass, 65 no move. Edax stores each
//! position in the least of its 8 symmetric forms (comparing player, then opponent), which is
//! flank's [`key`]; link and leaf moves are moves of the position as stored.
//!
//! How a position maps to flank's [`Entry`]: `value` is Edax's value, `games` Edax's lines
//! (the lines of the book's games through the position, finished or not), `leaf` the leaf's
//! score when the leaf names a move or carries a real score (−64…64: Edax writes −127 with
//! no move, see [`EdaxExtra::leaf_value`]). Everything else (wins, draws, losses, the bounds, the
//! level, the links with their scores, the leaf move) is kept beside the entry as an
//! [`EdaxExtra`], and the header as an [`EdaxHeader`], so that reading, writing and reading
//! again gives the same book. A position written from flank's own book (no Edax fields) gets
//! its book moves as links, its leaf value with no move (flank's books do not keep the leaf
//! move), no win/draw/loss counts, its games as lines, bounds −64…+64 and the book's depth
//! as level.

use std::collections::HashMap;

use super::{Book, Entry, MAX_DEPTH, key};
use crate::othello::board::{Board, Score, Symmetry};
use crate::othello::square::Square;

/// The first 8 bytes of an Edax book: `EDAX` and `BOOK` written as little-endian u32s.
pub const MAGIC: [u8; 8] = *b"XADEKOOB";

/// The bytes of the header, the position count included.
pub const HEADER_BYTES: usize = 42;

/// The fixed part of a position record (before its links and leaf).
pub const RECORD_FIXED_BYTES: usize = 40;

/// The smallest position record: the fixed part and the leaf, no link.
pub const RECORD_MIN_BYTES: usize = RECORD_FIXED_BYTES + 2;

/// Edax's move code of a pass.
pub const PASS: u8 = 64;

/// Edax's move code of "no move" (a leaf when every legal move is a link).
pub const NOMOVE: u8 = 65;

/// Edax's bound beyond any score (its `SCORE_INF`): the widest lower and upper bounds.
pub const SCORE_INF: i16 = 127;

/// The leaf score Edax writes with [`NOMOVE`]: −[`SCORE_INF`].
pub const NO_LEAF_SCORE: i8 = -127;

/// The largest book file flank reads, in bytes (1 GiB: about 20 million positions).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The header of an Edax book: its format version, the date it was saved and the options it
/// was built with (kept as read; flank does not use them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxHeader {
    /// Format version (4 for Edax 4.x).
    pub version: u8,
    /// Format release (4 for Edax 4.4).
    pub release: u8,
    /// Year of the last save.
    pub year: u16,
    /// Month, 1–12 (not checked).
    pub month: u8,
    /// Day of the month (not checked).
    pub day: u8,
    /// Hour (not checked).
    pub hour: u8,
    /// Minute (not checked).
    pub minute: u8,
    /// Second (not checked).
    pub second: u8,
    /// Edax's search level for the book's positions.
    pub level: i32,
    /// Edax's `empties` option of the book.
    pub empties: i32,
    /// Edax's midgame error option, discs.
    pub midgame_error: i32,
    /// Edax's endcut error option, discs.
    pub endcut_error: i32,
    /// Edax's verbosity option.
    pub verbosity: i32,
}

/// A link: a move of a position whose child is in the book, with its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdaxLink {
    /// The move.
    pub mv: Square,
    /// Its score in discs from the mover's view, −64…64.
    pub score: i8,
}

/// The fields of an Edax position that flank's [`Entry`] does not hold.
///
/// Moves are those of the position in the orientation it is kept in: the canonical one
/// (its [`key`]) inside a [`Book`], the asked one from [`Book::edax_position`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxExtra {
    /// Finished games of the book through the position won by its side to move.
    pub wins: u32,
    /// Finished games through it drawn.
    pub draws: u32,
    /// Finished games through it lost by its side to move.
    pub losses: u32,
    /// Lower bound of the value, discs, −127…127 (±127: no bound).
    pub lower: i16,
    /// Upper bound of the value, discs, −127…127.
    pub upper: i16,
    /// Edax's search level of the position.
    pub level: u8,
    /// The links, in the order of the file.
    pub links: Vec<EdaxLink>,
    /// The leaf move: the best move whose child is not in the book (`None`: no move).
    pub leaf_move: Option<Square>,
    /// The leaf's score in discs from the mover's view, as stored (Edax writes −127 with no
    /// move; flank writes its leaf value with no move when it does not know the move).
    pub leaf_score: i8,
}

impl EdaxExtra {
    /// The leaf value flank's [`Entry`] gets: the leaf score when the leaf names a move or
    /// the score is a real score (−64…64), else `None`.
    pub fn leaf_value(&self) -> Option<Score> {
        let s = Score::from(self.leaf_score);
        (self.leaf_move.is_some() || (-64..=64).contains(&s)).then_some(s)
    }

    /// The finished games through the position: wins + draws + losses.
    pub fn full_games(&self) -> u64 {
        u64::from(self.wins) + u64::from(self.draws) + u64::from(self.losses)
    }

    /// The same fields with every move mapped by `s`.
    fn mapped(&self, s: Symmetry) -> EdaxExtra {
        EdaxExtra {
            links: self
                .links
                .iter()
                .map(|l| EdaxLink {
                    mv: s.apply_square(l.mv),
                    score: l.score,
                })
                .collect(),
            leaf_move: self.leaf_move.map(|m| s.apply_square(m)),
            ..self.clone()
        }
    }

    /// The fields as one word of a flank book line:
    /// `edax=WINS,DRAWS,LOSSES,LOWER,UPPER,LEVEL,LEAF:SCORE,LINKS`, the leaf move `-` for no
    /// move, the links `MOVE:SCORE` joined by `/` (`-` for none), e.g.
    /// `edax=8,8,0,-2,2,21,-:-127,d3:0/c4:0/f5:0/e6:0`.
    pub fn to_field(&self) -> String {
        let leaf = self.leaf_move.map_or("-".to_string(), |m| m.to_string());
        let links = if self.links.is_empty() {
            "-".to_string()
        } else {
            self.links
                .iter()
                .map(|l| format!("{}:{}", l.mv, l.score))
                .collect::<Vec<_>>()
                .join("/")
        };
        format!(
            "edax={},{},{},{},{},{},{leaf}:{},{links}",
            self.wins, self.draws, self.losses, self.lower, self.upper, self.level, self.leaf_score
        )
    }

    /// Reads [`EdaxExtra::to_field`]'s word for the position `board` (moves as on `board`).
    ///
    /// # Errors
    /// A one-line reason: a malformed word, a number out of its range, or a move that is not
    /// legal on `board`.
    pub fn parse_field(word: &str, board: &Board) -> Result<EdaxExtra, String> {
        let body = word
            .strip_prefix("edax=")
            .ok_or_else(|| format!("expected edax=… as the sixth field, not '{}'", clip(word)))?;
        let parts: Vec<&str> = body.split(',').collect();
        let [w, d, l, lower, upper, level, leaf, links] = parts[..] else {
            return Err(
                "expected edax=WINS,DRAWS,LOSSES,LOWER,UPPER,LEVEL,LEAF:SCORE,LINKS".to_string(),
            );
        };
        let count = |s: &str, what: &str| {
            s.parse::<u32>()
                .map_err(|_| format!("bad {what} '{}' in the edax field", clip(s)))
        };
        let bound = |s: &str, what: &str| {
            s.parse::<i16>()
                .ok()
                .filter(|v| (-SCORE_INF..=SCORE_INF).contains(v))
                .ok_or_else(|| format!("bad {what} '{}' (expected -127..127)", clip(s)))
        };
        let score = |s: &str| {
            s.parse::<i8>()
                .ok()
                .filter(|v| (-64..=64).contains(v))
                .ok_or_else(|| format!("bad score '{}' (expected -64..64)", clip(s)))
        };
        let legal = |s: &str| {
            let sq = s
                .parse::<Square>()
                .map_err(|_| format!("bad move '{}' in the edax field", clip(s)))?;
            if board.moves() & sq.bit() == 0 {
                return Err(format!("{sq} is not a legal move of the position"));
            }
            Ok(sq)
        };
        let (leaf_mv, leaf_sc) = leaf
            .split_once(':')
            .ok_or_else(|| format!("bad leaf '{}' (expected MOVE:SCORE)", clip(leaf)))?;
        let (leaf_move, leaf_score) = if leaf_mv == "-" {
            let s = leaf_sc
                .parse::<i8>()
                .map_err(|_| format!("bad leaf score '{}'", clip(leaf_sc)))?;
            (None, s)
        } else {
            (Some(legal(leaf_mv)?), score(leaf_sc)?)
        };
        let mut parsed = Vec::new();
        if links != "-" {
            for link in links.split('/') {
                let (m, s) = link
                    .split_once(':')
                    .ok_or_else(|| format!("bad link '{}' (expected MOVE:SCORE)", clip(link)))?;
                let mv = legal(m)?;
                if parsed.iter().any(|l: &EdaxLink| l.mv == mv) {
                    return Err(format!("link move {mv} twice"));
                }
                parsed.push(EdaxLink {
                    mv,
                    score: score(s)?,
                });
            }
        }
        if let Some(mv) = leaf_move.filter(|&mv| parsed.iter().any(|l| l.mv == mv)) {
            return Err(format!("leaf move {mv} is also a link"));
        }
        Ok(EdaxExtra {
            wins: count(w, "win count")?,
            draws: count(d, "draw count")?,
            losses: count(l, "loss count")?,
            lower: bound(lower, "lower bound")?,
            upper: bound(upper, "upper bound")?,
            level: level
                .parse::<u8>()
                .map_err(|_| format!("bad level '{}' (expected 0..255)", clip(level)))?,
            links: parsed,
            leaf_move,
            leaf_score,
        })
    }
}

impl EdaxHeader {
    /// The header of a book flank writes from its own book: version 4.4, the current date
    /// (UTC), level `depth`, empties `empties`, error and verbosity options 0.
    pub fn new_for(depth: u32, empties: u32) -> EdaxHeader {
        let (year, month, day, hour, minute, second) = utc_now();
        EdaxHeader {
            version: 4,
            release: 4,
            year,
            month,
            day,
            hour,
            minute,
            second,
            level: i32::try_from(depth).unwrap_or(i32::MAX),
            empties: i32::try_from(empties).unwrap_or(i32::MAX),
            midgame_error: 0,
            endcut_error: 0,
            verbosity: 0,
        }
    }

    /// The first field of the header's date that is out of range, as its byte offset from
    /// the year's first byte (0 year, 2 month, 3 day, 4 hour, 5 minute, 6 second) and a
    /// one-line reason; `None` for a valid date, or the all-zero date of a book made without
    /// a clock.
    pub fn date_fault(&self) -> Option<(usize, String)> {
        let fields = [
            (self.month, 2, "month", 1, 12),
            (self.day, 3, "day", 1, 31),
            (self.hour, 4, "hour", 0, 23),
            (self.minute, 5, "minute", 0, 59),
            (self.second, 6, "second", 0, 60),
        ];
        if self.year == 0 && fields.iter().all(|f| f.0 == 0) {
            return None;
        }
        fields
            .iter()
            .find(|&&(v, _, _, lo, hi)| !(lo..=hi).contains(&v))
            .map(|&(v, k, name, lo, hi)| {
                (
                    k,
                    format!("the header's date has {name} {v} (expected {lo}..{hi})"),
                )
            })
    }

    /// The header as a comment line of a flank book file:
    /// `# edax version=4.4 date=2021-01-24T10:46:32 level=21 empties=24 midgame-error=2
    /// endcut-error=1 verbosity=0` (one line).
    pub fn to_comment(&self) -> String {
        format!(
            "# edax version={}.{} date={:04}-{:02}-{:02}T{:02}:{:02}:{:02} level={} empties={} \
             midgame-error={} endcut-error={} verbosity={}",
            self.version,
            self.release,
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.level,
            self.empties,
            self.midgame_error,
            self.endcut_error,
            self.verbosity
        )
    }

    /// Reads [`EdaxHeader::to_comment`]'s line.
    ///
    /// # Errors
    /// A one-line reason for a missing or malformed field.
    pub fn parse_comment(line: &str) -> Result<EdaxHeader, String> {
        let fields: HashMap<&str, &str> = line
            .split_whitespace()
            .skip(2)
            .filter_map(|w| w.split_once('='))
            .collect();
        let get = |k: &str| {
            fields
                .get(k)
                .copied()
                .ok_or_else(|| format!("the edax header has no {k}="))
        };
        let int = |k: &str| {
            get(k)?
                .parse::<i32>()
                .map_err(|_| format!("bad {k} in the edax header"))
        };
        let bad_version = || "bad version in the edax header (expected V.R)".to_string();
        let (v, r) = get("version")?.split_once('.').ok_or_else(bad_version)?;
        let bad_date = || "bad date in the edax header (expected YYYY-MM-DDTHH:MM:SS)".to_string();
        let (date, time) = get("date")?.split_once('T').ok_or_else(bad_date)?;
        let ymd: Vec<&str> = date.split('-').collect();
        let hms: Vec<&str> = time.split(':').collect();
        let ([y, mo, d], [h, mi, s]) = (&ymd[..], &hms[..]) else {
            return Err(bad_date());
        };
        let byte = |s: &str| s.parse::<u8>().map_err(|_| bad_date());
        let header = EdaxHeader {
            version: v.parse().map_err(|_| bad_version())?,
            release: r.parse().map_err(|_| bad_version())?,
            year: y.parse().map_err(|_| bad_date())?,
            month: byte(mo)?,
            day: byte(d)?,
            hour: byte(h)?,
            minute: byte(mi)?,
            second: byte(s)?,
            level: int("level")?,
            empties: int("empties")?,
            midgame_error: int("midgame-error")?,
            endcut_error: int("endcut-error")?,
            verbosity: int("verbosity")?,
        };
        match header.date_fault() {
            Some((_, what)) => Err(what),
            None => Ok(header),
        }
    }
}

/// One position of an Edax book as stored in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxRecord {
    /// The byte offset of the record in the file it was read from (0 for one made in memory).
    pub offset: usize,
    /// The position as stored (Edax stores the canonical form, see the module header).
    pub board: Board,
    /// Its value, discs for the side to move, −64…64.
    pub value: i16,
    /// Lines of the book's games through it.
    pub lines: u32,
    /// The other fields, moves as on `board`.
    pub extra: EdaxExtra,
}

/// Why bytes are not a readable Edax book: the byte offset where reading failed and a
/// one-line reason. Display: `byte 1234: the file ends inside position 30 of 38 …`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdaxError {
    /// Offset of the offending byte (or of the record it belongs to) from the file's start.
    pub offset: usize,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for EdaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for EdaxError {}

fn fail<T>(offset: usize, what: impl Into<String>) -> Result<T, EdaxError> {
    Err(EdaxError {
        offset,
        what: what.into(),
    })
}

/// At most 40 characters of `s`, for messages.
fn clip(s: &str) -> String {
    crate::notation::clip(s)
}

/// True if `bytes` start like an Edax file (`XADE`, whatever follows): what `--book` uses to
/// tell an Edax book from a flank text book.
pub fn is_edax(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC[..4])
}

/// `N` bytes of `bytes` from `at`, if there are that many.
fn bytes_at<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes
        .get(at..at.checked_add(N)?)
        .and_then(|s| s.try_into().ok())
}

/// A little-endian number of `bytes` at `at`; the caller has checked the length (a short read
/// gives 0, never a panic).
fn le_u16(bytes: &[u8], at: usize) -> u16 {
    bytes_at(bytes, at).map_or(0, u16::from_le_bytes)
}
fn le_i16(bytes: &[u8], at: usize) -> i16 {
    bytes_at(bytes, at).map_or(0, i16::from_le_bytes)
}
fn le_u32(bytes: &[u8], at: usize) -> u32 {
    bytes_at(bytes, at).map_or(0, u32::from_le_bytes)
}
fn le_i32(bytes: &[u8], at: usize) -> i32 {
    bytes_at(bytes, at).map_or(0, i32::from_le_bytes)
}
fn le_u64(bytes: &[u8], at: usize) -> u64 {
    bytes_at(bytes, at).map_or(0, u64::from_le_bytes)
}
fn byte(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

/// Reads an Edax book: its header and its positions in file order. Checks the magic, that the
/// stated position count fits the file's length (before anything is allocated for it), every
/// record's length, discs that do not overlap, a side to move with a legal move, scores in
/// range (value and link and leaf scores −64…64, bounds −127…127), link and leaf moves that
/// are legal moves of the position (the leaf may be "no move"), and no byte after the last
/// position. Never panics; reads nothing beyond `bytes`.
///
/// # Errors
/// An [`EdaxError`] naming the byte offset of the first problem.
pub fn read(bytes: &[u8]) -> Result<(EdaxHeader, Vec<EdaxRecord>), EdaxError> {
    if bytes.starts_with(b"EDAX") {
        return fail(
            0,
            "a big-endian Edax file (flank reads the little-endian books Edax writes on PCs)",
        );
    }
    if !is_edax(bytes) {
        return fail(
            0,
            "not an Edax book (expected the magic XADEKOOB: EDAX, BOOK)",
        );
    }
    if bytes.get(4..8).is_some_and(|m| m != &MAGIC[4..]) {
        return fail(4, "an Edax file but not a book (expected KOOB: BOOK)");
    }
    if bytes.len() < HEADER_BYTES {
        return fail(
            bytes.len(),
            format!(
                "the file ends inside the {HEADER_BYTES}-byte header ({} bytes)",
                bytes.len()
            ),
        );
    }
    let header = EdaxHeader {
        version: byte(bytes, 8),
        release: byte(bytes, 9),
        year: le_u16(bytes, 10),
        month: byte(bytes, 12),
        day: byte(bytes, 13),
        hour: byte(bytes, 14),
        minute: byte(bytes, 15),
        second: byte(bytes, 16),
        level: le_i32(bytes, 18),
        empties: le_i32(bytes, 22),
        midgame_error: le_i32(bytes, 26),
        endcut_error: le_i32(bytes, 30),
        verbosity: le_i32(bytes, 34),
    };
    if let Some((k, what)) = header.date_fault() {
        return fail(10 + k, what);
    }
    let count = le_u32(bytes, 38) as usize;
    let room = (bytes.len() - HEADER_BYTES) / RECORD_MIN_BYTES;
    if count > room {
        return fail(
            38,
            format!(
                "the header states {count} positions, but the {} bytes after it hold at most {room}",
                bytes.len() - HEADER_BYTES
            ),
        );
    }
    let mut records = Vec::with_capacity(count);
    let mut at = HEADER_BYTES;
    for i in 0..count {
        let (record, next) = read_record(bytes, at, i + 1, count)?;
        records.push(record);
        at = next;
    }
    if at != bytes.len() {
        return fail(
            at,
            format!(
                "{} bytes after the last of the {count} positions",
                bytes.len() - at
            ),
        );
    }
    Ok((header, records))
}

/// Reads position `n` of `count` at `at`; returns it and the offset after it.
fn read_record(
    bytes: &[u8],
    at: usize,
    n: usize,
    count: usize,
) -> Result<(EdaxRecord, usize), EdaxError> {
    let left = bytes.len().saturating_sub(at);
    if left < RECORD_MIN_BYTES {
        return fail(
            at,
            format!(
                "the file ends inside position {n} of {count} ({RECORD_MIN_BYTES} bytes at least, {left} left)"
            ),
        );
    }
    let player = le_u64(bytes, at);
    let opponent = le_u64(bytes, at + 8);
    let Some(board) = Board::new(player, opponent) else {
        return fail(at, format!("position {n}: the two sides' discs overlap"));
    };
    if !board.has_moves() {
        return fail(
            at,
            format!(
                "position {n}: its side to move has no legal move (flank's books hold no pass or finished position)"
            ),
        );
    }
    let value = le_i16(bytes, at + 32);
    if !(-64..=64).contains(&value) {
        return fail(
            at + 32,
            format!("position {n}: value {value} (expected -64..64)"),
        );
    }
    let lower = le_i16(bytes, at + 34);
    let upper = le_i16(bytes, at + 36);
    for (k, b) in [(34, lower), (36, upper)] {
        if !(-SCORE_INF..=SCORE_INF).contains(&b) {
            return fail(
                at + k,
                format!("position {n}: bound {b} (expected -127..127)"),
            );
        }
    }
    let n_links = usize::from(byte(bytes, at + 38));
    let size = RECORD_MIN_BYTES + 2 * n_links;
    if left < size {
        return fail(
            at,
            format!(
                "the file ends inside position {n} of {count} ({size} bytes with its {n_links} links, {left} left)"
            ),
        );
    }
    let legal = board.moves();
    let square = |k: usize, what: &str| -> Result<Square, EdaxError> {
        let code = byte(bytes, k);
        match code {
            0..=63 if legal & (1u64 << code) != 0 => Ok(Square::from_index(code)),
            0..=63 => fail(
                k,
                format!(
                    "position {n}: {what} {} is not a legal move",
                    Square::from_index(code)
                ),
            ),
            PASS => fail(
                k,
                format!("position {n}: {what} is a pass, but the side to move has a move"),
            ),
            _ => fail(
                k,
                format!("position {n}: {what} code {code} (expected 0..63, or 65 for a leaf)"),
            ),
        }
    };
    let score = |k: usize, what: &str| -> Result<i8, EdaxError> {
        let s = i8::from_le_bytes([byte(bytes, k)]);
        if (-64..=64).contains(&s) {
            Ok(s)
        } else {
            fail(
                k,
                format!("position {n}: {what} score {s} (expected -64..64)"),
            )
        }
    };
    let mut links: Vec<EdaxLink> = Vec::with_capacity(n_links);
    for j in 0..n_links {
        let k = at + RECORD_FIXED_BYTES + 2 * j;
        let s = score(k, "link")?;
        let mv = square(k + 1, "link move")?;
        if links.iter().any(|l| l.mv == mv) {
            return fail(k + 1, format!("position {n}: link move {mv} twice"));
        }
        links.push(EdaxLink { mv, score: s });
    }
    let k = at + RECORD_FIXED_BYTES + 2 * n_links;
    let (leaf_move, leaf_score) = if byte(bytes, k + 1) == NOMOVE {
        (None, i8::from_le_bytes([byte(bytes, k)]))
    } else {
        let s = score(k, "leaf")?;
        let mv = square(k + 1, "leaf move")?;
        if links.iter().any(|l| l.mv == mv) {
            return fail(
                k + 1,
                format!(
                    "position {n}: leaf move {mv} is also a link (a leaf is a move outside the links)"
                ),
            );
        }
        (Some(mv), s)
    };
    let record = EdaxRecord {
        offset: at,
        board,
        value,
        lines: le_u32(bytes, at + 28),
        extra: EdaxExtra {
            wins: le_u32(bytes, at + 16),
            draws: le_u32(bytes, at + 20),
            losses: le_u32(bytes, at + 24),
            lower,
            upper,
            level: byte(bytes, at + 39),
            links,
            leaf_move,
            leaf_score,
        },
    };
    Ok((record, at + size))
}

/// Writes an Edax book: `header`, then `records` in the order given.
///
/// # Errors
/// More than `u32::MAX` positions, or a position with more than 255 links (neither happens
/// with a real book).
pub fn write(header: &EdaxHeader, records: &[EdaxRecord]) -> Result<Vec<u8>, EdaxError> {
    let count =
        u32::try_from(records.len()).or_else(|_| fail(38, "more than 4294967295 positions"))?;
    let mut out = Vec::with_capacity(HEADER_BYTES + records.len() * (RECORD_MIN_BYTES + 8));
    out.extend_from_slice(&MAGIC);
    out.push(header.version);
    out.push(header.release);
    out.extend_from_slice(&header.year.to_le_bytes());
    out.extend_from_slice(&[
        header.month,
        header.day,
        header.hour,
        header.minute,
        header.second,
        0,
    ]);
    for v in [
        header.level,
        header.empties,
        header.midgame_error,
        header.endcut_error,
        header.verbosity,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&count.to_le_bytes());
    for r in records {
        let n_links = u8::try_from(r.extra.links.len())
            .or_else(|_| fail(out.len() + 38, "a position with more than 255 links"))?;
        out.extend_from_slice(&r.board.player.to_le_bytes());
        out.extend_from_slice(&r.board.opponent.to_le_bytes());
        let e = &r.extra;
        for v in [e.wins, e.draws, e.losses, r.lines] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [r.value, e.lower, e.upper] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(n_links);
        out.push(e.level);
        for l in &e.links {
            out.extend_from_slice(&l.score.to_le_bytes());
            out.push(l.mv.index() as u8);
        }
        out.extend_from_slice(&e.leaf_score.to_le_bytes());
        out.push(e.leaf_move.map_or(NOMOVE, |m| m.index() as u8));
    }
    Ok(out)
}

/// The symmetry `s` with `from.transform(s) == to`, if `to` is a symmetric form of `from`.
fn symmetry_between(from: &Board, to: &Board) -> Option<Symmetry> {
    Symmetry::ALL
        .into_iter()
        .find(|&s| from.transform(s) == *to)
}

/// The canonical form of `board` and `extra` with its moves mapped onto that form.
fn canonical(board: &Board, extra: &EdaxExtra) -> ((u64, u64), EdaxExtra) {
    let k = key(board);
    let canon = Board {
        player: k.0,
        opponent: k.1,
    };
    let s = symmetry_between(board, &canon).unwrap_or(Symmetry::Identity);
    (k, extra.mapped(s))
}

/// A score clamped to −64…64 as Edax's i8.
fn score_i8(v: Score) -> i8 {
    v.clamp(-64, 64) as i8
}

impl Book {
    /// Reads an Edax book (see the module header for the layout and how fields map).
    /// `depth` is the header's level, clamped to 1…[`MAX_DEPTH`].
    ///
    /// # Errors
    /// As [`read()`], and a position stored twice (in any of its symmetric forms), with the
    /// byte offsets of both.
    pub fn from_edax(bytes: &[u8]) -> Result<Book, EdaxError> {
        let (header, records) = read(bytes)?;
        let mut book = Book {
            depth: header.level.clamp(1, MAX_DEPTH as i32) as u32,
            edax_header: Some(header),
            ..Book::default()
        };
        book.entries.reserve(records.len());
        let mut first: HashMap<(u64, u64), usize> = HashMap::with_capacity(records.len());
        for r in records {
            let (k, extra) = canonical(&r.board, &r.extra);
            if let Some(at) = first.insert(k, r.offset) {
                return fail(
                    r.offset,
                    format!("the position at byte {at} again (or a symmetric one)"),
                );
            }
            book.entries.insert(
                k,
                Entry {
                    value: Score::from(r.value),
                    leaf: extra.leaf_value(),
                    games: r.lines,
                },
            );
            book.edax.insert(k, extra);
        }
        Ok(book)
    }

    /// The book as Edax records, sorted by empties (most first) then by board: each position
    /// in its canonical form, with the Edax fields it was read with, or, for a position of
    /// flank's own, the fields made as the module header says.
    pub fn edax_records(&self) -> Vec<EdaxRecord> {
        let mut rows: Vec<(u32, (u64, u64), EdaxRecord)> = self
            .iter()
            .map(|(b, e)| {
                let k = (b.player, b.opponent);
                let extra = self
                    .edax
                    .get(&k)
                    .cloned()
                    .unwrap_or_else(|| self.made_extra(&b, e));
                let record = EdaxRecord {
                    offset: 0,
                    board: b,
                    value: score_i8(e.value).into(),
                    lines: e.games,
                    extra,
                };
                (b.empties(), k, record)
            })
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        rows.into_iter().map(|(_, _, r)| r).collect()
    }

    /// The Edax fields of a position of flank's own book (canonical `board`).
    fn made_extra(&self, board: &Board, e: &Entry) -> EdaxExtra {
        EdaxExtra {
            wins: 0,
            draws: 0,
            losses: 0,
            lower: -64,
            upper: 64,
            level: u8::try_from(self.depth).unwrap_or(u8::MAX),
            links: self
                .moves(board)
                .iter()
                .map(|m| EdaxLink {
                    mv: m.mv,
                    score: score_i8(m.value),
                })
                .collect(),
            leaf_move: None,
            leaf_score: e.leaf.map_or(NO_LEAF_SCORE, score_i8),
        }
    }

    /// The book in Edax's format: the header it was read with, or for a book of flank's own
    /// a new one ([`EdaxHeader::new_for`] with the book's depth and its fewest empties), then
    /// [`Book::edax_records`].
    ///
    /// # Errors
    /// As [`write()`].
    pub fn to_edax(&self) -> Result<Vec<u8>, EdaxError> {
        let header = self.edax_header.unwrap_or_else(|| {
            let empties = self.iter().map(|(b, _)| b.empties()).min().unwrap_or(0);
            EdaxHeader::new_for(self.depth, empties)
        });
        write(&header, &self.edax_records())
    }

    /// The Edax header the book was read with, if it came from an Edax book.
    pub fn edax_header(&self) -> Option<&EdaxHeader> {
        self.edax_header.as_ref()
    }

    /// The Edax fields of `board` (any orientation), with the moves as on `board`, if the
    /// position came from an Edax book.
    pub fn edax_position(&self, board: &Board) -> Option<EdaxExtra> {
        let k = key(board);
        let extra = self.edax.get(&k)?;
        let canon = Board {
            player: k.0,
            opponent: k.1,
        };
        let s = symmetry_between(&canon, board)?;
        Some(extra.mapped(s))
    }

    /// Sets the Edax fields of `board`'s entry (moves as on `board`); nothing when `board` is
    /// not in the book.
    pub fn set_edax_position(&mut self, board: &Board, extra: &EdaxExtra) {
        let (k, extra) = canonical(board, extra);
        if self.entries.contains_key(&k) {
            self.edax.insert(k, extra);
        }
    }

    /// Sets the Edax header kept with the book (written again by [`Book::to_edax`]).
    pub fn set_edax_header(&mut self, header: Option<EdaxHeader>) {
        self.edax_header = header;
    }
}

/// The current date and time, UTC: (year, month, day, hour, minute, second).
fn utc_now() -> (u16, u8, u8, u8, u8, u8) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil(secs)
}

/// The UTC date and time `secs` seconds after 1970-01-01 (the days-to-civil conversion of
/// the proleptic Gregorian calendar).
fn civil(secs: u64) -> (u16, u8, u8, u8, u8, u8) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        u16::try_from(year).unwrap_or(u16::MAX),
        month as u8,
        day as u8,
        (rem / 3600) as u8,
        (rem / 60 % 60) as u8,
        (rem % 60) as u8,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_transcript;

    fn after(t: &str) -> Board {
        parse_transcript(t).unwrap().1.board
    }

    #[test]
    fn dates_convert() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(
            civil(18_651 * 86_400 + 10 * 3600 + 46 * 60 + 32),
            (2021, 1, 24, 10, 46, 32)
        );
        assert_eq!(civil(11_016 * 86_400), (2000, 2, 29, 0, 0, 0));
    }

    /// A small flank book: the start, f5 and f5 d6 (canonical forms), with a leaf each.
    fn small() -> Book {
        let mut book = Book {
            depth: 4,
            ..Book::default()
        };
        for (t, v, leaf) in [("", 0, Some(-1)), ("f5", 0, Some(-3)), ("f5d6", 0, Some(0))] {
            book.insert(
                &after(t),
                Entry {
                    value: v,
                    leaf,
                    games: 3,
                },
            );
        }
        book.propagate();
        book
    }

    #[test]
    fn a_flank_book_goes_through_edax_and_back() {
        let book = small();
        let bytes = book.to_edax().unwrap();
        // Header, then three records: start (4 links), f5 (1 link), f5d6 (no link).
        assert_eq!(
            bytes.len(),
            HEADER_BYTES + 3 * RECORD_MIN_BYTES + 2 * (4 + 1)
        );
        assert_eq!(&bytes[..8], b"XADEKOOB");
        let (header, records) = read(&bytes).unwrap();
        assert_eq!((header.level, header.empties), (4, 58));
        assert_eq!(records.len(), 3);
        let start = &records[0];
        assert_eq!(start.board, Board::start());
        assert_eq!(start.extra.links.len(), 4);
        assert_eq!(start.extra.leaf_move, None);
        assert_eq!(start.extra.leaf_value(), Some(-1));
        let again = Book::from_edax(&bytes).unwrap();
        // Same entries; the Edax fields now come with it, and its text carries them.
        for (b, e) in book.iter() {
            assert_eq!(again.get(&b), Some(e));
        }
        assert_eq!(again.len(), book.len());
        assert_eq!(Book::parse(&again.to_text()).unwrap(), again);
        assert_eq!(again.to_edax().unwrap(), bytes);
    }

    #[test]
    fn moves_follow_the_orientation_asked() {
        let mut book = small();
        let f5 = after("f5");
        let extra = EdaxExtra {
            wins: 1,
            draws: 2,
            losses: 3,
            lower: -2,
            upper: 2,
            level: 9,
            links: vec![EdaxLink {
                mv: "d6".parse().unwrap(),
                score: 0,
            }],
            leaf_move: Some("f6".parse().unwrap()),
            leaf_score: -3,
        };
        book.set_edax_position(&f5, &extra);
        assert_eq!(book.edax_position(&f5), Some(extra.clone()));
        // After d3 (f5 turned by the a1-h8 diagonal), the same link is c5... as that board's.
        let d3 = after("d3");
        let seen = book.edax_position(&d3).unwrap();
        let s = symmetry_between(&f5, &d3).unwrap();
        assert_eq!(seen.links[0].mv, s.apply_square("d6".parse().unwrap()));
        assert!(d3.moves() & seen.links[0].mv.bit() != 0);
        assert!(d3.moves() & seen.leaf_move.unwrap().bit() != 0);
        // Replacing the entry drops the fields read with it.
        book.insert(&f5, *book.get(&f5).unwrap());
        assert_eq!(book.edax_position(&f5), None);
    }

    #[test]
    fn bad_bytes_name_their_offset() {
        let bytes = small().to_edax().unwrap();
        let e = read(b"# flank book v1 depth=4\n").unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(
            read(b"XADELAVE")
                .unwrap_err()
                .to_string()
                .starts_with("byte 4:")
        );
        let e = read(&bytes[..30]).unwrap_err();
        assert_eq!(e.offset, 30);
        let e = read(&bytes[..bytes.len() - 1]).unwrap_err();
        // The last record (f5 d6, no link) starts 42 bytes before the end.
        assert_eq!(e.offset, bytes.len() - RECORD_MIN_BYTES, "{e}");
        assert!(
            e.what
                .starts_with("the file ends inside position 3 of 3 (42 bytes at least, 41 left)"),
            "{e}"
        );
        let mut big = bytes.clone();
        big[38..42].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = read(&big).unwrap_err();
        assert_eq!(e.offset, 38, "{e}");
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(read(&extra).unwrap_err().offset, bytes.len());
        // A value out of range names the value's bytes.
        let mut bad = bytes.clone();
        bad[HEADER_BYTES + 32] = 100;
        assert_eq!(read(&bad).unwrap_err().offset, HEADER_BYTES + 32);
        // The same position twice.
        let mut twice = bytes[..HEADER_BYTES].to_vec();
        let first = &bytes[HEADER_BYTES..HEADER_BYTES + RECORD_MIN_BYTES + 8];
        twice[38..42].copy_from_slice(&2u32.to_le_bytes());
        twice.extend_from_slice(first);
        twice.extend_from_slice(first);
        let e = Book::from_edax(&twice).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "byte {}: the position at byte {HEADER_BYTES} again (or a symmetric one)",
                HEADER_BYTES + first.len()
            )
        );
    }

    #[test]
    fn inconsistent_records_and_dates_are_refused() {
        let book = small();
        let header = EdaxHeader::new_for(4, 60);
        let records = book.edax_records();
        let start = records
            .iter()
            .position(|r| !r.extra.links.is_empty())
            .expect("the start position links to f5");
        let offset_of = |records: &[EdaxRecord], n: usize| {
            HEADER_BYTES
                + records[..n]
                    .iter()
                    .map(|r| RECORD_MIN_BYTES + 2 * r.extra.links.len())
                    .sum::<usize>()
        };
        // A link given twice.
        let mut twice = records.clone();
        let link = twice[start].extra.links[0];
        twice[start].extra.links.push(link);
        let e = read(&write(&header, &twice).unwrap()).unwrap_err();
        let last = twice[start].extra.links.len() - 1;
        let at = offset_of(&twice, start) + RECORD_FIXED_BYTES + 2 * last + 1;
        assert_eq!(e.offset, at, "{e}");
        assert!(
            e.what.ends_with(&format!("link move {} twice", link.mv)),
            "{e}"
        );
        // The leaf move equal to a link.
        let mut leaf = records.clone();
        leaf[start].extra.leaf_move = Some(link.mv);
        leaf[start].extra.leaf_score = 0;
        let e = read(&write(&header, &leaf).unwrap()).unwrap_err();
        let links = leaf[start].extra.links.len();
        assert_eq!(
            e.offset,
            offset_of(&leaf, start) + RECORD_FIXED_BYTES + 2 * links + 1,
            "{e}"
        );
        assert!(e.what.contains("is also a link"), "{e}");
        // A month out of range names the month's byte.
        let mut bytes = write(&header, &records).unwrap();
        bytes[12] = 254;
        let e = read(&bytes).unwrap_err();
        assert_eq!(
            e.to_string(),
            "byte 12: the header's date has month 254 (expected 1..12)"
        );
        // The all-zero date of a book made without a clock is read.
        let zero = EdaxHeader {
            year: 0,
            month: 0,
            day: 0,
            hour: 0,
            minute: 0,
            second: 0,
            ..header
        };
        assert!(read(&write(&zero, &records).unwrap()).is_ok());
        // The same faults in the text form.
        let bad_hour = {
            let c = header.to_comment();
            let t = c.find('T').unwrap();
            format!("{}T25{}", &c[..t], &c[t + 3..])
        };
        assert_eq!(
            EdaxHeader::parse_comment(&bad_hour).unwrap_err(),
            "the header's date has hour 25 (expected 0..23)"
        );
        let board = records[start].board;
        let field = records[start].extra.to_field();
        let dup = field.replacen(
            &format!("{}:", link.mv),
            &format!("{}:{}/{}:", link.mv, link.score, link.mv),
            1,
        );
        assert!(
            EdaxExtra::parse_field(&dup, &board)
                .unwrap_err()
                .contains("twice"),
            "{dup}"
        );
    }
}
