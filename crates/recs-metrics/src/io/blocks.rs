//! Text files read in large blocks of whole lines, each block cut into pieces that
//! threads parse at once; results are merged in file order, so what is read does not
//! depend on the number of threads.

use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::parse_error;
use crate::error::{MetricsError, Result};

/// Bytes read per block (a block grows to hold a longer line); small in tests, so that
/// they cross block boundaries.
const BLOCK_BYTES: usize = if cfg!(test) { 1 << 12 } else { 1 << 23 };

/// Whole lines of a file (bytes, checked as UTF-8 when parsed) and the number of the first.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) first_line: usize,
}

impl<'a> Block<'a> {
    /// This block cut at line ends into about `n` pieces of similar size, each with the
    /// number of its first line (lines counted in parallel).
    pub(super) fn pieces(self, n: usize) -> Vec<Block<'a>> {
        let bytes = self.bytes;
        let n = n.max(1);
        let mut cuts = vec![0];
        for k in 1..n {
            let target = (bytes.len() * k / n).max(*cuts.last().unwrap_or(&0));
            let cut = bytes[target..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| target + p + 1);
            cuts.push(cut);
        }
        cuts.push(bytes.len());
        cuts.dedup();
        let counts: Vec<usize> =
            cuts.par_windows(2).map(|w| count_lines(&bytes[w[0]..w[1]])).collect();
        let mut line = self.first_line;
        cuts.windows(2)
            .zip(counts)
            .map(|(w, count)| {
                let piece = Block { bytes: &bytes[w[0]..w[1]], first_line: line };
                line += count;
                piece
            })
            .collect()
    }

    /// The text of this block.
    ///
    /// # Errors
    /// Bytes that are not UTF-8, at their line of `path`.
    pub(super) fn text(self, path: &Path) -> Result<&'a str> {
        std::str::from_utf8(self.bytes).map_err(|e| {
            let line = self.first_line + count_lines(&self.bytes[..e.valid_up_to()]);
            parse_error(path, line, "not UTF-8")
        })
    }

    /// Calls `f(line number, fields)` for each data line, in one pass over the bytes.
    /// Blank lines and lines whose first field starts with `#` are skipped; fields are
    /// split at ASCII whitespace, and at most 7 are kept (a line with more gives 7, which
    /// no layout accepts).
    ///
    /// # Errors
    /// Text that is not UTF-8, or the first error of `f`.
    pub(super) fn for_each_line(
        self,
        path: &Path,
        mut f: impl FnMut(usize, &[&'a str]) -> Result<()>,
    ) -> Result<()> {
        let text = self.text(path)?;
        let mut fields = [""; 7];
        let mut start = 0;
        // Line by line (memchr finds the ends), then the fields of each line: one tight
        // loop per field instead of one branchy step per byte of the block.
        for (line, end) in (self.first_line..).zip(line_ends(text.as_bytes())) {
            let count = split_fields(&text[start..end], &mut fields);
            start = end + 1;
            if count > 0 && !fields[0].starts_with('#') {
                f(line, &fields[..count])?;
            }
        }
        Ok(())
    }
}

/// The position of every line end of `bytes`, the last line's end (`bytes.len()`)
/// included when it lacks one.
fn line_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let unterminated = !bytes.is_empty() && bytes.last() != Some(&b'\n');
    memchr::memchr_iter(b'\n', bytes).chain(unterminated.then_some(bytes.len()))
}

/// Splits `line` at runs of ASCII whitespace into `fields` (at most its length; further
/// fields are dropped) and returns how many there are. The separators are ASCII, so every
/// cut is a char boundary.
fn split_fields<'a>(line: &'a str, fields: &mut [&'a str; 7]) -> usize {
    let bytes = line.as_bytes();
    let (mut count, mut k) = (0, 0);
    while count < fields.len() {
        while k < bytes.len() && bytes[k].is_ascii_whitespace() {
            k += 1;
        }
        if k == bytes.len() {
            break;
        }
        let start = k;
        while k < bytes.len() && !bytes[k].is_ascii_whitespace() {
            k += 1;
        }
        fields[count] = &line[start..k];
        count += 1;
    }
    count
}

fn count_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

impl<'a> Block<'a> {
    /// The number and fields of the first data line, without reading further.
    ///
    /// # Errors
    /// Text that is not UTF-8.
    pub(super) fn first_data_line(self, path: &Path) -> Result<Option<(usize, Vec<&'a str>)>> {
        for (line, text) in (self.first_line..).zip(self.text(path)?.split_inclusive('\n')) {
            let mut found = None;
            Block { bytes: text.as_bytes(), first_line: line }.for_each_line(
                path,
                |n, fields| {
                    found = Some((n, fields.to_vec()));
                    Ok(())
                },
            )?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
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
    /// A read error.
    pub(super) fn next_block(&mut self) -> Result<Option<Block<'_>>> {
        self.buf.drain(..self.consumed);
        self.consumed = 0;
        let mut end = None;
        while end.is_none() {
            if !self.eof {
                // Grows the buffer as data arrives: a small input never pays for a whole
                // block of zeroed memory.
                let limit = BLOCK_BYTES as u64;
                let read = (&mut self.reader)
                    .take(limit)
                    .read_to_end(&mut self.buf)
                    .map_err(|e| MetricsError::Io { path: self.path.clone(), source: e })?;
                // `take` stops at the limit, so less means the input has ended.
                self.eof = (read as u64) < limit;
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
        let bytes = &self.buf[..end];
        let block = Block { bytes, first_line: self.next_line };
        self.next_line += bytes.par_chunks(1 << 20).map(count_lines).sum::<usize>();
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
                    .for_each_line(Path::new("t"), |line, fields| {
                        out.push((line, fields.iter().map(|f| f.to_string()).collect()));
                        Ok(())
                    })
                    .unwrap();
            }
        }
        out
    }

    #[test]
    fn fields_are_split_at_ascii_whitespace() {
        let cases: [(&str, Option<&[&str]>); 7] = [
            ("a b\tc", Some(&["a", "b", "c"])),
            ("  a\t\tb  \r", Some(&["a", "b"])),
            ("", None),
            (" \t\r", None),
            ("# a b", None),
            ("  #x", None),
            ("a #b", Some(&["a", "#b"])),
        ];
        fn fields_of(line: &str) -> Option<Vec<&str>> {
            let block = Block { bytes: line.as_bytes(), first_line: 1 };
            block.first_data_line(Path::new("t")).unwrap().map(|(_, f)| f)
        }
        for (line, want) in cases {
            let got = fields_of(line);
            assert_eq!(got.as_deref(), want, "{line:?}");
            let std: Vec<&str> = line.split_ascii_whitespace().collect();
            if let Some(want) = want {
                assert_eq!(std, want);
            }
        }
        // More than seven fields keep seven, which no layout accepts.
        assert_eq!(fields_of("1 2 3 4 5 6 7 8 9").map(|f| f.len()), Some(7));
        // The first data line is found after blank and comment lines, with its number.
        let block = Block { bytes: b"\n# c\n a b\nc d\n", first_line: 1 };
        assert_eq!(block.first_data_line(Path::new("t")).unwrap(), Some((3, vec!["a", "b"])));
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
        let block = blocks.next_block().unwrap().unwrap();
        for pieces in 1..4 {
            let errors: Vec<String> = block
                .pieces(pieces)
                .into_iter()
                .filter_map(|p| p.for_each_line(Path::new("t"), |_, _| Ok(())).err())
                .map(|e| e.to_string())
                .collect();
            assert_eq!(errors.len(), 1);
            assert!(errors[0].starts_with("t:3:"), "{errors:?}");
        }
    }
}
