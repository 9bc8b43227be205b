//! A scripted protocol input for the session tests: chunks handed out with waits between them,
//! or once the session's output shows a text; and an output readable while the session runs.

/// One step of a [`Scripted`] input.
#[derive(Clone, Copy)]
pub enum Step {
    /// Wait this many ms.
    Sleep(u64),
    /// Wait until the session's output contains this text.
    Until(&'static str),
    /// Hand out this text (the empty text: end of input).
    Send(&'static str),
}

/// A reader that hands out its chunks one by one, as its steps say (a GUI typing slowly, or
/// waiting for an answer); an empty chunk, or running out of steps, is the end of input.
pub struct Scripted {
    steps: std::collections::VecDeque<Step>,
    current: &'static [u8],
    ended: bool,
    output: SharedOutput,
}

/// The output of a session, readable while it runs.
#[derive(Clone, Default)]
pub struct SharedOutput(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl SharedOutput {
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for SharedOutput {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Scripted {
    pub fn new(steps: &[Step], output: &SharedOutput) -> Scripted {
        Scripted {
            steps: steps.iter().copied().collect(),
            current: &[],
            ended: false,
            output: output.clone(),
        }
    }
}

impl std::io::Read for Scripted {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
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

impl std::io::BufRead for Scripted {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.current.is_empty() && !self.ended {
            match self.steps.pop_front() {
                Some(Step::Sleep(ms)) => std::thread::sleep(std::time::Duration::from_millis(ms)),
                Some(Step::Until(text)) => {
                    while !self.output.text().contains(text) {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
                Some(Step::Send(chunk)) => {
                    self.current = chunk.as_bytes();
                    self.ended = chunk.is_empty();
                }
                None => self.ended = true,
            }
        }
        Ok(self.current)
    }

    fn consume(&mut self, n: usize) {
        self.current = &self.current[n..];
    }
}
