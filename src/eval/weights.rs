//! The weights file of the trained evaluation: a versioned container of the compact pattern
//! weights, the residual nets and the midgame MPC table, each a zlib stream with its CRC-32,
//! and the copy embedded in the binary, whose nets are decoded on first use.
//!
//! Layout of version 5 ([`VERSION`], what [`encode`] writes; all integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0–7 | magic `FLANKEVL` |
//! | 8–11 | format version (u32) |
//! | 12–15 | phases (u32, must equal [`NUM_PHASES`]) |
//! | 16–19 | compact features per phase (u32, must equal [`Layout::compact_len`]) |
//! | 20–23 | scale: weight units per disc (u32, must equal [`SCALE`]) |
//! | 24–27 | section count `S` (u32, at most 4 + [`NUM_SLOTS`]) |
//! | 28–31 | CRC-32 (IEEE) of the directory |
//! | 32–(32 + 16·`S`) | the directory: per section its id (u32: 0 the linear weights, 1 the MPC table, 2 + slot a net, 2 + [`NUM_SLOTS`] the solver's linear weights, 3 + [`NUM_SLOTS`] the solver's MPC table), its zlib stream's length, its decoded length and the CRC-32 of its zlib stream (u32 each) |
//! | then | the sections' zlib streams in directory order, the last one ending the file |
//!
//! The linear section holds `phases × features` i16 weights in 1/[`SCALE`] discs,
//! feature-major: for each compact feature id, its phase-0 weight and then the difference to
//! the previous phase (wrapping i16), which compresses well because weights change smoothly
//! across phases. A net section holds one net as [`Nets::to_bytes`] writes it; the MPC section
//! is [`MpcTable::to_bytes`]. The optional solver sections ([`SolverWeights`]) hold the linear
//! weights and MPC table that the exact solver orders its moves and cuts with, in the same
//! forms (a file without them: the solver uses the file's own). Sections are separate streams so that a reader decodes only
//! what it uses: [`embedded`] decodes the linear weights (1.9 MB of the built-in file's 45 MB)
//! and the MPC table at once and each net at its first use, which is what lets every flank
//! process answer at once; a weights file given by path is decoded and checked whole.
//!
//! Versions 1–4 (still read) were one zlib stream of one payload after a header whose bytes
//! 24–27 held the payload's CRC-32 and 28–31 its length: the linear weights as above
//! (version 1), then a net section ([`Nets::to_bytes`]; version 2's states 32 units for all
//! nets, version 3's each net's width and nets for one empties count, slots ≥
//! [`NUM_PHASES`]), then (version 4) the MPC table and that section's length (u32).
//!
//! [`Layout::compact_len`]: crate::eval::features::Layout::compact_len

use std::fmt;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use flate2::Compression;
use flate2::bufread::ZlibDecoder;
use flate2::write::ZlibEncoder;

use crate::eval::features::{LAYOUT, NUM_PHASES, SCALE};
use crate::eval::mpc::MpcTable;
use crate::eval::net::{LazyNets, NUM_SLOTS, NetLoader, Nets, PhaseNet, WIDTHS};
pub use crate::eval::pattern::SolverWeights;
use crate::eval::pattern::{PatternEval, SolverLoader};

/// File magic.
pub const MAGIC: &[u8; 8] = b"FLANKEVL";
/// Current format version (what [`encode`] writes; versions 1–4 are also read).
pub const VERSION: u32 = 5;
const HEADER_LEN: usize = 32;

/// The default weights (`weights/flank-eval.bin`, the output of `flank train`), built into the
/// binary.
pub static EMBEDDED: &[u8] = include_bytes!("../../weights/flank-eval.bin");

/// Why a weights file was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// Shorter than the 32-byte header.
    TooShort(usize),
    /// The first 8 bytes are not `FLANKEVL`.
    BadMagic,
    /// A format version this flank does not read.
    UnsupportedVersion(u32),
    /// Phases, features per phase or scale differ from this flank's feature layout
    /// (found, expected), as `(phases, features, scale)`.
    LayoutMismatch {
        /// What the file says.
        found: (u32, u32, u32),
        /// What this flank's layout needs.
        expected: (u32, u32, u32),
    },
    /// The zlib stream is damaged.
    Corrupt(String),
    /// The payload has the wrong length (found, expected), in bytes.
    Length(usize, usize),
    /// The payload length of a file with nets outside its possible range (found, least, most), in bytes.
    NetLength(usize, usize, usize),
    /// The payload's CRC-32 differs from the header's (found, expected).
    Checksum(u32, u32),
    /// Bytes follow the end of the zlib stream (their count).
    TrailingBytes(usize),
    /// The net section is malformed (the reason).
    Net(String),
    /// The MPC section of a version-4 or -5 file is malformed (the reason).
    Mpc(String),
    /// The section directory of a version-5 file is malformed (the reason).
    Directory(String),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::TooShort(n) => {
                write!(
                    f,
                    "not a flank weights file ({n} bytes, header needs {HEADER_LEN})"
                )
            }
            WeightsError::BadMagic => write!(f, "not a flank weights file (bad magic)"),
            WeightsError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "weights format version {v} is not supported (this flank reads 1 to {VERSION})"
                )
            }
            WeightsError::LayoutMismatch { found, expected } => write!(
                f,
                "weights layout (phases, features, scale) {found:?} does not match this flank's {expected:?}: \
                 the file was made by another flank version (retrain with `flank train`)"
            ),
            WeightsError::Corrupt(e) => {
                write!(
                    f,
                    "weights data is corrupt ({e}): file is truncated or damaged"
                )
            }
            WeightsError::Length(n, m) => {
                write!(
                    f,
                    "weights payload has {n} bytes, expected {m}: file is damaged"
                )
            }
            WeightsError::NetLength(n, lo, hi) => write!(
                f,
                "weights payload has {n} bytes, a file with nets has {lo} to {hi}: file is damaged"
            ),
            WeightsError::TrailingBytes(n) => {
                write!(
                    f,
                    "{n} unexpected bytes after the weights data: file is damaged"
                )
            }
            WeightsError::Net(e) => write!(f, "weights file's {e}"),
            WeightsError::Mpc(e) => write!(f, "weights file's {e}: file is damaged"),
            WeightsError::Directory(e) => write!(f, "weights file's {e}: file is damaged"),
            WeightsError::Checksum(a, b) => write!(
                f,
                "weights checksum mismatch (computed {a:08x}, file says {b:08x}): file is damaged"
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

fn expected_layout() -> (u32, u32, u32) {
    (NUM_PHASES as u32, LAYOUT.compact_len as u32, SCALE as u32)
}

/// Encodes compact weights (`weights[phase * compact_len + id]`, 1/[`SCALE`] discs; length
/// `NUM_PHASES × compact_len`) and the residual nets into the file format (version 5, without
/// an MPC table; [`encode_with_mpc`] adds one).
pub fn encode(weights: &[i16], nets: &Nets) -> Vec<u8> {
    encode_full(weights, nets, None, None)
}

/// [`encode`] with the midgame MPC table `mpc`.
pub fn encode_with_mpc(weights: &[i16], nets: &Nets, mpc: &MpcTable) -> Vec<u8> {
    encode_full(weights, nets, Some(mpc), None)
}

/// Section ids of the version-5 directory.
const SECTION_LINEAR: u32 = 0;
const SECTION_MPC: u32 = 1;
const SECTION_NET: u32 = 2;
const SECTION_SOLVER_LINEAR: u32 = SECTION_NET + NUM_SLOTS as u32;
const SECTION_SOLVER_MPC: u32 = SECTION_SOLVER_LINEAR + 1;
const DIR_ENTRY: usize = 16;

/// [`encode`] with an optional MPC table and optional solver weights ([`SolverWeights`]):
/// the version-5 file of their sections.
pub fn encode_full(
    weights: &[i16],
    nets: &Nets,
    mpc: Option<&MpcTable>,
    solver: Option<&SolverWeights>,
) -> Vec<u8> {
    let mut sections = vec![(SECTION_LINEAR, linear_payload(weights))];
    if let Some(t) = mpc {
        sections.push((SECTION_MPC, t.to_bytes()));
    }
    for slot in nets.slot_list() {
        let mut one = Nets::none();
        if let Some(n) = nets.get(slot) {
            one.set(slot, n.clone());
        }
        sections.push((SECTION_NET + slot as u32, one.to_bytes()));
    }
    if let Some(sw) = solver {
        sections.push((SECTION_SOLVER_LINEAR, linear_payload(&sw.linear)));
        if let Some(t) = &sw.mpc {
            sections.push((SECTION_SOLVER_MPC, t.to_bytes()));
        }
    }
    file_of_sections(&sections)
}

/// The version-5 file of `sections` (id, decoded payload), in that order: the header, the
/// directory, each payload's zlib stream.
fn file_of_sections(sections: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let packed: Vec<Vec<u8>> = sections.iter().map(|(_, p)| zlib(p)).collect();
    let mut dir = Vec::with_capacity(DIR_ENTRY * sections.len());
    for ((id, plain), z) in sections.iter().zip(&packed) {
        for v in [*id, z.len() as u32, plain.len() as u32, crc32fast::hash(z)] {
            dir.extend_from_slice(&v.to_le_bytes());
        }
    }
    let (phases, n, scale) = expected_layout();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    for v in [
        VERSION,
        phases,
        n,
        scale,
        sections.len() as u32,
        crc32fast::hash(&dir),
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&dir);
    for z in packed {
        out.extend_from_slice(&z);
    }
    out
}

/// `bytes` as one zlib stream at the best compression.
fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::best());
    // Writing into a Vec cannot fail.
    let _ = z.write_all(bytes);
    z.finish().unwrap_or_default()
}

/// The linear weights as the files hold them: feature-major, each phase as the difference to
/// the previous one.
fn linear_payload(weights: &[i16]) -> Vec<u8> {
    let (phases, n, _) = expected_layout();
    let (phases_us, n_us) = (phases as usize, n as usize);
    let mut payload = Vec::with_capacity(weights.len() * 2);
    for id in 0..n_us {
        let mut prev = 0i16;
        for ph in 0..phases_us {
            let w = weights.get(ph * n_us + id).copied().unwrap_or(0);
            payload.extend_from_slice(&w.wrapping_sub(prev).to_le_bytes());
            prev = w;
        }
    }
    payload
}

/// [`linear_payload`] read back (`payload` holds exactly `NUM_PHASES × compact_len` values).
fn linear_weights(payload: &[u8]) -> Vec<i16> {
    let (phases, n) = (NUM_PHASES, LAYOUT.compact_len);
    let mut weights = vec![0i16; phases * n];
    for (id, deltas) in payload.chunks_exact(2 * phases).enumerate().take(n) {
        let mut prev = 0i16;
        for (ph, d) in deltas.chunks_exact(2).enumerate() {
            prev = prev.wrapping_add(i16::from_le_bytes([d[0], d[1]]));
            weights[ph * n + id] = prev;
        }
    }
    weights
}

/// The version-3 payload: the linear weights, then the net section (the tests write older
/// versions with it).
#[cfg(test)]
fn payload_v3(weights: &[i16], nets: &Nets) -> Vec<u8> {
    let mut payload = linear_payload(weights);
    payload.extend_from_slice(&nets.to_bytes());
    payload
}

/// Wraps `payload` in the header of versions 1–4 (stating `version`) and the zlib stream.
#[cfg(test)]
fn container(version: u32, payload: &[u8]) -> Vec<u8> {
    let (phases, n, scale) = expected_layout();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    for v in [
        version,
        phases,
        n,
        scale,
        crc32fast::hash(payload),
        payload.len() as u32,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let mut z = ZlibEncoder::new(out, Compression::best());
    // Writing into a Vec cannot fail.
    let _ = z.write_all(payload);
    z.finish().unwrap_or_default()
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Decodes a weights file into compact weights and nets (see [`encode`]), checking magic,
/// version, layout, every zlib stream, every length and CRC-32; the MPC table is checked too
/// ([`decode_all`] returns it).
pub fn decode(bytes: &[u8]) -> Result<(Vec<i16>, Nets), WeightsError> {
    decode_all(bytes).map(|(w, n, _)| (w, n))
}

/// Checks magic, version and layout; returns the version.
fn check_header(bytes: &[u8]) -> Result<u32, WeightsError> {
    if bytes.len() < HEADER_LEN {
        return Err(WeightsError::TooShort(bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err(WeightsError::BadMagic);
    }
    let version = u32_at(bytes, 8);
    if !(1..=VERSION).contains(&version) {
        return Err(WeightsError::UnsupportedVersion(version));
    }
    let found = (u32_at(bytes, 12), u32_at(bytes, 16), u32_at(bytes, 20));
    let expected = expected_layout();
    if found != expected {
        return Err(WeightsError::LayoutMismatch { found, expected });
    }
    Ok(version)
}

/// The serialised MPC table's largest size in bytes.
fn mpc_max_len() -> usize {
    use crate::eval::mpc::{MID_BUCKETS, MID_MAX_DEPTH};
    8 + MID_BUCKETS * MID_MAX_DEPTH * (MID_MAX_DEPTH + 1) / 2 * 16
}

/// One section of a version-5 file: its zlib stream, decoded length and the stream's CRC-32.
#[derive(Clone, Copy)]
struct Section<'a> {
    packed: &'a [u8],
    len: usize,
    crc: u32,
}

impl Section<'_> {
    /// The decoded section, its CRC-32, stream, length and end checked.
    fn inflate(&self) -> Result<Vec<u8>, WeightsError> {
        let computed = crc32fast::hash(self.packed);
        if computed != self.crc {
            return Err(WeightsError::Checksum(computed, self.crc));
        }
        let mut out = Vec::with_capacity(self.len);
        // Read at most one byte past the stated length, so a huge stream cannot exhaust memory.
        let mut dec = ZlibDecoder::new(self.packed);
        (&mut dec)
            .take(self.len as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| WeightsError::Corrupt(e.to_string()))?;
        if out.len() != self.len {
            return Err(WeightsError::Length(out.len(), self.len));
        }
        if !dec.get_ref().is_empty() {
            return Err(WeightsError::TrailingBytes(dec.get_ref().len()));
        }
        Ok(out)
    }

    /// The net of `slot` this section holds.
    fn net(&self, slot: usize) -> Result<PhaseNet, WeightsError> {
        let nets = Nets::from_bytes(&self.inflate()?).map_err(WeightsError::Net)?;
        match (nets.slot_list().as_slice(), nets.get(slot)) {
            ([s], Some(n)) if *s == slot => Ok(n.clone()),
            _ => Err(WeightsError::Net(format!(
                "net section of slot {slot} holds the slots {:?}",
                nets.slot_list()
            ))),
        }
    }
}

/// The sections of a version-5 file (header checked), from its directory.
struct Sections<'a> {
    linear: Section<'a>,
    mpc: Option<Section<'a>>,
    nets: Vec<(usize, Section<'a>)>,
    solver_linear: Option<Section<'a>>,
    solver_mpc: Option<Section<'a>>,
}

impl<'a> Sections<'a> {
    /// Reads and checks the directory: its CRC-32, the ids (one linear section, at most one
    /// MPC table, at most one net a slot, at most one of each solver section, a solver MPC
    /// table only with solver linear weights), the decoded lengths against what each section can
    /// hold and the streams' lengths against the file's.
    fn parse(bytes: &'a [u8]) -> Result<Sections<'a>, WeightsError> {
        let bad = |m: String| WeightsError::Directory(m);
        let count = u32_at(bytes, 24) as usize;
        if count > 4 + NUM_SLOTS {
            return Err(bad(format!("directory lists {count} sections")));
        }
        let dir_end = HEADER_LEN + DIR_ENTRY * count;
        let dir = bytes.get(HEADER_LEN..dir_end).ok_or_else(|| {
            bad(format!(
                "directory of {count} sections is truncated ({} bytes)",
                bytes.len()
            ))
        })?;
        let computed = crc32fast::hash(dir);
        if computed != u32_at(bytes, 28) {
            return Err(WeightsError::Checksum(computed, u32_at(bytes, 28)));
        }
        let net_max = 16
            + WIDTHS
                .iter()
                .map(|&h| Nets::net_bytes(h))
                .max()
                .unwrap_or(0);
        let linear_len = NUM_PHASES * LAYOUT.compact_len * 2;
        let (mut linear, mut mpc, mut nets) = (None, None, Vec::new());
        let (mut solver_linear, mut solver_mpc) = (None, None);
        let mut at = dir_end;
        for e in dir.chunks_exact(DIR_ENTRY) {
            let (id, packed_len, len, crc) = (
                u32_at(e, 0),
                u32_at(e, 4) as usize,
                u32_at(e, 8) as usize,
                u32_at(e, 12),
            );
            let packed =
                bytes
                    .get(at..at.saturating_add(packed_len))
                    .ok_or(WeightsError::Length(
                        bytes.len(),
                        at.saturating_add(packed_len),
                    ))?;
            at += packed_len;
            let sec = Section { packed, len, crc };
            match id {
                SECTION_LINEAR if linear.is_none() && len == linear_len => linear = Some(sec),
                SECTION_MPC if mpc.is_none() && len <= mpc_max_len() => mpc = Some(sec),
                SECTION_SOLVER_LINEAR if solver_linear.is_none() && len == linear_len => {
                    solver_linear = Some(sec)
                }
                SECTION_SOLVER_MPC if solver_mpc.is_none() && len <= mpc_max_len() => {
                    solver_mpc = Some(sec)
                }
                _ if id >= SECTION_NET
                    && ((id - SECTION_NET) as usize) < NUM_SLOTS
                    && len <= net_max
                    && !nets.iter().any(|&(s, _)| s == (id - SECTION_NET) as usize) =>
                {
                    nets.push(((id - SECTION_NET) as usize, sec));
                }
                _ => {
                    return Err(bad(format!(
                        "section id {id} of {len} bytes is unknown, repeated or of the wrong size"
                    )));
                }
            }
        }
        if at != bytes.len() {
            return Err(WeightsError::TrailingBytes(bytes.len() - at));
        }
        let linear = linear.ok_or_else(|| bad("directory has no linear weights".into()))?;
        if solver_mpc.is_some() && solver_linear.is_none() {
            return Err(bad(
                "directory has a solver MPC table without solver linear weights".into(),
            ));
        }
        Ok(Sections {
            linear,
            mpc,
            nets,
            solver_linear,
            solver_mpc,
        })
    }

    /// The compact weights (`phase * compact_len + id`).
    fn weights(&self) -> Result<Vec<i16>, WeightsError> {
        Ok(linear_weights(&self.linear.inflate()?))
    }

    /// The MPC table, if the file has one.
    fn mpc(&self) -> Result<Option<MpcTable>, WeightsError> {
        mpc_of(self.mpc)
    }

    /// The solver's weights, if the file has them.
    fn solver(&self) -> Result<Option<SolverWeights>, WeightsError> {
        solver_of(self.solver_linear, self.solver_mpc)
    }
}

/// The MPC table of an MPC section, if there is one.
fn mpc_of(sec: Option<Section<'_>>) -> Result<Option<MpcTable>, WeightsError> {
    sec.map(|s| MpcTable::from_bytes(&s.inflate()?).map_err(WeightsError::Mpc))
        .transpose()
}

/// The solver's weights of its two sections, if there are any.
fn solver_of(
    linear: Option<Section<'_>>,
    mpc: Option<Section<'_>>,
) -> Result<Option<SolverWeights>, WeightsError> {
    let Some(linear) = linear else {
        return Ok(None);
    };
    Ok(Some(SolverWeights {
        linear: linear_weights(&linear.inflate()?),
        mpc: mpc_of(mpc)?,
    }))
}

/// The solver's weights of a weights file ([`SolverWeights`]; `None` for a file without
/// them, which includes every file before version 5): the header, the directory and the
/// solver's sections checked ([`decode_all`] checks the rest).
pub fn decode_solver(bytes: &[u8]) -> Result<Option<SolverWeights>, WeightsError> {
    if check_header(bytes)? < 5 {
        return Ok(None);
    }
    Sections::parse(bytes)?.solver()
}

/// The solver weights a file made from `base` keeps: `base`'s own solver weights, or, if it
/// has none, its linear weights and MPC table (what its solver used).
pub fn base_solver(bytes: &[u8]) -> Result<SolverWeights, WeightsError> {
    match decode_solver(bytes)? {
        Some(s) => Ok(s),
        None => {
            let (linear, _, mpc) = decode_all(bytes)?;
            Ok(SolverWeights { linear, mpc })
        }
    }
}

/// [`decode`], also returning the midgame MPC table (`None` before version 4 and in a file
/// without one).
pub fn decode_all(bytes: &[u8]) -> Result<(Vec<i16>, Nets, Option<MpcTable>), WeightsError> {
    let version = check_header(bytes)?;
    if version >= 5 {
        let s = Sections::parse(bytes)?;
        let mut nets = Nets::none();
        for &(slot, sec) in &s.nets {
            nets.set(slot, sec.net(slot)?);
        }
        return Ok((s.weights()?, nets, s.mpc()?));
    }
    let expected = expected_layout();
    let crc = u32_at(bytes, 24);
    let len = u32_at(bytes, 28) as usize;
    let (phases, n) = (expected.0 as usize, expected.1 as usize);
    let linear = phases * n * 2;
    // Versions 2 and 3: the linear weights, then a net section of at most one net per slot.
    let mpc_len = mpc_max_len() + 4;
    let max_nets =
        8 + NUM_SLOTS * (8 + Nets::net_bytes(64)) + if version >= 4 { mpc_len } else { 0 };
    if version == 1 && len != linear {
        return Err(WeightsError::Length(len, linear));
    }
    if version != 1 && !(linear + 8..=linear + max_nets).contains(&len) {
        return Err(WeightsError::NetLength(len, linear + 8, linear + max_nets));
    }
    let mut payload = Vec::with_capacity(len);
    // Read at most one byte past the stated length, so a huge stream cannot exhaust memory.
    let mut dec = ZlibDecoder::new(&bytes[HEADER_LEN..]);
    (&mut dec)
        .take(len as u64 + 1)
        .read_to_end(&mut payload)
        .map_err(|e| WeightsError::Corrupt(e.to_string()))?;
    if payload.len() != len {
        return Err(WeightsError::Length(payload.len(), len));
    }
    if !dec.get_ref().is_empty() {
        return Err(WeightsError::TrailingBytes(dec.get_ref().len()));
    }
    let computed = crc32fast::hash(&payload);
    if computed != crc {
        return Err(WeightsError::Checksum(computed, crc));
    }
    let weights = linear_weights(&payload[..linear]);
    let (net_end, mpc) = if version >= 4 {
        let tail = u32_at(&payload, payload.len() - 4) as usize;
        let start = (payload.len() - 4)
            .checked_sub(tail)
            .filter(|&s| s >= linear)
            .ok_or_else(|| WeightsError::Mpc(format!("MPC section length {tail} is too large")))?;
        let table =
            MpcTable::from_bytes(&payload[start..payload.len() - 4]).map_err(WeightsError::Mpc)?;
        (start, Some(table))
    } else {
        (payload.len(), None)
    };
    let nets = if version == 1 {
        Nets::none()
    } else {
        Nets::from_bytes(&payload[linear..net_end]).map_err(WeightsError::Net)?
    };
    Ok((weights, nets, mpc))
}

/// The weights file `base` with the net at each empties count in `empties` replaced by the
/// ensemble of `base`'s and `other`'s nets there ([`crate::eval::net::PhaseNet::average`]:
/// `(1 - w)` × base's correction + `w` × other's); everything else is `base`'s. Errors: a
/// file that does not decode (the message starts `BASE:` or `OTHER:`), a count where either
/// file has no net of its own (the message names `BASE` or `OTHER`), widths that
/// add up to no known width (64 + 128 = 192 do), `w` outside [0, 1].
pub fn ensemble(base: &[u8], other: &[u8], empties: &[u32], w: f64) -> Result<Vec<u8>, String> {
    if !(0.0..=1.0).contains(&w) {
        return Err(format!("the weight {w} is not in [0, 1]"));
    }
    let (weights, mut nets, mpc) = decode_all(base).map_err(|e| format!("BASE: {e}"))?;
    let (_, other_nets) = decode(other).map_err(|e| format!("OTHER: {e}"))?;
    for &e in empties {
        let slot = crate::eval::net::empties_slot(e.min(60));
        let (a, b) = match (nets.get(slot), other_nets.get(slot)) {
            (Some(a), Some(b)) => (a, b),
            (None, None) => {
                return Err(format!("neither file has a net of its own at {e} empties"));
            }
            (None, _) => return Err(format!("BASE has no net of its own at {e} empties")),
            (_, None) => return Err(format!("OTHER has no net of its own at {e} empties")),
        };
        let m = a.average(b, w).ok_or_else(|| {
            format!(
                "cannot average a {}-unit and a {}-unit net at {e} empties (the widths must add up to one of {:?}: a 64- and a 128-unit net)",
                a.hidden(),
                b.hidden(),
                crate::eval::net::WIDTHS
            )
        })?;
        nets.set(slot, m);
    }
    // The MPC table was fitted with the base's nets; it is kept as the closest calibration,
    // and the base's solver weights (if any) as they are.
    let solver = decode_solver(base).map_err(|e| format!("BASE: {e}"))?;
    Ok(encode_full(&weights, &nets, mpc.as_ref(), solver.as_ref()))
}

/// The evaluator of the weights built into the binary ([`EMBEDDED`]): the linear weights and
/// the MPC table decoded now, each net at its first use (a net that should fail to decode is
/// reported on stderr and left out). The unit tests decode every section of [`EMBEDDED`].
pub fn embedded() -> Result<PatternEval, WeightsError> {
    lazy_evaluator(EMBEDDED)
}

/// [`embedded`] for any weights file that lives as long as the process; files before version 5
/// are decoded whole.
fn lazy_evaluator(bytes: &'static [u8]) -> Result<PatternEval, WeightsError> {
    if check_header(bytes)? < 5 {
        return evaluator_from_bytes(bytes);
    }
    let s = Sections::parse(bytes)?;
    let w = s.weights()?;
    let loaders = s
        .nets
        .iter()
        .map(|&(slot, sec)| {
            let load: NetLoader = Arc::new(move || {
                sec.net(slot)
                    .map_err(|e| {
                        eprintln!("flank: the weights' net of slot {slot} is unusable ({e}); evaluating without it");
                    })
                    .ok()
            });
            (slot, load)
        })
        .collect();
    let solver = s.solver_linear.map(|linear| {
        let mpc = s.solver_mpc;
        SolverLoader(Arc::new(move || {
            solver_of(Some(linear), mpc)
                .map_err(|e| {
                    eprintln!("flank: the weights' solver section is unusable ({e}); the solver uses the main weights");
                })
                .ok()
                .flatten()
        }))
    });
    let n = LAYOUT.compact_len;
    Ok(PatternEval::from_compact(&w)
        .ok_or(WeightsError::Length(w.len() * 2, NUM_PHASES * n * 2))?
        .with_lazy_nets(LazyNets::packed(loaders))
        .with_mpc(s.mpc()?)
        .with_solver(solver))
}

/// Decodes a weights file into an evaluator, every section at once.
pub fn evaluator_from_bytes(bytes: &[u8]) -> Result<PatternEval, WeightsError> {
    let (w, nets, mpc) = decode_all(bytes)?;
    let solver = decode_solver(bytes)?.map(|sw| SolverLoader(Arc::new(move || Some(sw.clone()))));
    let n = LAYOUT.compact_len;
    Ok(PatternEval::from_compact(&w)
        .ok_or(WeightsError::Length(w.len() * 2, NUM_PHASES * n * 2))?
        .with_nets(nets)
        .with_mpc(mpc)
        .with_solver(solver))
}

/// Reads and decodes a weights file. Errors name the file and the reason.
pub fn load_file(path: &Path) -> anyhow::Result<PatternEval> {
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow::anyhow!("cannot read weights file {}: {e}", path.display()))?;
    evaluator_from_bytes(&bytes)
        .map_err(|e| anyhow::anyhow!("bad weights file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let n = NUM_PHASES * LAYOUT.compact_len;
        let w: Vec<i16> = (0..n).map(|i| ((i * 7919) % 2001) as i16 - 1000).collect();
        let bytes = encode(&w, &Nets::none());
        assert_eq!(decode(&bytes), Ok((w.clone(), Nets::none())));
        assert_eq!(decode(&bytes[..10]), Err(WeightsError::TooShort(10)));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert_eq!(decode(&bad), Err(WeightsError::BadMagic));
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert_eq!(decode(&bad), Err(WeightsError::UnsupportedVersion(9)));
        let mut bad = bytes.clone();
        bad[24] ^= 1;
        assert!(matches!(decode(&bad), Err(WeightsError::Checksum(_, _))));
        let bad = &bytes[..bytes.len() - 20];
        assert!(decode(bad).is_err());
    }

    /// Weights of a phase-only value, and a net for phase 2 whose correction is not zero.
    fn sample_weights_and_net() -> (Vec<i16>, Nets) {
        let n = LAYOUT.compact_len;
        let w: Vec<i16> = (0..NUM_PHASES * n).map(|i| (i % 97) as i16 - 48).collect();
        let mut net = crate::eval::net::Net::<32>::zero();
        for (i, r) in net.rows.iter_mut().enumerate().step_by(7) {
            r.0[i % 32] = (i % 500) as i16;
        }
        net.bias = [300; 32];
        net.out = std::array::from_fn(|k| k as i16 * 40 - 600);
        net.out_bias = 12_345_678;
        let mut nets = Nets::none();
        nets.set(2, crate::eval::net::PhaseNet::W32(net));
        (w, nets)
    }

    /// One random legal move (or the pass) from `b`, drawn with the xorshift state `x`.
    fn random_step(b: crate::othello::board::Board, x: &mut u64) -> crate::othello::board::Board {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        let moves: Vec<_> = b.legal_moves().collect();
        match moves.len() {
            0 => b.pass(),
            k => b.make_move(moves[(*x % k as u64) as usize]),
        }
    }

    /// Nets go through the file unchanged and change the evaluation only in their phase.
    #[test]
    fn nets_survive_the_file_and_apply_to_their_phase() {
        let (w, nets) = sample_weights_and_net();
        let bytes = encode(&w, &nets);
        assert_eq!(decode(&bytes), Ok((w.clone(), nets.clone())));
        let with = evaluator_from_bytes(&bytes).unwrap();
        let without = PatternEval::from_compact(&w).unwrap();
        let mut differs = 0;
        let mut b = crate::othello::board::Board::start();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        while !b.is_game_over() {
            let ph = crate::eval::features::phase(b.empties());
            if ph == 2 {
                differs += usize::from(with.evaluate_fine(&b) != without.evaluate_fine(&b));
            } else {
                assert_eq!(with.evaluate_fine(&b), without.evaluate_fine(&b));
            }
            assert_eq!(with.linear_fine(&b), without.evaluate_fine(&b));
            b = random_step(b, &mut x);
        }
        assert!(differs > 0, "the phase-2 net never changed a value");
    }

    /// A net for one empties count goes through the file and replaces its phase's net at that
    /// count only; a version-2 container of phase nets still loads.
    #[test]
    fn empties_nets_take_precedence_at_their_count_only() {
        let (w, phase_only) = sample_weights_and_net();
        let mut nets = phase_only.clone();
        let mut five = phase_only.get(2).unwrap().clone();
        // 1/(ACT_SCALE·OUT_SCALE) discs: 10 discs = 640 fine units more than the phase net.
        if let crate::eval::net::PhaseNet::W32(n) = &mut five {
            n.out_bias += 10 * (crate::eval::net::ACT_SCALE * crate::eval::net::OUT_SCALE);
        }
        nets.set(crate::eval::net::empties_slot(5), five);
        let bytes = encode(&w, &nets);
        assert_eq!(decode(&bytes), Ok((w.clone(), nets.clone())));
        let both = evaluator_from_bytes(&bytes).unwrap();
        let only = evaluator_from_bytes(&encode(&w, &phase_only)).unwrap();
        let (mut fours, mut fives) = (0, 0);
        for seed in 0..40u64 {
            let mut b = crate::othello::board::Board::start();
            let mut x = 0x9E37_79B9_7F4A_7C15 ^ seed;
            while !b.is_game_over() {
                let d = both.evaluate_fine(&b) - only.evaluate_fine(&b);
                match b.empties() {
                    5 => {
                        assert_eq!(d, 10 * crate::eval::features::SCALE, "{b:?}");
                        fives += 1;
                    }
                    _ => assert_eq!(d, 0, "{b:?}"),
                }
                fours += usize::from(b.empties() == 4);
                b = random_step(b, &mut x);
            }
        }
        assert!(fours > 0 && fives > 0);
        // The same phase nets in version-2 and -3 containers (the layout is the same).
        let payload = payload_v3(&w, &phase_only);
        assert_eq!(
            decode(&container(2, &payload)),
            Ok((w.clone(), phase_only.clone()))
        );
        assert_eq!(decode(&container(3, &payload)), Ok((w, phase_only)));
    }

    /// A version-4 file: the version-3 payload, the MPC table and its length.
    fn encode_v4(w: &[i16], nets: &Nets, table: &MpcTable) -> Vec<u8> {
        let mut payload = payload_v3(w, nets);
        let section = table.to_bytes();
        payload.extend_from_slice(&section);
        payload.extend_from_slice(&(section.len() as u32).to_le_bytes());
        container(4, &payload)
    }

    /// The MPC table goes through version-5 files and is read from version-4 files; version 3
    /// files have none; a damaged MPC section is named.
    #[test]
    fn mpc_tables_survive_the_file() {
        let (w, nets) = sample_weights_and_net();
        let samples: Vec<(u32, Vec<crate::othello::board::Score>)> = (0..30)
            .map(|i| (40, vec![i, i + 1, 2 * i, i - 3]))
            .collect();
        let table = MpcTable::from_samples(&samples);
        let v5 = encode_with_mpc(&w, &nets, &table);
        assert_eq!(u32_at(&v5, 8), 5);
        let v4 = encode_v4(&w, &nets, &table);
        for file in [&v5, &v4] {
            assert_eq!(
                decode_all(file),
                Ok((w.clone(), nets.clone(), Some(table.clone())))
            );
            assert_eq!(decode(file), Ok((w.clone(), nets.clone())));
            let e = evaluator_from_bytes(file).unwrap();
            assert_eq!(e.mpc(), Some(&table));
        }
        let v3 = container(3, &payload_v3(&w, &nets));
        assert_eq!(decode_all(&v3), Ok((w.clone(), nets.clone(), None)));
        assert_eq!(
            decode_all(&encode(&w, &nets)),
            Ok((w.clone(), nets.clone(), None))
        );
        // A tail length pointing before the linear weights, and a damaged section.
        let mut dec = ZlibDecoder::new(&v4[HEADER_LEN..]);
        let mut payload = Vec::new();
        dec.read_to_end(&mut payload).unwrap();
        let mut bad = payload.clone();
        let at = bad.len() - 4;
        bad[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&container(4, &bad)),
            Err(WeightsError::Mpc(_))
        ));
        let mut bad = payload.clone();
        bad[at - 20] ^= 0xff; // inside the last fit's sigma or n
        let r = decode_all(&container(4, &bad));
        assert!(
            r.is_err() || r.unwrap().2 != Some(table),
            "damage must not go unseen"
        );
    }

    /// A version-5 file's lazy evaluator gives the eager one's values, decodes a net only
    /// when a position of its empties is evaluated, and a damaged net section is refused by
    /// the eager decoder and left out (not used) by the lazy one.
    #[test]
    fn lazy_nets_give_the_same_values_and_decode_on_first_use() {
        let (w, phase_only) = sample_weights_and_net();
        let mut nets = phase_only.clone();
        let five = phase_only.get(2).unwrap().clone();
        nets.set(crate::eval::net::empties_slot(5), five);
        let bytes: &'static [u8] = Box::leak(encode(&w, &nets).into_boxed_slice());
        let eager = evaluator_from_bytes(bytes).unwrap();
        let lazy = lazy_evaluator(bytes).unwrap();
        assert_eq!(lazy.nets().slot_list(), nets.slot_list());
        assert!(lazy.nets().decoded().is_empty());
        let mut b = crate::othello::board::Board::start();
        let mut x: u64 = 0x1234_5678_9abc_def1;
        while b.empties() > 5 {
            assert_eq!(lazy.evaluate_fine(&b), eager.evaluate_fine(&b));
            b = random_step(b, &mut x);
        }
        assert!(
            lazy.nets().decoded().is_empty(),
            "no net below 6 empties yet"
        );
        assert_eq!(lazy.evaluate_fine(&b), eager.evaluate_fine(&b));
        assert_eq!(
            lazy.nets().decoded(),
            vec![crate::eval::net::empties_slot(5)]
        );
        assert_eq!(lazy.nets().to_nets(), nets);
        // Damage the last byte of the last section (a net's zlib stream).
        let mut bad = bytes.to_vec();
        let last = bad.len() - 1;
        bad[last] ^= 0x5a;
        assert!(matches!(decode(&bad), Err(WeightsError::Checksum(_, _))));
        let bad: &'static [u8] = Box::leak(bad.into_boxed_slice());
        let lazy = lazy_evaluator(bad).unwrap();
        assert_eq!(
            lazy.nets().to_nets().slot_list().len(),
            nets.slot_list().len() - 1
        );
    }

    /// Every cut of a version-5 file and every byte flipped in its header and directory is
    /// refused with an error (never a panic, never a wrong file accepted).
    #[test]
    fn damaged_version_5_files_are_refused() {
        let (w, nets) = sample_weights_and_net();
        let table = MpcTable::from_samples(&[(40, vec![1, 2, 3, 4])]);
        let bytes = encode_with_mpc(&w, &nets, &table);
        let dir_end = HEADER_LEN + DIR_ENTRY * u32_at(&bytes, 24) as usize;
        for cut in (0..bytes.len()).step_by(997).chain(0..dir_end + 3) {
            assert!(decode_all(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in 8..dir_end {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(decode_all(&bad).is_err(), "flip at {at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode_all(&longer), Err(WeightsError::TrailingBytes(1)));
    }

    /// The solver sections survive the file (eagerly and lazily decoded, and through
    /// [`ensemble`]); a file without them gives its own weights as [`base_solver`]; a solver
    /// MPC table without solver linear weights, or a repeated solver section, is refused.
    #[test]
    fn solver_weights_survive_the_file() {
        let (w, nets) = sample_weights_and_net();
        let table = MpcTable::from_samples(&[(40, vec![1, 2, 3, 4])]);
        let other = MpcTable::from_samples(&[(40, vec![4, 3, 2, 1])]);
        let sw = SolverWeights {
            linear: w.iter().map(|&x| x.wrapping_mul(3)).collect(),
            mpc: Some(other.clone()),
        };
        let bytes = encode_full(&w, &nets, Some(&table), Some(&sw));
        assert_eq!(
            decode_all(&bytes),
            Ok((w.clone(), nets.clone(), Some(table.clone())))
        );
        assert_eq!(decode_solver(&bytes), Ok(Some(sw.clone())));
        assert_eq!(base_solver(&bytes), Ok(sw.clone()));
        let plain = encode_with_mpc(&w, &nets, &table);
        assert_eq!(decode_solver(&plain), Ok(None));
        let own = SolverWeights {
            linear: w.clone(),
            mpc: Some(table.clone()),
        };
        assert_eq!(base_solver(&plain), Ok(own));
        let eager = evaluator_from_bytes(&bytes).unwrap().solver_eval().unwrap();
        let leaked: &'static [u8] = Box::leak(bytes.clone().into_boxed_slice());
        let lazy = lazy_evaluator(leaked).unwrap().solver_eval().unwrap();
        let direct = PatternEval::from_compact(&sw.linear)
            .unwrap()
            .with_nets(nets.clone());
        let mut b = crate::othello::board::Board::start();
        let mut x: u64 = 0x0dd_e7e4;
        while b.empties() > 2 {
            assert_eq!(eager.evaluate_fine(&b), direct.evaluate_fine(&b));
            assert_eq!(lazy.evaluate_fine(&b), direct.evaluate_fine(&b));
            b = random_step(b, &mut x);
        }
        assert_eq!(eager.mpc(), Some(&other));
        assert!(
            evaluator_from_bytes(&plain)
                .unwrap()
                .solver_eval()
                .is_none()
        );
        let joined = ensemble(&bytes, &bytes, &[], 0.5).unwrap();
        assert_eq!(decode_solver(&joined), Ok(Some(sw.clone())));
        // A solver MPC table alone, and the solver's linear weights twice.
        let lin = (SECTION_LINEAR, linear_payload(&w));
        assert_eq!(
            decode_all(&file_of_sections(std::slice::from_ref(&lin))).map(|d| d.0),
            Ok(w.clone())
        );
        let alone = file_of_sections(&[lin.clone(), (SECTION_SOLVER_MPC, other.to_bytes())]);
        assert!(matches!(
            decode_all(&alone),
            Err(WeightsError::Directory(_))
        ));
        let twice = file_of_sections(&[
            lin.clone(),
            (SECTION_SOLVER_LINEAR, linear_payload(&w)),
            (SECTION_SOLVER_LINEAR, linear_payload(&w)),
        ]);
        assert!(matches!(
            decode_all(&twice),
            Err(WeightsError::Directory(_))
        ));
    }

    /// Version 1 files (linear weights only) still load; a damaged net section is named.
    #[test]
    fn version_1_files_load_and_bad_net_sections_are_named() {
        let (w, nets) = sample_weights_and_net();
        let linear_len = 2 * w.len();
        let payload = payload_v3(&w, &nets);
        let v1 = container(1, &payload[..linear_len]);
        assert_eq!(decode(&v1), Ok((w.clone(), Nets::none())));
        let mut bad = payload.clone();
        bad[linear_len] = 16; // hidden units
        assert!(matches!(
            decode(&container(3, &bad)),
            Err(WeightsError::Net(_))
        ));
        let cut = container(3, &payload[..payload.len() - 2]);
        assert!(matches!(decode(&cut), Err(WeightsError::Net(_))));
    }

    /// The built-in weights decode whole (every net section checked), and their lazy evaluator
    /// starts with no net decoded.
    #[test]
    fn embedded_weights_decode() {
        let (_, nets, mpc) = decode_all(EMBEDDED).unwrap();
        assert!(mpc.is_some());
        let lazy = embedded().unwrap();
        assert_eq!(lazy.nets().slot_list(), nets.slot_list());
        assert!(lazy.nets().decoded().is_empty());
    }

    /// `ensemble` keeps the base's linear weights and other nets and joins the nets at the
    /// listed counts; files without a net there, or widths that do not add up, are refused.
    #[test]
    fn ensemble_joins_the_nets_at_the_listed_counts() {
        use crate::eval::net::{Net, PhaseNet, empties_slot};
        fn net<const H: usize>(v: i16) -> Net<H> {
            let mut n = Net::<H>::zero();
            n.rows[3].0[1] = v;
            n.out[1] = 2 * v;
            n.out_bias = 1000 * v as i32;
            n
        }
        let n = NUM_PHASES * LAYOUT.compact_len;
        let w: Vec<i16> = (0..n).map(|i| (i % 89) as i16 - 44).collect();
        let mut base_nets = Nets::none();
        base_nets.set(empties_slot(4), PhaseNet::W32(net::<32>(5)));
        base_nets.set(empties_slot(5), PhaseNet::W64(net::<64>(7)));
        let mut other_nets = Nets::none();
        other_nets.set(empties_slot(5), PhaseNet::W128(net::<128>(9)));
        let base = encode(&w, &base_nets);
        let other = encode(&vec![0; n], &other_nets);
        let (w2, nets) = decode(&ensemble(&base, &other, &[5], 0.5).unwrap()).unwrap();
        assert_eq!(w2, w);
        assert_eq!(nets.slot_list(), base_nets.slot_list());
        assert_eq!(nets.get(empties_slot(4)), base_nets.get(empties_slot(4)));
        let want = base_nets
            .get(empties_slot(5))
            .unwrap()
            .average(other_nets.get(empties_slot(5)).unwrap(), 0.5);
        assert_eq!(nets.get(empties_slot(5)), want.as_ref());
        assert_eq!(want.map(|m| m.hidden()), Some(192));
        let err = ensemble(&base, &other, &[4], 0.5).unwrap_err();
        assert!(err.contains("at 4 empties"), "{err}");
        let has4 = |b: &[u8]| decode(b).unwrap().1.get(empties_slot(4)).is_some();
        let lacking = if has4(&base) { "OTHER" } else { "BASE" };
        assert!(err.starts_with(lacking), "{err}");
        let err = ensemble(&base, &base[..20], &[5], 0.5).unwrap_err();
        assert!(err.starts_with("OTHER: "), "{err}");
    }
}
