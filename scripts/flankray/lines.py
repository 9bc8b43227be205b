"""Reading position files: bounded lines, the lines flank skips, and each position's store key."""

from dataclasses import dataclass
from typing import Iterator, Optional

#: The longest line accepted, in bytes, as for ``flank solve -`` (64 KiB).
MAX_LINE_BYTES = 64 * 1024


@dataclass(frozen=True)
class Line:
    """One input line: its 1-based number in the file, its text (stripped), and an error when the
    line cannot be a position (too long, not UTF-8)."""

    number: int
    text: str
    error: Optional[str] = None


def is_skipped(text: str) -> bool:
    """True for the lines flank itself skips: blank lines and ``%`` or ``#`` comments."""
    text = text.lstrip("\ufeff").strip()
    return not text or text.startswith("%") or text.startswith("#")


def position_key(text: str) -> str:
    """The store key of a position line: its board and side to move, whitespace collapsed (the
    text before the first ``;`` of an OBF line; a board string without the score that may
    follow it). Lines of the same position with different listed scores share a key."""
    head = text.lstrip("\ufeff").split(";", 1)[0].split()
    if len(head) >= 2 and head[-1].lstrip("+-").isdigit():
        head = head[:-1]  # `<board> X -64`: the listed score is not part of the position
    return " ".join(head)


def read_lines(path: str) -> Iterator[Line]:
    """Yields every line of ``path`` (``-`` = stdin is not accepted: a batch must be re-readable to
    resume) without ever holding more than one line of at most :data:`MAX_LINE_BYTES` bytes."""
    with open(path, "rb") as f:
        number = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                # Skip the rest of the over-long line without reading it whole.
                while True:
                    rest = f.readline(MAX_LINE_BYTES)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield Line(number, "", f"line longer than {MAX_LINE_BYTES} bytes")
                continue
            try:
                text = raw.decode("utf-8").lstrip("\ufeff").strip()
            except UnicodeDecodeError as e:
                yield Line(number, "", f"not UTF-8 text ({e.reason} at byte {e.start})")
                continue
            yield Line(number, text)


def position_lines(path: str) -> Iterator[Line]:
    """The lines of ``path`` that hold a position or an error: what the driver sends to workers or
    reports as bad (skipped lines dropped)."""
    for line in read_lines(path):
        if line.error is not None or not is_skipped(line.text):
            yield line
