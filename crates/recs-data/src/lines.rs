//! Line reading shared by the parsers: numbered lines, LF or CRLF, bytes not text.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::error::{DataError, Result};

/// Reads numbered lines from a buffered source, without their `\n` or `\r\n`.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line: usize,
    file: PathBuf,
    header_pending: bool,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R, file: &Path) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line: 0,
            file: file.to_path_buf(),
            header_pending: false,
        }
    }

    /// Makes [`next_record`](Self::next_record) skip the first non-blank line when
    /// `header` is true.
    pub(crate) fn with_header(mut self, header: bool) -> Self {
        self.header_pending = header;
        self
    }

    /// The next line that holds a record: blank lines (see [`is_blank`]) and the header
    /// (see [`with_header`](Self::with_header)) are passed over; as (1-based line number,
    /// bytes without the line ending), or `None` at the end.
    pub(crate) fn next_record(&mut self) -> Result<Option<(usize, &[u8])>> {
        while let Some(end) = self.advance()? {
            if is_blank(&self.buf[..end]) {
                continue;
            }
            if std::mem::take(&mut self.header_pending) {
                continue;
            }
            return Ok(Some((self.line, &self.buf[..end])));
        }
        Ok(None)
    }

    /// Reads the next line into the buffer; its length without the line ending, or `None`
    /// at EOF.
    fn advance(&mut self) -> Result<Option<usize>> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| DataError::io(&self.file, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut end = self.buf.len();
        if end > 0 && self.buf[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        Ok(Some(end))
    }
}

/// Records the line declaring each id; a second declaration is an error at its line.
#[derive(Default)]
pub(crate) struct Declared(std::collections::HashMap<String, usize>);

impl Declared {
    /// Records that `id` is declared at `line`; an error naming both lines when it was
    /// declared before. `what` names the kind of id (`user id`, `vroot`, ...).
    pub(crate) fn check(&mut self, file: &Path, line: usize, id: &str, what: &str) -> Result<()> {
        match self.0.insert(id.to_string(), line) {
            Some(first) => Err(DataError::parse(
                file,
                line,
                format!("each {what} declared once (id {id} is also declared at line {first})"),
                id,
            )),
            None => Ok(()),
        }
    }

    /// True when `id` has been declared.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }
}

/// Opens `path` for buffered reading, mapping errors to [`DataError::Io`].
pub(crate) fn open(path: &Path) -> Result<BufReader<File>> {
    let file = File::open(path).map_err(|e| DataError::io(path, e))?;
    Ok(BufReader::with_capacity(1 << 16, file))
}

/// True for lines holding only spaces or tabs (skipped by every parser).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| *b == b' ' || *b == b'\t')
}

/// The fields of one line: ranges into the line, valid until the next split.
pub(crate) struct Fields<'a> {
    line: &'a [u8],
    ranges: &'a [(usize, usize)],
}

impl<'a> Fields<'a> {
    /// Number of fields.
    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Field `k`.
    ///
    /// # Panics
    /// When `k >= len()`; callers check the field count first.
    pub(crate) fn at(&self, k: usize) -> &'a [u8] {
        let (a, b) = self.ranges[k];
        &self.line[a..b]
    }

    /// Field `k`, if present.
    pub(crate) fn get(&self, k: usize) -> Option<&'a [u8]> {
        (k < self.len()).then(|| self.at(k))
    }
}

/// Splits `line` on `delimiter` (one or more bytes), reusing the storage of `ranges`.
pub(crate) fn split_into<'a>(
    line: &'a [u8],
    delimiter: &[u8],
    ranges: &'a mut Vec<(usize, usize)>,
) -> Fields<'a> {
    ranges.clear();
    let mut start = 0;
    if delimiter.len() == 1 {
        let d = delimiter[0];
        for (i, &b) in line.iter().enumerate() {
            if b == d {
                ranges.push((start, i));
                start = i + 1;
            }
        }
    } else {
        let mut i = 0;
        while i + delimiter.len() <= line.len() {
            if &line[i..i + delimiter.len()] == delimiter {
                ranges.push((start, i));
                i += delimiter.len();
                start = i;
            } else {
                i += 1;
            }
        }
    }
    ranges.push((start, line.len()));
    Fields { line, ranges }
}

/// Trims ASCII spaces (not tabs, which may be delimiters) from both ends.
pub(crate) fn trim(field: &[u8]) -> &[u8] {
    let start = field.iter().position(|b| *b != b' ').unwrap_or(field.len());
    let end = field.iter().rposition(|b| *b != b' ').map_or(start, |p| p + 1);
    &field[start..end]
}

/// Decodes Latin-1 (ISO 8859-1) bytes: every byte is the code point of the same value.
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_pass_over_blank_lines_and_the_header() {
        // LF and CRLF endings are stripped; numbers count every line.
        let data = b"\n \t\nh\r\na\r\n\nb";
        let records = |header: bool| {
            let mut lines = Lines::new(&data[..], Path::new("m")).with_header(header);
            let mut got = Vec::new();
            while let Some((n, l)) = lines.next_record().unwrap() {
                got.push((n, l.to_vec()));
            }
            got
        };
        assert_eq!(records(true), vec![(4, b"a".to_vec()), (6, b"b".to_vec())]);
        assert_eq!(records(false)[0], (3, b"h".to_vec()));
    }

    #[test]
    fn multi_byte_delimiters_split_like_single_ones() {
        let mut ranges = Vec::new();
        let all = |f: Fields<'_>| (0..f.len()).map(|k| f.at(k).to_vec()).collect::<Vec<_>>();
        assert_eq!(
            all(split_into(b"1::2::5::9", b"::", &mut ranges)),
            [&b"1"[..], b"2", b"5", b"9"]
        );
        assert_eq!(all(split_into(b"::x:", b"::", &mut ranges)), [&b""[..], b"x:"]);
        assert_eq!(all(split_into(b"a\tb", b"\t", &mut ranges)), [&b"a"[..], b"b"]);
        assert_eq!(all(split_into(b"", b",", &mut ranges)), [&b""[..]]);
        assert!(split_into(b"a,b", b",", &mut ranges).get(2).is_none());
    }

    #[test]
    fn latin1_maps_bytes_to_code_points() {
        assert_eq!(latin1(b"Mis\xe9rables"), "Misérables");
        assert_eq!(latin1(b"\xc1 k\xf6ldum"), "Á köldum");
    }

    #[test]
    fn trim_keeps_inner_spaces() {
        assert_eq!(trim(b"  a b "), b"a b");
        assert_eq!(trim(b"   "), b"");
    }
}
