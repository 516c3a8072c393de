//! Reading a trace a line at a time: memory bounded by the longest line, not
//! by the file, so that a replay of any length holds only the state it builds.

use std::io::{BufRead, BufReader, Error, ErrorKind, Result};
use std::path::Path;

/// Calls `f(number, line)` for each line of the file at `path` (numbered from
/// 1; `\n` or `\r\n` ends a line, the last one may lack it). A line that is
/// not UTF-8 stops the reading with an `InvalidData` error naming it.
pub fn each_line(path: &Path, mut f: impl FnMut(usize, &str)) -> Result<()> {
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        number += 1;
        let mut line = buf.as_slice();
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l.strip_suffix(b"\r").unwrap_or(l);
        }
        let text = std::str::from_utf8(line).map_err(|e| {
            Error::new(ErrorKind::InvalidData, format!("line {number}: stream did not contain valid UTF-8: {e}"))
        })?;
        f(number, text);
    }
}
