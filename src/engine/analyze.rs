//! Multi-PV analysis: the best few moves of a position, each with its own score and principal variation (GTP `flank-hint`, `flank analyze`).
//!
//! Simple and exact in what it claims: every legal root move is searched on its own, with a
//! full window (an aspiration window around its previous score, widened until the score lies
//! inside), so each move's score is that move's value at the depth searched, not a bound.
//! Iterative deepening: depth 1 (every child evaluated, never stopped, so there is always a
//! result), then depth 2, 3, … where each child is searched by the midgame PVS one ply less
//! deep, the moves in the order of the previous iteration's scores, sharing the engine's
//! transposition table. When the empties are few enough (the rules of [`SolveMode::Auto`],
//! see [`analyze`]) each child is solved exactly instead and the scores are final disc
//! differences. A stop (the engine's stop flag) or the hard deadline abandons the running
//! iteration: the result is the last complete set of scores.
//!
//! Scores are in discs from the side to move's view (final disc difference, empties to the
//! winner, when exact); times are in ms. The midgame searches run on one thread; exact solves
//! use the engine's threads (YBWC) when it has more than one.

use std::time::{Duration, Instant};

use crate::engine::{
    AUTO_SOLVE_EMPTIES, AUTO_TRY_SOLVE_EMPTIES, AUTO_UNTIMED_SOLVE_EMPTIES, DEFAULT_DEPTH, Engine,
    SearchLimits, SolveMode,
};
use crate::othello::board::{Board, Score};
use crate::othello::square::{Move, Square};
use crate::search::Searcher;
use crate::search::midgame::leaf_eval;

/// One root move and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveScore {
    /// The move (never a pass).
    pub mv: Square,
    /// Its score in discs, side to move's view: an estimate at `depth` plies, or the final
    /// disc difference under perfect play (empties to the winner) when `exact`.
    pub score: Score,
    /// True if `score` is an exact solve.
    pub exact: bool,
    /// Depth of the search in plies, counting the move itself (for an exact score: the
    /// position's empties).
    pub depth: u32,
    /// Principal variation, starting with `mv` (read from the transposition table after a
    /// midgame search, so it may be shorter than `depth`; a whole line to the end of the game
    /// when exact).
    pub pv: Vec<Move>,
}

/// The result of [`analyze`]: the best moves of the side to move, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The `n` best moves asked for (fewer if fewer are legal), best first; ties keep the
    /// order of the previous iteration. Empty when the side to move has no legal move.
    pub moves: Vec<MoveScore>,
    /// Depth of the last complete iteration in plies (the empties for an exact set, 0 when no
    /// move is legal).
    pub depth: u32,
    /// True if every score in `moves` is exact.
    pub exact: bool,
    /// Nodes searched, in total.
    pub nodes: u64,
    /// Time since the analysis started, in ms.
    pub time_ms: u64,
}

impl Analysis {
    /// Nodes per second over the whole analysis (nodes / max(time, 1 ms)).
    pub fn nps(&self) -> u64 {
        let nps = u128::from(self.nodes) * 1000 / u128::from(self.time_ms.max(1));
        u64::try_from(nps).unwrap_or(u64::MAX)
    }
}

/// One move as `flank-hint` and `flank analyze` print it: `MOVE SCORE KIND PV…`, for example
/// `g8 +18 exact g8 h7 a8` or `d3 +2 depth=9 d3 c3 c4`: the move, its score in discs (side to
/// move's view, always signed: `+0` for a draw), `exact` for a solved score or `depth=D` for
/// a midgame estimate at D plies, then the principal variation (starting with the move).
pub fn move_line(m: &MoveScore) -> String {
    let kind = if m.exact {
        "exact".to_string()
    } else {
        format!("depth={}", m.depth)
    };
    let pv: Vec<String> = m.pv.iter().map(|x| x.to_string()).collect();
    format!("{} {:+} {kind} {}", m.mv, m.score, pv.join(" "))
}

/// The progress lines of one iteration (what `flank-hint` and `flank analyze --verbose`
/// write on stderr): one per reported move, `info depth D multipv K score S[ exact] nodes N
/// time MS nps X pv …` (K = 1 for the best move).
pub fn info_lines(a: &Analysis) -> Vec<String> {
    a.moves
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let pv: Vec<String> = m.pv.iter().map(|x| x.to_string()).collect();
            format!(
                "info depth {} multipv {} score {:+}{} nodes {} time {} nps {} pv {}",
                a.depth,
                k + 1,
                m.score,
                if m.exact { " exact" } else { "" },
                a.nodes,
                a.time_ms,
                a.nps(),
                pv.join(" ")
            )
        })
        .collect()
}

/// The `n` best moves of the side to move in `board` (`n` is clamped to 1..=the number of
/// legal moves), each with its own score and principal variation, within `limits`.
///
/// - `limits.mode`: [`SolveMode::Exact`] (or [`SolveMode::Wld`], treated the same) solves
///   every move exactly (with a time limit, after midgame iterations in a quarter of the soft
///   time, the solves bounded by the hard deadline or twice the soft time, the midgame scores
///   kept if they do not finish); [`SolveMode::Midgame`] never solves; [`SolveMode::Auto`] solves at
///   once at ≤ [`AUTO_SOLVE_EMPTIES`] empties (≤ [`AUTO_UNTIMED_SOLVE_EMPTIES`] with no depth
///   and no time limit), and with a time limit at ≤ [`AUTO_TRY_SOLVE_EMPTIES`] empties gives
///   the midgame a quarter of the soft time, then tries to solve every move before the hard
///   deadline (or twice the soft time), keeping the midgame scores if that does not finish.
/// - `limits.depth`: the deepest midgame iteration in plies (default: unbounded within a time
///   limit, else [`DEFAULT_DEPTH`]; never more than the empties).
/// - `limits.time_ms`: no new iteration starts after this many ms; `limits.deadline` and the
///   engine's stop flag ([`Engine::stop_handle`]) abandon the running iteration.
///
/// `on_iter` sees every completed iteration (its `n` best moves). A position without a
/// legal move gives an empty `moves` list (the caller answers pass or game over).
pub fn analyze(
    engine: &mut Engine,
    board: &Board,
    n: usize,
    limits: &SearchLimits,
    on_iter: &mut dyn FnMut(&Analysis),
) -> Analysis {
    let start = Instant::now();
    let mut s = engine.searcher(limits.deadline);
    let legal = board.moves();
    if legal == 0 {
        return Analysis {
            moves: Vec::new(),
            depth: 0,
            exact: board.is_game_over(),
            nodes: 0,
            time_ms: elapsed_ms(start),
        };
    }
    let n = n.clamp(1, legal.count_ones() as usize);
    let empties = board.empties();
    let after = |ms: u64| start.checked_add(Duration::from_millis(ms));
    let soft = limits.time_ms.and_then(after);
    let timed = soft.is_some() || limits.deadline.is_some();
    let forced = matches!(limits.mode, SolveMode::Exact | SolveMode::Wld);
    let (solve_now, try_solve) = match limits.mode {
        // With a time limit, a quarter of it first gives midgame scores to fall back on.
        SolveMode::Exact | SolveMode::Wld => (!timed, timed),
        SolveMode::Midgame => (false, false),
        SolveMode::Auto => {
            let now = empties <= AUTO_SOLVE_EMPTIES
                || (!timed && limits.depth.is_none() && empties <= AUTO_UNTIMED_SOLVE_EMPTIES);
            (now, !now && timed && empties <= AUTO_TRY_SOLVE_EMPTIES)
        }
    };
    let snapshot = |set: &[MoveScore], depth: u32, exact: bool, nodes: u64| Analysis {
        moves: set[..n].to_vec(),
        depth,
        exact,
        nodes,
        time_ms: elapsed_ms(start),
    };

    let mut set = depth_one(&mut s, board);
    let mut result = snapshot(&set, 1, false, s.nodes);
    on_iter(&result);
    if !solve_now {
        let max = limits
            .depth
            .unwrap_or(if timed { 60 } else { DEFAULT_DEPTH })
            .min(empties);
        // Before a solve attempt the midgame gets a quarter of the soft time, as in
        // `Engine::search`.
        let mid_soft = match (try_solve, limits.time_ms) {
            (true, Some(ms)) => after(ms / 4),
            _ => soft,
        };
        // The midgame iterations use the engine's ProbCut setting; solves never do.
        s.set_mid_mpc(engine.mid_mpc());
        for depth in 2..=max {
            if mid_soft.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            match iteration(&mut s, board, depth, &set) {
                Some(next) => set = next,
                None => break,
            }
            result = snapshot(&set, depth, false, s.nodes);
            on_iter(&result);
        }
    }
    s.set_mid_mpc(None);
    let room = !s.stopped && (forced || soft.is_none_or(|t| Instant::now() < t));
    if solve_now || (try_solve && room) {
        if try_solve {
            let solve_deadline = limits
                .deadline
                .or_else(|| limits.time_ms.and_then(|ms| after(ms.saturating_mul(2))));
            s.set_deadline(solve_deadline);
        }
        if let Some(solved) = solve_all(&mut s, board, &set) {
            result = snapshot(&solved, empties, true, s.nodes);
            on_iter(&result);
        }
    }
    result.nodes = s.nodes;
    result.time_ms = elapsed_ms(start);
    result
}

/// Sorts a set best first; the sort is stable, so ties keep their earlier order.
fn sort(set: &mut [MoveScore]) {
    set.sort_by_key(|m| std::cmp::Reverse(m.score));
}

/// Depth 1: every child's static value (never stopped, so a result always exists).
fn depth_one(s: &mut Searcher, board: &Board) -> Vec<MoveScore> {
    let mut set = Vec::new();
    let mut m = board.moves();
    s.nodes += 1;
    while m != 0 {
        let sq = Square::from_index(m.trailing_zeros() as u8);
        m &= m - 1;
        let child = board.make_move(sq);
        s.nodes += 1;
        set.push(MoveScore {
            mv: sq,
            score: -leaf_eval(&child),
            exact: false,
            depth: 1,
            pv: vec![Move::Play(sq)],
        });
    }
    sort(&mut set);
    set
}

/// One midgame iteration at `depth` ≥ 2 plies: every move of `prev` (in its order) searched
/// to `depth - 1` plies below it, with an aspiration window around its previous score that
/// widens until the score lies inside. `None` if stopped.
fn iteration(
    s: &mut Searcher,
    board: &Board,
    depth: u32,
    prev: &[MoveScore],
) -> Option<Vec<MoveScore>> {
    let mut set = Vec::with_capacity(prev.len());
    for p in prev {
        let child = board.make_move(p.mv);
        let (v, _) = s.mid_root(&child, depth - 1, Some(-p.score))?;
        let mut pv = vec![Move::Play(p.mv)];
        pv.extend(s.tt_pv(&child, depth - 1));
        set.push(MoveScore {
            mv: p.mv,
            score: -v,
            exact: false,
            depth,
            pv,
        });
    }
    sort(&mut set);
    Some(set)
}

/// Every move of `prev` solved exactly (each child with the full window). `None` if stopped.
fn solve_all(s: &mut Searcher, board: &Board, prev: &[MoveScore]) -> Option<Vec<MoveScore>> {
    let empties = board.empties();
    let mut set = Vec::with_capacity(prev.len());
    for p in prev {
        let child = board.make_move(p.mv);
        let r = s.solve(&child, -64, 64)?;
        let mut pv = vec![Move::Play(p.mv)];
        pv.extend(r.pv);
        set.push(MoveScore {
            mv: p.mv,
            score: -r.score,
            exact: true,
            depth: empties,
            pv,
        });
    }
    sort(&mut set);
    Some(set)
}

fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}
