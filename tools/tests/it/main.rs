//! `acp-tools`' integration tests, in one test binary (`cargo test -p
//! acp-tools --test it`; `-- python::` runs one module's). One binary rather
//! than a binary a file: cargo runs test binaries one after another, and the
//! Python and TypeScript tests each leave a core idle for much of their time
//! (a virtual environment from PyPI, `npm`, one Node or Python process at a
//! time); in one binary they share the two cores, and build `ts/` once.

mod common;

mod action;
mod bridge;
mod check_messages;
mod convert;
mod python;
mod replay;
mod schema_diff;
mod typescript;
