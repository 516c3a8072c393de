// Nothing to build: the build-dependencies are here for the features they
// give the host's crates (see Cargo.toml).
fn main() {}
