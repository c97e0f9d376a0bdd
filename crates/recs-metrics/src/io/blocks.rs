//! Text files read in large blocks of whole lines, each block cut into pieces that
//! threads parse at once; results are merged in file order, so what is read does not
//! depend on the number of threads.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::parse_error;
use crate::error::{MetricsError, Result};

/// Bytes read per block (a block grows to hold a longer line); small in tests, so that
/// they cross block boundaries.
const BLOCK_BYTES: usize = if cfg!(test) { 1 << 12 } else { 1 << 23 };

/// Whole lines of text and the number of the first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block<'a> {
    pub(super) text: &'a str,
    pub(super) first_line: usize,
}

impl<'a> Block<'a> {
    /// This block cut at line ends into about `n` pieces of similar size.
    pub(super) fn pieces(self, n: usize) -> Vec<Block<'a>> {
        let bytes = self.text.as_bytes();
        let mut pieces = Vec::with_capacity(n);
        let (mut start, mut line) = (0, self.first_line);
        for k in 1..=n.max(1) {
            let target = (bytes.len() * k / n.max(1)).max(start);
            let end = if k == n.max(1) {
                bytes.len()
            } else {
                bytes[target..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |p| target + p + 1)
            };
            if end > start {
                let text = &self.text[start..end];
                pieces.push(Block { text, first_line: line });
                line += count_lines(text.as_bytes());
                start = end;
            }
        }
        pieces
    }

    /// Calls `f(line number, fields)` for each data line ([`fields_of`]).
    pub(super) fn for_each_line(
        self,
        mut f: impl FnMut(usize, &[&'a str]) -> Result<()>,
    ) -> Result<()> {
        for (k, line) in self.text.split_terminator('\n').enumerate() {
            if let Some((fields, count)) = fields_of(line) {
                f(self.first_line + k, &fields[..count])?;
            }
        }
        Ok(())
    }
}

/// The fields of a data line, split at ASCII whitespace, or `None` for a blank line or
/// one starting with `#`. At most 7 are kept: a line with more gives 7, which no layout
/// accepts.
pub(super) fn fields_of(line: &str) -> Option<([&str; 7], usize)> {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    let mut fields = [""; 7];
    let mut count = 0;
    for field in trimmed.split_ascii_whitespace() {
        if count == fields.len() {
            break;
        }
        fields[count] = field;
        count += 1;
    }
    Some((fields, count))
}

fn count_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// A reader cut into [`Block`]s.
pub(super) struct Blocks<R> {
    reader: R,
    path: PathBuf,
    buf: Vec<u8>,
    /// Bytes of `buf` handed out in the last block.
    consumed: usize,
    next_line: usize,
    eof: bool,
}

impl<R: Read> Blocks<R> {
    pub(super) fn new(reader: R, path: &Path) -> Self {
        Blocks {
            reader,
            path: path.to_path_buf(),
            buf: Vec::new(),
            consumed: 0,
            next_line: 1,
            eof: false,
        }
    }

    /// The next block of whole lines (the last may lack its line end), or `None` at the
    /// end of the input.
    ///
    /// # Errors
    /// A read error or text that is not UTF-8, at its line.
    pub(super) fn next_block(&mut self) -> Result<Option<Block<'_>>> {
        self.buf.drain(..self.consumed);
        self.consumed = 0;
        let mut end = None;
        while end.is_none() {
            if !self.eof {
                let filled = self.buf.len();
                let want = (filled + BLOCK_BYTES).max(self.buf.capacity());
                self.buf.resize(want, 0);
                let mut read = filled;
                while read < want {
                    match self.reader.read(&mut self.buf[read..]) {
                        Ok(0) => {
                            self.eof = true;
                            break;
                        }
                        Ok(n) => read += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            return Err(MetricsError::Io { path: self.path.clone(), source: e });
                        }
                    }
                }
                self.buf.truncate(read);
            }
            end = match self.buf.iter().rposition(|&b| b == b'\n') {
                _ if self.eof => Some(self.buf.len()),
                Some(p) => Some(p + 1),
                None => None, // a line longer than a block: read more
            };
        }
        let end = end.unwrap_or(self.buf.len());
        if end == 0 {
            return Ok(None);
        }
        let text = std::str::from_utf8(&self.buf[..end]).map_err(|e| {
            let line = self.next_line + count_lines(&self.buf[..e.valid_up_to()]);
            parse_error(&self.path, line, "not UTF-8")
        })?;
        let block = Block { text, first_line: self.next_line };
        self.next_line += count_lines(text.as_bytes());
        self.consumed = end;
        Ok(Some(block))
    }
}

/// `text` as an `f32`, as `str::parse` reads it; short unsigned integers (grades, ranks)
/// are read directly, exactly (below 2^24 every integer is an `f32`).
#[inline]
pub(super) fn parse_f32(text: &str) -> Option<f32> {
    let bytes = text.as_bytes();
    if (1..=7).contains(&bytes.len()) && bytes.iter().all(u8::is_ascii_digit) {
        let value = bytes.iter().fold(0u32, |v, &b| v * 10 + u32::from(b - b'0'));
        return Some(value as f32);
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every data line with its number, read through blocks and pieces of every size.
    fn lines_of(text: &str, pieces: usize) -> Vec<(usize, Vec<String>)> {
        let mut blocks = Blocks::new(text.as_bytes(), Path::new("t"));
        let mut out = Vec::new();
        while let Some(block) = blocks.next_block().unwrap() {
            for piece in block.pieces(pieces) {
                piece
                    .for_each_line(|line, fields| {
                        out.push((line, fields.iter().map(|f| f.to_string()).collect()));
                        Ok(())
                    })
                    .unwrap();
            }
        }
        out
    }

    #[test]
    fn integers_read_as_the_standard_parser_reads_them() {
        for text in
            ["0", "1", "5", "07", "9999999", "1234567", "12345678", "1.5", "-3", "", "x", "1e3"]
        {
            assert_eq!(
                parse_f32(text).map(f32::to_bits),
                text.parse::<f32>().ok().map(f32::to_bits),
                "{text}"
            );
        }
    }

    #[test]
    fn pieces_keep_every_line_and_its_number() {
        let text = "a 1\n\n# c\nb\t2\r\nc 3\n  \nd 4";
        let want: Vec<(usize, Vec<String>)> =
            [(1, ["a", "1"]), (4, ["b", "2"]), (5, ["c", "3"]), (7, ["d", "4"])]
                .iter()
                .map(|(l, f)| (*l, f.iter().map(|s| s.to_string()).collect()))
                .collect();
        for pieces in 1..10 {
            assert_eq!(lines_of(text, pieces), want, "{pieces} pieces");
        }
        assert!(lines_of("", 3).is_empty());
    }

    #[test]
    fn blocks_end_at_line_ends_and_report_bad_text_at_its_line() {
        let long: String = (0..300_000).map(|i| format!("u{i} i{i} {i}\n")).collect();
        let lines = lines_of(&long, 4);
        assert_eq!(lines.len(), 300_000);
        assert!(
            lines.iter().enumerate().all(|(k, (line, f))| *line == k + 1 && f[2] == k.to_string())
        );
        let mut bad = b"a 1\nb 2\n".to_vec();
        bad.extend_from_slice(b"c \xff\n");
        let mut blocks = Blocks::new(&bad[..], Path::new("t"));
        let e = blocks.next_block().unwrap_err().to_string();
        assert!(e.starts_with("t:3:"), "{e}");
    }
}
