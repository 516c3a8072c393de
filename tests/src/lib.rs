//! Integration tests live in `tests/`.
