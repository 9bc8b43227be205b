//! GTP line framing: the line-length limit, cleaning an input line, and formatting an
//! answer (`=[id] text` or `?[id] text`, then an empty line).

/// The longest command line accepted, in bytes, not counting a `#` comment: a longer line is
/// answered `? syntax error: line too long` and [`run`](super::run) never buffers more than
/// this of it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Cleans one input line as GTP asks: drops control characters except tab and newline
/// (so `\r` goes) and byte-order marks (U+FEFF, which some clients put at the start of their
/// input), cuts from `#`, turns tabs into spaces and trims. Returns `None` when nothing is
/// left (an empty or comment-only line gets no answer).
pub fn clean_line(line: &str) -> Option<String> {
    let cut = line.split('#').next().unwrap_or("");
    let cleaned: String = cut
        .chars()
        .filter(|&c| c != '\u{feff}' && (c == '\t' || c == '\n' || !c.is_control()))
        .map(|c| if c == '\t' || c == '\n' { ' ' } else { c })
        .collect();
    let t = cleaned.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Formats one answer: `=[id] text` or `?[id] text`, then an empty line. Empty lines inside
/// `text` are dropped; a text starting with a newline starts on the line after `=`.
pub fn format_response(id: Option<&str>, ok: bool, text: &str) -> String {
    let mut out = String::new();
    out.push(if ok { '=' } else { '?' });
    if let Some(id) = id {
        out.push_str(id);
    }
    let body: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if !body.is_empty() {
        out.push(if text.starts_with('\n') { '\n' } else { ' ' });
        out.push_str(&body.join("\n"));
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::clip;

    #[test]
    fn cleaning_and_framing() {
        assert_eq!(clean_line("  # only a comment"), None);
        assert_eq!(clean_line("\r\n"), None);
        assert_eq!(
            clean_line("1\tplay\x07 b f5 # c\r\n").as_deref(),
            Some("1 play b f5")
        );
        assert_eq!(format_response(Some("12"), true, "f5"), "=12 f5\n\n");
        assert_eq!(
            format_response(None, false, "illegal move"),
            "? illegal move\n\n"
        );
        assert_eq!(format_response(None, true, ""), "=\n\n");
        assert_eq!(format_response(Some("3"), true, "a\n\nb\n"), "=3 a\nb\n\n");
        assert_eq!(format_response(None, true, "\nx\ny"), "=\nx\ny\n\n");
    }

    #[test]
    fn clipping() {
        assert_eq!(clip("f5"), "f5");
        let long = "x".repeat(33);
        let clipped = format!("{}…", "x".repeat(32));
        assert_eq!(clip(&long), clipped);
        assert_eq!(clip(&clipped), clipped);
        assert_eq!(clip(&"x".repeat(32)), "x".repeat(32));
        assert_eq!(
            clean_line("\u{feff}\u{feff} name \u{feff}").as_deref(),
            Some("name")
        );
    }
}
