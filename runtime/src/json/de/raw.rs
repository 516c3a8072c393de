//! A value's JSON text for [`crate::RawJson`]: the reader's walk that checks
//! and compacts it, and its `Deserialize` entry.

use serde::de::Visitor;
use serde_json::Error;

use super::{bail, decline, Bail, Reader, Text};

/// The most members an object of a [`Reader::raw_json`] value may have for
/// the reader to check its names itself (a larger one goes to the serde path).
const RAW_NAMES: usize = 16;

impl<'de> Reader<'de> {
    /// One value's JSON text without the whitespace between its tokens, for
    /// [`crate::RawJson`]: read as strictly as [`Self::skip_value`] reads it,
    /// and under the rule for repeated member names that free-form JSON is
    /// read under (`runtime::de::json`). It bails (the serde path reads the
    /// value) on a member name with an escape, an object of more than
    /// [`RAW_NAMES`] members, a repeated name and a number out of `f64`'s
    /// range: that path refuses the last two, as `serde_json::Value` does.
    /// The value is walked once; text without whitespace inside (what peers
    /// write) is then copied whole, and other text is compacted ([`compact`]).
    pub fn raw_json(&mut self) -> Result<String, Bail> {
        self.raw_text().map_err(bail)
    }

    fn raw_text(&mut self) -> Result<String, Error> {
        self.peek()?;
        let mark = self.mark();
        let mut spaced = false;
        self.raw(&mut spaced)?;
        let text = &self.text[mark.at..self.at];
        Ok(if spaced { compact(text) } else { text.to_owned() })
    }

    /// The next byte after whitespace, noting in `spaced` whether there was any.
    #[inline(always)]
    fn peek_noting(&mut self, spaced: &mut bool) -> Result<u8, Error> {
        if self.bytes().get(self.at).is_some_and(|&b| b <= b' ') {
            *spaced = true;
        }
        self.peek()
    }

    /// Reads one value for [`Self::raw_json`], noting in `spaced` whether
    /// there is whitespace between its tokens.
    fn raw(&mut self, spaced: &mut bool) -> Result<(), Error> {
        match self.peek_noting(spaced)? {
            b'{' => {
                self.enter()?;
                self.at += 1;
                self.peek_noting(spaced)?;
                if self.more(b'}').map_err(|_| decline())? {
                    let mut names: [&str; RAW_NAMES] = [""; RAW_NAMES];
                    let mut n = 0;
                    loop {
                        if self.peek_noting(spaced)? != b'"' {
                            return Err(decline());
                        }
                        let name = match self.string()? {
                            Text::Borrowed(name) if n < RAW_NAMES && !names[..n].contains(&name) => name,
                            _ => return Err(decline()),
                        };
                        names[n] = name;
                        n += 1;
                        if self.peek_noting(spaced)? != b':' {
                            return Err(decline());
                        }
                        self.at += 1;
                        self.raw(spaced)?;
                        self.peek_noting(spaced)?;
                        if !self.separator(b'}').map_err(|_| decline())? {
                            break;
                        }
                    }
                }
                Ok(())
            }
            b'[' => {
                self.enter()?;
                self.at += 1;
                self.peek_noting(spaced)?;
                if self.more(b']').map_err(|_| decline())? {
                    loop {
                        self.raw(spaced)?;
                        self.peek_noting(spaced)?;
                        if !self.separator(b']').map_err(|_| decline())? {
                            break;
                        }
                    }
                }
                Ok(())
            }
            // A number `serde_json::Value` refuses (out of `f64`'s range,
            // `1e400`) declines, for the serde path to refuse it too.
            b'-' | b'0'..=b'9' => {
                let text = self.number_text()?;
                let plain = text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit());
                if !plain && serde_json::from_str::<serde_json::Value>(text).is_err() {
                    return Err(decline());
                }
                Ok(())
            }
            // Any other scalar holds no whitespace (a string with a lone
            // surrogate escape is refused, as there).
            _ => self.skip(),
        }
    }

    /// `RawJson`'s `Deserialize` (its newtype name): the text, as the direct
    /// decoders read it, lent to the visitor as a string; what they decline
    /// (an escaped name, a wide object) is checked by the serde path
    /// (`runtime::de::json`, under the rule for repeated names) and its text
    /// kept all the same.
    pub(super) fn raw_json_visit<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        self.peek()?;
        let mark = self.mark();
        let text = match self.raw_text() {
            Ok(text) => text,
            Err(_) => {
                self.reset(mark);
                crate::runtime::de::json(&mut *self)?;
                compact(&self.text[mark.at..self.at])
            }
        };
        super::super::handoff::lend_raw_text();
        let value = visitor.visit_string(text);
        // Not left lent, whatever the visitor did.
        super::super::handoff::take_raw_text();
        value
    }
}

/// `text`, valid JSON, without the whitespace between its tokens.
pub(crate) fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut run, mut in_string, mut escaped) = (0, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            // Whitespace is ASCII, so `i` is a character boundary.
            out.push_str(&text[run..i]);
            run = i + 1;
        }
    }
    out.push_str(&text[run..]);
    out
}
