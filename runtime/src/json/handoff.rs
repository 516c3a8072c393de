//! What the JSON reader (`de.rs`) and the direct decoders (`fast.rs`)
//! share, kept apart so that neither module needs the other's internals:
//! the direct decoders' failure ([`Bail`]), the struct name and the slot by
//! which the reader hands an object to a direct decoder and takes the
//! position back, the discriminators a union's arm may not repeat
//! ([`Tags`]), and the member names a direct decoder knows ([`Known`]).
//! `fast.rs` re-exports the public ones, where the generated code names them.

use std::cell::Cell;

/// The struct name the generated `Deserialize` impls of direct-decodable
/// types ask for: [`Reader`](super::de::Reader) hands those to [`visit`](super::fast::visit).
pub const STRUCT: &str = "$acp_bindings::json::fast";

/// The newtype-struct name `RawJson`'s `Deserialize` asks for: the reader
/// answers it with the value's compact text ([`take_raw_text`]); any other
/// deserializer hands over itself, and the value is read as a `Value`.
pub const RAW_JSON: &str = "$acp_bindings::RawJson";

thread_local! {
    /// Set by the reader just before it gives `RawJson`'s visitor a value's
    /// text as a string, so that the visitor tells it from a JSON string.
    static RAW_TEXT: Cell<bool> = const { Cell::new(false) };
}

/// The reader's side: the string it gives next is a value's JSON text.
#[inline]
pub(super) fn lend_raw_text() {
    RAW_TEXT.with(|r| r.set(true));
}

/// `RawJson`'s visitor's side: whether the string it was given is a
/// value's JSON text from the reader (and no longer lent).
#[inline]
pub fn take_raw_text() -> bool {
    RAW_TEXT.with(|r| r.replace(false))
}

/// A direct decoder cannot go on; the text is decoded again by serde_json.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bail;

thread_local! {
    /// The position passed between the reader and [`visit`](super::fast::visit) (`NONE` when
    /// nothing is passed) and the depth there. Two cells, each read and
    /// written whole: one `Option<(usize, u32)>` was written as two words and
    /// read back as one, which stalled the load on every object handed over.
    static AT: Cell<usize> = const { Cell::new(NONE) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// No position in [`AT`].
const NONE: usize = usize::MAX;

/// The reader's side: the object starts at `at` (also [`visit`](super::fast::visit)'s, handing
/// back the position after it).
#[inline]
pub(super) fn hand_over(at: usize, depth: u32) {
    AT.with(|a| a.set(at));
    DEPTH.with(|d| d.set(depth));
}

/// Takes the position out of the slot, if there is one: the reader's side,
/// the position after the object a direct decoder read (also [`visit`](super::fast::visit)'s,
/// the position of the object handed over).
#[inline]
pub(super) fn take_back() -> Option<(usize, u32)> {
    let at = AT.with(|a| a.replace(NONE));
    (at != NONE).then(|| (at, DEPTH.with(Cell::get)))
}

/// The discriminators read in the object at one depth (up to three: a
/// union's arm may itself be a union discriminated by another member of the
/// same object). A member of one of those names in the arm's payload bails,
/// as the visitors refuse it (`duplicate field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tags {
    pub(super) depth: u32,
    pub(super) len: u8,
    pub(super) keys: [&'static str; 3],
}

impl Tags {
    /// No discriminator.
    pub const NONE: Tags = Tags { depth: 0, len: 0, keys: [""; 3] };

    /// Whether `key` is a discriminator already read at `depth`.
    #[inline]
    pub(super) fn forbids(&self, key: &str, depth: u32) -> bool {
        // Spelled out rather than `contains(&key)`: the same comparison, but
        // `contains` cost about 100 more instructions per message on the
        // session-update stream (`cargo bench -p acp-tests --bench
        // instructions`, decode 3914 -> 4015), as it was not inlined here.
        self.len != 0
            && self.depth == depth
            && self.keys[..usize::from(self.len)].iter().any(|k| k.len() == key.len() && k.as_bytes() == key.as_bytes())
    }
}

/// A member name a direct decoder knows: `"name":` as bytes and as the
/// words [`Reader::known_key`](super::de::Reader::known_key) compares, made at compile time.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// The name.
    pub name: &'static str,
    pub(super) bytes: &'static [u8],
    pub(super) len: u8,
    /// The first eight bytes (fewer, zero-padded, for a short name).
    pub(super) lo: u64,
    /// The last eight bytes (for 9 to 16).
    pub(super) hi: u64,
    /// The bytes of `lo` that count.
    pub(super) mask: u64,
}

impl Known {
    /// `bytes` is `"name":` (the name needing no escape), `name` the name.
    pub const fn new(name: &'static str, bytes: &'static [u8]) -> Known {
        let len = bytes.len();
        assert!(len < 256, "a member name of fewer than 253 bytes");
        let (mut lo, mut hi, mut i) = (0u64, 0u64, 0);
        while i < len && i < 8 {
            lo |= (bytes[i] as u64) << (8 * i);
            i += 1;
        }
        if len > 8 {
            let mut j = 0;
            while j < 8 {
                hi |= (bytes[len - 8 + j] as u64) << (8 * j);
                j += 1;
            }
        }
        let mask = if len >= 8 { u64::MAX } else { (1u64 << (8 * len)) - 1 };
        Known { name, bytes, len: len as u8, lo, hi, mask }
    }
}
