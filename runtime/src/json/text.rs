//! Strings on the wire: finding the bytes JSON escapes (eight at a time)
//! and writing a string quoted and escaped as `serde_json` writes it.

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that JSON must escape is set, and no
/// bit below the first such byte: the lowest set bit is exact, bits above it
/// may be borrow artefacts. (Each of the three tests is `(x - 0x01..) & !x`
/// on bytes: a byte's subtraction borrows from the next byte up only when
/// it wraps, that is, when the byte is itself a hit, so no bit is set below
/// the lowest true hit.)
#[inline]
fn escapes(word: u64) -> u64 {
    let quote = word ^ (LOW * u64::from(b'"'));
    let backslash = word ^ (LOW * u64::from(b'\\'));
    let control = word.wrapping_sub(LOW * 0x20) & !word;
    let quote = quote.wrapping_sub(LOW) & !quote;
    let backslash = backslash.wrapping_sub(LOW) & !backslash;
    (control | quote | backslash) & HIGH
}

/// One bit for each of sixteen bytes that JSON must escape (a quote, a
/// backslash, a control byte), the first byte in the lowest bit.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escape_hits(v: std::arch::x86_64::__m128i) -> u32 {
    // SAFETY: SSE2 is part of the x86-64 baseline; these only compute on `v`.
    unsafe {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
        // A control byte is one the unsigned minimum with 0x1f leaves as it is.
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// The position of the first byte at or after `from` that needs an escape
/// (`bytes.len()` when none does). Inlined everywhere: a call cost as much
/// as scanning a short string.
#[inline(always)]
pub(super) fn next_escape(bytes: &[u8], mut from: usize) -> usize {
    let len = bytes.len();
    // Sixteen bytes at a time where SSE2 is (every x86-64): the reader scans
    // from inside a message, so a string's closing quote is almost always
    // found in the first block.
    #[cfg(target_arch = "x86_64")]
    while from + 16 <= len {
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the
        // sixteen bytes `from..from + 16`, inside `bytes` by the loop's test.
        let hits = unsafe { escape_hits(std::arch::x86_64::_mm_loadu_si128(bytes.as_ptr().add(from).cast())) };
        if hits != 0 {
            return from + hits.trailing_zeros() as usize;
        }
        from += 16;
    }
    while from + 8 <= len {
        let word = u64::from_le_bytes(bytes[from..from + 8].try_into().expect("eight bytes"));
        let hits = escapes(word);
        if hits != 0 {
            // The lowest hit is exact (see `escapes`).
            return from + (hits.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    let rest = &bytes[from..];
    // Four to seven bytes: two overlapping four-byte loads in one word; a
    // clean word ends the scan without a byte loop (most keys and short values).
    if rest.len() >= 4 {
        let head = u32::from_le_bytes(rest[..4].try_into().expect("four bytes"));
        let tail = u32::from_le_bytes(rest[rest.len() - 4..].try_into().expect("four bytes"));
        if escapes(u64::from(head) | u64::from(tail) << 32) == 0 {
            return len;
        }
    }
    rest.iter().position(|&b| needs_escape(b)).map_or(len, |i| from + i)
}

/// Appends to `out` the bytes from `from` up to the first one that needs an
/// escape (a quote, a backslash, a control byte) and returns its position
/// (`bytes.len()` when there is none). For the unescaping of a string whose
/// runs between escapes are short: on x86-64 each step copies sixteen bytes
/// with one fixed-size move into the reserved tail of `out` and keeps as
/// many as come before the first hit, where `next_escape` and a copy of the
/// run would call `memcpy` for a few bytes each time. The bytes kept are a
/// run of `bytes`: where `bytes` is UTF-8 and ends the run at an ASCII byte
/// or its end, so does `out`.
#[inline]
pub(super) fn copy_run(bytes: &[u8], mut from: usize, out: &mut Vec<u8>) -> usize {
    #[cfg(target_arch = "x86_64")]
    while from + 16 <= bytes.len() {
        out.reserve(16);
        let len = out.len();
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads
        // `from..from + 16`, inside `bytes` by the loop's test; the copy
        // writes sixteen bytes into the capacity `reserve` made, and the
        // length grows by at most sixteen over bytes so written.
        let hits = unsafe {
            use std::arch::x86_64::{_mm_loadu_si128, _mm_storeu_si128};
            let v = _mm_loadu_si128(bytes.as_ptr().add(from).cast());
            _mm_storeu_si128(out.as_mut_ptr().add(len).cast(), v);
            escape_hits(v)
        };
        let kept = if hits == 0 { 16 } else { hits.trailing_zeros() as usize };
        // SAFETY: the `kept` bytes after `len` were written just above.
        unsafe { out.set_len(len + kept) };
        from += kept;
        if hits != 0 {
            return from;
        }
    }
    let stop = next_escape(bytes, from);
    out.extend_from_slice(&bytes[from..stop]);
    stop
}

#[inline]
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Writes `s` as a JSON string with `serde_json`'s escapes: the short forms
/// for `"`, `\`, backspace, form feed, newline, carriage return and tab,
/// `\u00xx` (lower-case hex) for the other controls, everything else as is.
#[inline]
pub(super) fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let n = bytes.len();
    let first = next_escape(bytes, 0);
    if first == n && (4..=16).contains(&n) {
        quoted_short::<false>(out, bytes);
        return;
    }
    out.reserve(n + 2);
    out.push(b'"');
    if first == n {
        out.extend_from_slice(bytes);
    } else {
        write_escaped(out, bytes, first);
    }
    out.push(b'"');
}

/// Writes `s` as an object key: [`write_str`] and the `:` after it.
#[inline]
pub(super) fn write_key(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let n = bytes.len();
    if (4..=16).contains(&n) && next_escape(bytes, 0) == n {
        quoted_short::<true>(out, bytes);
    } else {
        write_str(out, s);
        out.push(b':');
    }
}

/// `"bytes"` (and `:` after it with `COLON`) for 4 to 16 bytes that need no
/// escape (most keys, identifiers and tags): one `reserve` and one length
/// update for the quotes and the bytes, the bytes moved as two overlapping
/// words, without a call to `memcpy` (half the encode's copying was such
/// calls for a few bytes each).
#[inline]
fn quoted_short<const COLON: bool>(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    debug_assert!((4..=16).contains(&n));
    let total = n + 2 + usize::from(COLON);
    out.reserve(total);
    let len = out.len();
    let src = bytes.as_ptr();
    // SAFETY: `reserve` made room for `total` bytes after `len`; the reads
    // are within `bytes` (`n >= 8` for the eight-byte words, `n >= 4` for
    // the four-byte ones) and the writes within `len..len + total`, which
    // they cover whole (the quotes at both ends, the bytes between, the
    // colon last), so `set_len` exposes only initialised bytes.
    unsafe {
        let dst = out.as_mut_ptr().add(len);
        *dst = b'"';
        let body = dst.add(1);
        if n >= 8 {
            let head = std::ptr::read_unaligned(src.cast::<u64>());
            let tail = std::ptr::read_unaligned(src.add(n - 8).cast::<u64>());
            std::ptr::write_unaligned(body.cast::<u64>(), head);
            std::ptr::write_unaligned(body.add(n - 8).cast::<u64>(), tail);
        } else {
            let head = std::ptr::read_unaligned(src.cast::<u32>());
            let tail = std::ptr::read_unaligned(src.add(n - 4).cast::<u32>());
            std::ptr::write_unaligned(body.cast::<u32>(), head);
            std::ptr::write_unaligned(body.add(n - 4).cast::<u32>(), tail);
        }
        *body.add(n) = b'"';
        if COLON {
            *body.add(n + 1) = b':';
        }
        out.set_len(len + total);
    }
}

/// The rest of [`write_str`] from the first byte that needs an escape.
#[cold]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], first: usize) {
    out.extend_from_slice(&bytes[..first]);
    let mut at = first;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            }
        }
        let next = next_escape(bytes, at + 1);
        out.extend_from_slice(&bytes[at + 1..next]);
        at = next;
    }
}

/// The token `serde_json` uses to hand a `RawValue`'s text to its serializer
/// (and asks a deserializer for); the encoder and the reader both meet it.
pub(super) const RAW_VALUE: &str = "$serde_json::private::RawValue";
/// The token of an `arbitrary_precision` `serde_json::Number` (when some other
/// crate in the build turns that feature on).
pub(super) const NUMBER: &str = "$serde_json::private::Number";
