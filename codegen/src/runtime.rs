//! Where generated code finds the bindings, and the one vocabulary of
//! decoding rules: the generator (`xtask`), both derive crates' macros and
//! this crate's emitters name the runtime through [`Paths`], and a field's
//! rule through [`Reader`] or [`PatchReader`], so that each runtime path is
//! spelled here and nowhere else.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

/// Where the generated code finds the bindings' runtime.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The runtime module (`crate::runtime`, `::acp_bindings::runtime`).
    pub runtime: TokenStream,
    /// The direct-decoder module (`crate::json::fast`, `::acp_bindings::json::fast`).
    pub fast: TokenStream,
    /// The crate root (`crate`, `::acp_bindings`): `Patch`, `patch::de`, the derives.
    pub root: TokenStream,
}

impl Paths {
    /// From outside the bindings crate: what the derives write in a user's crate.
    pub fn external() -> Paths {
        Paths::under(quote!(::acp_bindings))
    }

    /// From inside the bindings crate: what the generator writes in `generated/src`.
    pub fn in_crate() -> Paths {
        Paths::under(quote!(crate))
    }

    /// Beside the runtime module `runtime` (`crate::runtime`): the crate
    /// root it is in, and the direct-decoder module there.
    pub fn of_runtime(runtime: &str) -> Paths {
        let runtime = runtime.replace(' ', "");
        let root = runtime.strip_suffix("::runtime").unwrap_or("crate");
        Paths::under(root.parse().expect("a crate path parses"))
    }

    /// Under the crate root `root`.
    pub fn under(root: TokenStream) -> Paths {
        Paths { runtime: quote!(#root::runtime), fast: quote!(#root::json::fast), root }
    }

    /// The reader type of a rule (a type implementing `runtime::read::Reader<T>`
    /// and `runtime::read::Rule<'de, T>` for the field's type `T`).
    pub fn reader(&self, r: &Reader) -> TokenStream {
        let read = {
            let rt = &self.runtime;
            quote!(#rt::read)
        };
        match r {
            Reader::Plain => quote!(#read::Plain),
            Reader::Named(name) => {
                let name = format_ident!("{}", name.name());
                quote!(#read::#name)
            }
            Reader::CheckedStr { rule, optional: false, .. } => quote!(#read::CheckedStr<#rule>),
            Reader::CheckedStr { rule, optional: true, lenient } => quote!(#read::OptCheckedStr<#rule, #lenient>),
            Reader::IntInRange { pointer, min, max, optional: false, .. } => {
                let (min, max) = (const_i128(*min), const_i128(*max));
                quote!(#read::IntInRange<#min, #max, #pointer>)
            }
            Reader::IntInRange { pointer, min, max, optional: true, lenient } => {
                let (min, max) = (const_i128(*min), const_i128(*max));
                quote!(#read::OptIntInRange<#min, #max, #lenient, #pointer>)
            }
            Reader::FloatInRange { pointer, min, max, optional: false, .. } => {
                let (min, max) = (const_bits(*min), const_bits(*max));
                quote!(#read::FloatInRange<#min, #max, #pointer>)
            }
            Reader::FloatInRange { pointer, min, max, optional: true, lenient } => {
                let (min, max) = (const_bits(*min), const_bits(*max));
                quote!(#read::OptFloatInRange<#min, #max, #lenient, #pointer>)
            }
            Reader::ItemCount { pointer, min, max, lenient, inner } => {
                let count = |n: u64| Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(usize::MAX));
                let min = count(*min);
                let max = match max {
                    Some(m) => {
                        let m = count(*m);
                        quote!(#m)
                    }
                    None => quote!({ usize::MAX }),
                };
                let inner = self.reader(inner);
                quote!(#read::ItemCount<#min, #max, #lenient, #pointer, #inner>)
            }
            Reader::Patch(p) => {
                let root = &self.root;
                let name = format_ident!("{}", p.name());
                quote!(#root::patch::de::#name)
            }
        }
    }

    /// `deserialize_with = "..."` naming `reader` for serde's derive
    /// (`runtime::read::with::<Reader, _, _>`).
    pub fn deserialize_with(&self, reader: &Reader) -> TokenStream {
        let (rt, reader) = (&self.runtime, self.reader(reader));
        // serde parses the path from a string; spaces between tokens are not needed.
        let path = Literal::string(&quote!(#rt::read::with::<#reader, _, _>).to_string().replace(' ', ""));
        quote!(deserialize_with = #path)
    }
}

/// A field's decoding rule, as the reader type that applies it: the rules
/// of `runtime::read` (and `patch::de` for an upsert's patch fields).
#[derive(Debug, Clone)]
pub enum Reader {
    /// The field type's own decoding (inside [`Reader::ItemCount`]).
    Plain,
    /// A reader without parameters.
    Named(Named),
    /// A string with `minLength`/`maxLength`/`pattern`, by the hidden type
    /// `rule` (a `runtime::de::StrRule`); optional ones may be lenient.
    CheckedStr { rule: Ident, optional: bool, lenient: bool },
    /// An integer with bounds; `pointer` names the hidden `runtime::de::Pointer` type.
    IntInRange { pointer: Ident, min: i128, max: i128, optional: bool, lenient: bool },
    /// A number with bounds.
    FloatInRange { pointer: Ident, min: f64, max: f64, optional: bool, lenient: bool },
    /// A list with `minItems`/`maxItems`, its items read by `inner`.
    ItemCount { pointer: Ident, min: u64, max: Option<u64>, lenient: bool, inner: Box<Reader> },
    /// An upsert patch field's reader (`patch::de`).
    Patch(PatchReader),
}

/// The readers of `runtime::read` without parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A bad value reads as the default (`x-deserialize-default-on-error`).
    Lenient,
    /// `_meta` under default-on-error.
    LenientMeta,
    /// A scalar under default-on-error.
    LenientScalar,
    /// A list whose bad items are dropped, itself default-on-error.
    LenientItems,
    /// A list whose bad items are dropped.
    Items,
    /// Any JSON, `null` kept.
    Any,
    /// Free-form JSON under the rule for repeated member names.
    Json,
    /// A present `null` told from an absent property.
    Present,
    /// `null` reads as the default.
    NullAsDefault,
}

impl Named {
    /// The reader's type name.
    pub fn name(self) -> &'static str {
        match self {
            Named::Lenient => "Lenient",
            Named::LenientMeta => "LenientMeta",
            Named::LenientScalar => "LenientScalar",
            Named::LenientItems => "LenientItems",
            Named::Items => "Items",
            Named::Any => "Any",
            Named::Json => "Json",
            Named::Present => "Present",
            Named::NullAsDefault => "NullAsDefault",
        }
    }
}

/// How an upsert's patch field is read on the wire: a reader type of
/// `acp_bindings::patch::de` (a `runtime::read::Reader` of the field's patch type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchReader {
    /// A bad value keeps (a patch's default-on-error).
    Lenient,
    /// A scalar: a bad value keeps.
    LenientScalar,
    /// A list whose bad items are dropped.
    LenientItems,
    /// A list whose bad item is an error.
    StrictItems,
    /// Any JSON, `null` clears.
    AnyJson,
    /// A nested patch: a bad value keeps.
    NestedLenient,
    /// A nested patch: a bad value is an error.
    NestedStrict,
    /// `_meta` patched by key: a bad value keeps.
    LenientByKey,
    /// `_meta` patched by key: a bad value is an error.
    StrictByKey,
}

impl PatchReader {
    /// The rule under `#[acp(strict)]` (a bad value is an error); `None`
    /// reads the patch type's own `Deserialize`.
    pub fn strict(self) -> Option<PatchReader> {
        match self {
            PatchReader::Lenient | PatchReader::LenientScalar => None,
            PatchReader::LenientItems => Some(PatchReader::StrictItems),
            PatchReader::NestedLenient => Some(PatchReader::NestedStrict),
            PatchReader::LenientByKey => Some(PatchReader::StrictByKey),
            other => Some(other),
        }
    }

    /// The reader's type name.
    pub fn name(self) -> &'static str {
        match self {
            PatchReader::Lenient => "Lenient",
            PatchReader::LenientScalar => "LenientScalar",
            PatchReader::LenientItems => "LenientItems",
            PatchReader::StrictItems => "StrictItems",
            PatchReader::AnyJson => "AnyJson",
            PatchReader::NestedLenient => "NestedLenient",
            PatchReader::NestedStrict => "NestedStrict",
            PatchReader::LenientByKey => "LenientByKey",
            PatchReader::StrictByKey => "StrictByKey",
        }
    }
}

/// An `i128` const argument (a negative one in braces).
fn const_i128(v: i128) -> TokenStream {
    let lit = Literal::i128_unsuffixed(v.abs());
    if v < 0 {
        quote!({ -#lit })
    } else {
        quote!(#lit)
    }
}

/// An `f64` bound as the `u64` const argument the runtime takes (`f64::to_bits`).
fn const_bits(v: f64) -> TokenStream {
    format!("{:#x}", v.to_bits()).parse().expect("a hex literal parses")
}
