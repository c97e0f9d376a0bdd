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
        // Lines counted in every piece but the last, which no piece follows.
        let before_last = &cuts[..cuts.len() - 1];
        let counts: Vec<usize> =
            before_last.par_windows(2).map(|w| count_lines(&bytes[w[0]..w[1]])).collect();
        let mut line = self.first_line;
        cuts.windows(2)
            .zip(counts.into_iter().chain([0]))
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
        let bytes = text.as_bytes();
        let mut fields = [""; 7];
        let (mut line, mut count, mut start) = (self.first_line, 0, 0);
        let mut data_line = |line, fields: &[&'a str]| match fields.first() {
            Some(first) if !first.starts_with('#') => f(line, fields),
            _ => Ok(()),
        };
        // Eight bytes at a time: the bytes up to 0x20 (every separator and line end is
        // one) are found at once and looked at one by one; the bytes of the fields are
        // never looked at singly. Lines are short and fields shorter, so this beats
        // searching for each line end and then splitting the line byte by byte.
        for (chunk, word) in words(bytes).enumerate() {
            let mut low = low_bytes(word);
            while low != 0 {
                let at = chunk * 8 + (low.trailing_zeros() / 8) as usize;
                low &= low - 1;
                let byte = bytes[at];
                if WHITESPACE >> byte & 1 == 0 {
                    continue;
                }
                if at > start
                    && let Some(field) = fields.get_mut(count)
                {
                    *field = &text[start..at];
                    count += 1;
                }
                start = at + 1;
                if byte == b'\n' {
                    data_line(line, &fields[..count])?;
                    (line, count) = (line + 1, 0);
                }
            }
        }
        // A last line without its line end.
        if start < bytes.len()
            && let Some(field) = fields.get_mut(count)
        {
            *field = &text[start..];
            count += 1;
        }
        if count > 0 {
            data_line(line, &fields[..count])?;
        }
        Ok(())
    }
}

/// The ASCII whitespace bytes (`u8::is_ascii_whitespace`) as a bit set: bit `b` for byte
/// `b`, for the bytes up to 0x20 that [`low_bytes`] marks.
const WHITESPACE: u64 = 1 << b'\t' | 1 << b'\n' | 1 << 0x0c | 1 << b'\r' | 1 << b' ';

/// `bytes` as little-endian words of eight bytes, the last padded with `0xff` (a byte
/// [`low_bytes`] never marks).
fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes.chunks(8).map(|chunk| match <[u8; 8]>::try_from(chunk) {
        Ok(full) => u64::from_le_bytes(full),
        Err(_) => {
            let mut padded = [0xff; 8];
            padded[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(padded)
        }
    })
}

/// The high bit of each byte of `word` that is at most 0x20, and no other bit. Exact per
/// byte: the low seven bits of a byte plus 0x5f reach 0x80 exactly when they are at least
/// 0x21, and never carry into the next byte.
fn low_bytes(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ADD: u64 = 0x5f5f_5f5f_5f5f_5f5f;
    !(((word & LOW7) + ADD) | word) & HIGH
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

    proptest::proptest! {
        /// Data lines are those `split('\\n')` and `split_ascii_whitespace` give, whatever
        /// the bytes around the separators (control characters, non-ASCII text) and
        /// wherever the lines fall in the eight-byte words.
        #[test]
        fn lines_split_as_the_standard_library_splits_them(
            text in "([ab#é\\x01\\x1f!]{0,3}[ \\t\\n\\r\\x0b\\x0c]{0,2}){0,40}",
        ) {
            let mut want = Vec::new();
            for (k, line) in text.split('\n').enumerate() {
                let fields: Vec<String> =
                    line.split_ascii_whitespace().take(7).map(str::to_string).collect();
                if fields.first().is_some_and(|f| !f.starts_with('#')) {
                    want.push((k + 1, fields));
                }
            }
            for pieces in [1, 3] {
                proptest::prop_assert_eq!(&lines_of(&text, pieces), &want);
            }
        }

        #[test]
        fn low_bytes_marks_exactly_the_bytes_up_to_0x20(word in proptest::num::u64::ANY) {
            let want = word
                .to_le_bytes()
                .iter()
                .enumerate()
                .filter(|(_, b)| **b <= 0x20)
                .fold(0u64, |m, (k, _)| m | 0x80 << (8 * k));
            proptest::prop_assert_eq!(low_bytes(word), want);
        }
    }

    #[test]
    fn the_whitespace_set_is_the_standard_librarys() {
        for byte in 0..=0x20u8 {
            assert_eq!(WHITESPACE >> byte & 1 == 1, byte.is_ascii_whitespace(), "{byte:#x}");
        }
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
