//! FNV-1a, 64 bits: the stable short names the tools give texts (a schema
//! diff's fingerprints, fuzz seed files, `schemars` fragment constants).

/// The FNV-1a hash of `bytes`.
pub(crate) fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
