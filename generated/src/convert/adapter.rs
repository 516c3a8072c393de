//! The stateful adapters.
