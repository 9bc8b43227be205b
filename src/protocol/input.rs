//! Protocol input (GTP and NBoard): the reader thread that reads lines ahead of the session
//! and stamps their arrival, bounded line reads, and the session's inbox, which a running
//! search watches so that a new line can stop it.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use crate::engine::ponder::ponder_limits;
use crate::engine::{Engine, SearchResult};
use crate::othello::board::Board;

/// Input arriving within this many ms of a command's line counts as sent together with it:
/// it does not stop that command's search (see [`crate::protocol::gtp::run`]).
pub const TOGETHER_MS: u64 = 20;

/// Lines the reader thread may read ahead of the session (it then waits).
pub(crate) const READ_AHEAD_LINES: usize = 256;

/// How often a watched search looks at its inbox and re-asserts a stop, in ms.
const WATCH_POLL_MS: u64 = 2;

/// How [`read_line_bounded`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineRead {
    /// End of input before any byte.
    Eof,
    /// A whole line (its `#` comment dropped) is in the buffer.
    Line,
    /// The line had more than the allowed bytes before its comment: the buffer holds its
    /// start, the rest was read and discarded.
    TooLong,
}

/// Reads one line (up to and including `\n`, or to end of input) into `buf` without the `\n`,
/// in the reader's own chunks, keeping at most `max` bytes: everything from the first
/// `comment` byte (GTP's `#`; `None` = no comments) is read and dropped, and a line with more
/// than `max` bytes before it is read to its end, keeping only the first `max`. ASCII bytes
/// such as `#` and `\n` never occur inside a UTF-8 sequence, so cutting there is safe.
fn read_line_bounded<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    comment: Option<u8>,
) -> io::Result<LineRead> {
    buf.clear();
    let mut read_any = false;
    let mut in_comment = false;
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        // `part` is this chunk's share of the line, without the `\n`.
        let (part, used, at_end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if !in_comment && !too_long {
            let (content, hash) = match part.iter().position(|&b| Some(b) == comment) {
                Some(i) => (&part[..i], true),
                None => (part, false),
            };
            let room = max - buf.len();
            if content.len() > room {
                buf.extend_from_slice(&content[..room]);
                too_long = true;
            } else {
                buf.extend_from_slice(content);
                in_comment = hash;
            }
        }
        input.consume(used);
        if at_end {
            break;
        }
    }
    Ok(if too_long {
        LineRead::TooLong
    } else if read_any {
        LineRead::Line
    } else {
        LineRead::Eof
    })
}

/// One item of input, as the reader thread passes it on.
pub(crate) enum Input {
    /// A line without its `\n` and `#` comment (invalid UTF-8 replaced).
    Line(String),
    /// The start of a line longer than the framing's limit.
    TooLong(String),
    /// End of input.
    End,
    /// A read error.
    Failed(io::Error),
}

/// An input item and when it arrived: when the read that completed it returned.
pub(crate) struct Arrival {
    /// The item.
    pub(crate) input: Input,
    /// When it arrived.
    pub(crate) at: Instant,
}

/// The session's side of the reader thread: its channel, and the items a watched search
/// already took off it, in order.
pub(crate) struct Inbox {
    rx: Receiver<Arrival>,
    pending: VecDeque<Arrival>,
}

impl Inbox {
    /// An inbox on the reader thread's channel, nothing queued yet.
    pub(crate) fn new(rx: Receiver<Arrival>) -> Inbox {
        Inbox {
            rx,
            pending: VecDeque::new(),
        }
    }

    /// The next item: queued ones first; a reader gone without a word is the end of input.
    pub(crate) fn next(&mut self) -> Arrival {
        self.pending.pop_front().unwrap_or_else(|| {
            self.rx.recv().unwrap_or_else(|_| Arrival {
                input: Input::End,
                at: Instant::now(),
            })
        })
    }

    /// True if items wait in the queue (taken off the channel by a watcher, not handled yet).
    pub(crate) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Watches the input during a search until `done`: every item is queued; once one has
    /// arrived after `since` (any item when `since` is `None`), `stop` is set, and set again
    /// every few ms (a search clears it when it starts, and one command may run several). An
    /// item already queued (it arrived while an earlier command searched) counts the same way,
    /// so a `ping` queued behind a command stops that command's search too.
    fn watch(&mut self, since: Option<Instant>, stop: &AtomicBool, done: &AtomicBool) {
        let poll = Duration::from_millis(WATCH_POLL_MS);
        let mut stopping = self.pending.iter().any(|a| since.is_none_or(|t| a.at > t));
        let mut gone = false;
        while !done.load(Ordering::Relaxed) {
            if stopping {
                stop.store(true, Ordering::Relaxed);
            }
            if gone {
                std::thread::sleep(poll);
                continue;
            }
            match self.rx.recv_timeout(poll) {
                Ok(a) => {
                    if since.is_none_or(|t| a.at > t) {
                        stopping = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                    self.pending.push_back(a);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => gone = true,
            }
        }
    }
}

/// Sets its flag when dropped: ends a watcher even if the search panics.
struct Done<'a>(&'a AtomicBool);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Ponders: runs `engine`'s ponder search of `board` ([`crate::engine::ponder`]) while
/// `inbox` is watched, and any input item, also one that arrived before the search started,
/// stops it. Nothing runs, and `None` is returned, when there is no inbox or an item is
/// already waiting in its queue.
pub(crate) fn ponder(
    inbox: Option<&mut Inbox>,
    engine: &mut Engine,
    board: &Board,
) -> Option<SearchResult> {
    let inbox = inbox?;
    if inbox.has_pending() {
        return None;
    }
    let stop = engine.stop_handle();
    let done = AtomicBool::new(false);
    Some(std::thread::scope(|scope| {
        scope.spawn(|| inbox.watch(None, &stop, &done));
        let _done = Done(&done);
        engine.search(board, &ponder_limits(), &mut |_| {})
    }))
}

/// Runs `search` while `inbox` (if any) is watched: an item that arrived more than
/// [`TOGETHER_MS`] after `arrived` (when the command's own line arrived), during the search
/// or already queued before it (while an earlier command searched), sets `stop` (the engine's
/// stop flag, so the search answers with its best result so far) and waits in the queue for
/// its turn. Input that arrived within [`TOGETHER_MS`] of the command (sent together with it
/// by a client that does not wait for answers) does not stop it. Without an inbox the search
/// just runs.
pub(crate) fn watch_during<T>(
    inbox: Option<&mut Inbox>,
    arrived: Option<Instant>,
    stop: &AtomicBool,
    search: impl FnOnce() -> T,
) -> T {
    let Some(inbox) = inbox else {
        return search();
    };
    let now = Instant::now();
    let together = arrived
        .and_then(|a| a.checked_add(Duration::from_millis(TOGETHER_MS)))
        .unwrap_or(now);
    let since = Some(together);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| inbox.watch(since, stop, &done));
        let _done = Done(&done);
        search()
    })
}

/// A `BufRead` that notes when fresh data last came in: [`Stamped::at`] is the time the
/// latest `fill_buf` returned after everything before had been consumed (so the inner reader
/// may have waited for input), which is when the data it returned arrived.
struct Stamped<R> {
    inner: R,
    at: Instant,
    /// Bytes of the last `fill_buf` not consumed yet.
    left: usize,
}

impl<R: BufRead> Read for Stamped<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Stamped<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let fresh = self.left == 0;
        let buf = self.inner.fill_buf()?;
        if fresh {
            self.at = Instant::now();
        }
        self.left = buf.len();
        Ok(buf)
    }

    fn consume(&mut self, n: usize) {
        self.left = self.left.saturating_sub(n);
        self.inner.consume(n);
    }
}

/// How a protocol's input lines are framed for [`read_input`].
#[derive(Clone, Copy)]
pub(crate) struct Framing {
    /// The byte that starts a comment to the end of the line (GTP's `#`), if any.
    pub(crate) comment: Option<u8>,
    /// The longest line kept, in bytes (comment not counted).
    pub(crate) max_line: usize,
    /// True for the session's last line (a well-formed `quit`): nothing after it is read.
    pub(crate) is_last: fn(&str) -> bool,
}

/// The reader thread: reads `input` line by line (as [`read_line_bounded`] does, at most
/// `framing.max_line` bytes a line) and sends every line with its arrival time, until the
/// end of input (sent too), a read error (sent), a last line (`framing.is_last`; nothing
/// after it is read) or a session that has ended.
pub(crate) fn read_input<R: BufRead>(input: R, tx: SyncSender<Arrival>, framing: Framing) {
    let mut input = Stamped {
        inner: input,
        at: Instant::now(),
        left: 0,
    };
    let mut buf = Vec::new();
    loop {
        let (item, last) =
            match read_line_bounded(&mut input, &mut buf, framing.max_line, framing.comment) {
                Ok(LineRead::Eof) => (Input::End, true),
                Ok(LineRead::Line) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    let quit = (framing.is_last)(&line);
                    (Input::Line(line), quit)
                }
                Ok(LineRead::TooLong) => (
                    Input::TooLong(String::from_utf8_lossy(&buf).into_owned()),
                    false,
                ),
                Err(e) => (Input::Failed(e), true),
            };
        let sent = tx.send(Arrival {
            input: item,
            at: input.at,
        });
        if sent.is_err() || last {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_reading_across_small_chunks() {
        // A 3-byte buffer splits lines, comments and the limit across chunks.
        let text = "ab#c#d\n0123456789\n01234\n#x\n\nlast";
        let mut r = io::BufReader::with_capacity(3, text.as_bytes());
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            let status = read_line_bounded(&mut r, &mut buf, 5, Some(b'#')).unwrap();
            if status == LineRead::Eof {
                break;
            }
            got.push((status, String::from_utf8(buf.clone()).unwrap()));
        }
        let want = [
            (LineRead::Line, "ab"),
            (LineRead::TooLong, "01234"),
            (LineRead::Line, "01234"),
            (LineRead::Line, ""),
            (LineRead::Line, ""),
            (LineRead::Line, "last"),
        ];
        let want: Vec<(LineRead, String)> = want.iter().map(|&(s, t)| (s, t.to_string())).collect();
        assert_eq!(got, want);
    }
}
