//! The ACP bindings generator and maintainer tools behind `cargo xtask`.
//!
//! The pipeline, one module a step:
//!
//! 1. [`load`]: read a schema file (checked against [`lock`]) and its upsert
//!    configuration ([`upserts`]);
//! 2. [`lower`]: JSON Schema -> the schema model ([`model`]: pointers, sides,
//!    roles, references, direction, upserts);
//! 3. [`plan`]: the generator's Rust decisions (gates, field representations);
//! 4. [`emit`] and [`rpc`]: Rust tokens, once, formatted by [`generate`];
//! 5. [`write`](mod@write): every file or none.
//!
//! [`ir`] prints the model and the plan; [`pull`] vendors a schema release;
//! [`fuzz`] runs the fuzz targets and Miri.

pub mod cfg_pairs;
pub mod convert;
pub mod diff;
pub mod emit;
pub mod error;
pub mod fuzz;
pub mod generate;
mod hash;
pub mod interop;
pub mod ir;
pub mod load;
pub mod lock;
pub mod lower;
pub mod messages;
pub mod model;
pub mod paths;
pub mod plan;
pub mod policy;
pub mod pull;
pub mod py;
pub mod registry;
pub mod rpc;
pub mod shared;
pub mod ts;
pub mod update;
pub mod upserts;
pub mod write;
