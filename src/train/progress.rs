//! Progress bars of the training commands on stderr, and their plain-line form for a log.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar of `len` steps labelled `what`, drawn on stderr: a live bar on a terminal,
/// a plain line at most every [`LOG_LINE_INTERVAL`] otherwise (see [`LogLines`]).
pub(crate) fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if !std::io::stderr().is_terminal() {
        // indicatif hides bars off a terminal; a log still gets a line now and then.
        pb.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(LogLines::default()),
            1,
        ));
    }
    pb.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {elapsed}<{eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_message(what.to_string());
    pb
}

/// A progress target for stderr when it is not a terminal (a log file, a pipe): indicatif's
/// redraws are collected and each bar's text is written as a plain line at most every
/// [`LOG_LINE_INTERVAL`] (the first after one interval), with no cursor movement.
#[derive(Debug, Default)]
struct LogLines {
    /// The text of the redraw being written, and when a line was last printed (or the bar
    /// first drawn).
    state: std::sync::Mutex<(String, Option<Instant>)>,
}

/// Time between two progress lines of [`LogLines`].
const LOG_LINE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

impl LogLines {
    fn push(&self, text: &str) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.0.push_str(text);
    }
}

impl indicatif::TermLike for LogLines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, line: &str) -> std::io::Result<()> {
        // Lines of one redraw are joined by a space into one log line.
        self.push(&format!("{line} "));
        Ok(())
    }
    fn write_str(&self, text: &str) -> std::io::Result<()> {
        self.push(text);
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let now = Instant::now();
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let text = std::mem::take(&mut st.0);
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        match st.1 {
            None => st.1 = Some(now),
            Some(t) if now.duration_since(t) >= LOG_LINE_INTERVAL => {
                st.1 = Some(now);
                eprintln!("{text}");
            }
            Some(_) => {}
        }
        Ok(())
    }
}
