//! How the derives are told the wire names: a `rename_all` convention
//! for a type whose names mostly follow one, a `rename` for each other name.
//! A decision of the plan, from names the model has; the conventions and
//! their rules are `acp-bindings-codegen`'s (serde's), as the derives apply them.

/// How a derive names the variants of `(rust name, wire name)` pairs: the
/// `rename_all` convention most of them follow (none when the Rust names are
/// the wire names, or when no convention fits two), and the Rust names that
/// need a `rename` of their own. The conventions are `acp-bindings-codegen`'s,
/// as the derives apply them (serde's).
pub fn naming<'a>(pairs: &[(&'a str, &str)]) -> (Option<acp_bindings_codegen::case::Case>, Vec<&'a str>) {
    naming_by(pairs, acp_bindings_codegen::case::Case::Pascal, acp_bindings_codegen::case::Case::variant)
}

/// [`naming`] for the fields of a struct (`snake_case` Rust names; a raw
/// identifier's `r#` is not part of its name).
pub fn field_naming<'a>(pairs: &[(&'a str, &str)]) -> (Option<acp_bindings_codegen::case::Case>, Vec<&'a str>) {
    naming_by(pairs, acp_bindings_codegen::case::Case::Snake, |case, rust| {
        case.field(rust.strip_prefix("r#").unwrap_or(rust))
    })
}

fn naming_by<'a>(
    pairs: &[(&'a str, &str)],
    own: acp_bindings_codegen::case::Case,
    apply: impl Fn(acp_bindings_codegen::case::Case, &str) -> String,
) -> (Option<acp_bindings_codegen::case::Case>, Vec<&'a str>) {
    use acp_bindings_codegen::case::Case;
    let fits = |case: Case| pairs.iter().filter(|(r, w)| apply(case, r) == *w).count();
    // The Rust names as they are (no attribute) first: the first of the best wins a tie.
    let mut best = own;
    for case in Case::ALL {
        if fits(case) > fits(best) {
            best = case;
        }
    }
    let case = if fits(best) < 2 { own } else { best };
    let renamed = pairs.iter().filter(|(r, w)| apply(case, r) != *w).map(|(r, _)| *r).collect();
    ((case != own).then_some(case), renamed)
}
