//! Reading a trace a line at a time: memory bounded by the longest line, not
//! by the file, so that a replay of any length holds only the state it builds.
//!
//! A line's end is found with `memchr` and its text checked with `simdutf8`
//! (both vectorised): with `std`'s byte-at-a-time search and UTF-8 check,
//! reading the lines cost nearly as many instructions as decoding them.

use std::io::{Error, ErrorKind, Read, Result};
use std::path::Path;

/// The bytes read from the file at a time (the buffer grows, doubling, for a
/// longer line).
const CHUNK: usize = 1 << 16;

/// Calls `f(number, line)` for each line of the file at `path` (numbered from
/// 1; `\n` or `\r\n` ends a line, the last one may lack it). A line that is
/// not UTF-8 stops the reading with an `InvalidData` error naming it.
pub fn each_line(path: &Path, f: impl FnMut(usize, &str)) -> Result<()> {
    each_line_of(std::fs::File::open(path)?, CHUNK, f)
}

/// [`each_line`] of any reader, `chunk` bytes read at a time.
fn each_line_of(mut reader: impl Read, chunk: usize, mut f: impl FnMut(usize, &str)) -> Result<()> {
    let mut buf = vec![0u8; chunk.max(1)];
    // The bytes read and not yet given out are `buf[start..end]`; those in
    // `buf[start..searched]` hold no newline.
    let (mut start, mut searched, mut end) = (0, 0, 0);
    let mut number = 0;
    loop {
        if let Some(i) = memchr::memchr(b'\n', &buf[searched..end]) {
            let newline = searched + i;
            number += 1;
            let line = &buf[start..newline];
            f(number, text(number, line.strip_suffix(b"\r").unwrap_or(line))?);
            start = newline + 1;
            searched = start;
            continue;
        }
        // No newline in what is read: the line's start moves to the front,
        // the buffer doubles if the line fills it, and more is read.
        buf.copy_within(start..end, 0);
        end -= start;
        start = 0;
        searched = end;
        if end == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match reader.read(&mut buf[end..]) {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            if end > 0 {
                f(number + 1, text(number + 1, &buf[..end])?);
            }
            return Ok(());
        }
        end += n;
    }
}

/// The line as text, or the error `std::str::from_utf8` gives it, with its
/// number.
fn text(number: usize, line: &[u8]) -> Result<&str> {
    if let Ok(text) = simdutf8::basic::from_utf8(line) {
        return Ok(text);
    }
    std::str::from_utf8(line).map_err(|e| {
        Error::new(ErrorKind::InvalidData, format!("line {number}: stream did not contain valid UTF-8: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8], chunk: usize) -> Result<Vec<(usize, String)>> {
        let mut out = Vec::new();
        each_line_of(bytes, chunk, |n, l| out.push((n, l.to_owned())))?;
        Ok(out)
    }

    #[test]
    fn every_chunk_size_gives_the_lines_a_line_reader_gives() {
        let text = "first\r\n\n{\"a\": \"é…\"}\nlonger than any of the small chunks below\r\nlast\r";
        let want: Vec<(usize, String)> = vec![
            (1, "first".into()),
            (2, String::new()),
            (3, "{\"a\": \"é…\"}".into()),
            (4, "longer than any of the small chunks below".into()),
            (5, "last\r".into()),
        ];
        for chunk in [1, 2, 3, 5, 8, 64, CHUNK] {
            assert_eq!(lines(text.as_bytes(), chunk).unwrap(), want, "chunk {chunk}");
        }
        assert_eq!(lines(b"", 4).unwrap(), vec![]);
        assert_eq!(lines(b"x\n", 4).unwrap(), vec![(1, "x".to_owned())]);
    }

    #[test]
    fn a_line_that_is_not_utf8_stops_the_reading_with_std_s_words() {
        for (bad, what) in [
            (&b"a\xff"[..], "invalid utf-8 sequence of 1 bytes from index 1"),
            (b"\xf0\x9f\x98A", "invalid utf-8 sequence of 3 bytes from index 0"),
            (b"ab\xe2\x82", "incomplete utf-8 byte sequence from index 2"),
        ] {
            let mut file = b"ok\n".to_vec();
            file.extend_from_slice(bad);
            file.extend_from_slice(b"\r\nnever read\n");
            let mut seen = Vec::new();
            let e = each_line_of(&file[..], 2, |n, _| seen.push(n)).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidData);
            assert_eq!(e.to_string(), format!("line 2: stream did not contain valid UTF-8: {what}"));
            assert_eq!(seen, [1]);
        }
    }
}
