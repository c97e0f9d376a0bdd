//! The spelling of option enums ([`crate::TieBreak`], [`crate::ZeroPolicy`],
//! [`crate::io::RunFormat`]) as text: one list per enum ([`named!`]) gives its kebab-case
//! names, from which `FromStr`, `Display` and serde's `Serialize` / `Deserialize` are all
//! derived, so the command line, configuration files and messages cannot disagree on a
//! name.

use std::fmt;
use std::marker::PhantomData;

use crate::error::{MetricsError, Result};

/// An enum written as one of a fixed set of names.
pub(crate) trait Named: Copy + PartialEq + Sized + 'static {
    /// What a value of the enum is, for messages ("tie policy").
    const WHAT: &'static str;
    /// Every value, in declaration order.
    const ALL: &'static [Self];
    /// Other accepted spellings, each with the value it stands for.
    const ALIASES: &'static [(&'static str, Self)];

    /// The canonical name.
    fn name(self) -> &'static str;
}

/// The value named `text` (a canonical name or an alias; exact, case-sensitive).
pub(crate) fn parse<T: Named>(text: &str) -> Result<T> {
    T::ALL
        .iter()
        .copied()
        .find(|v| v.name() == text)
        .or_else(|| T::ALIASES.iter().find(|(alias, _)| *alias == text).map(|(_, v)| *v))
        .ok_or_else(|| MetricsError::UnknownName {
            what: T::WHAT,
            value: text.to_string(),
            allowed: allowed::<T>(),
        })
}

/// The accepted names, for messages: `a, b, c` then the aliases, if any.
pub(crate) fn allowed<T: Named>() -> String {
    let mut text = T::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ");
    if !T::ALIASES.is_empty() {
        let aliases: Vec<String> =
            T::ALIASES.iter().map(|(alias, v)| format!("{alias} for {}", v.name())).collect();
        text.push_str(&format!("; aliases {}", aliases.join(", ")));
    }
    text
}

/// Deserializes a [`Named`] value from a string through [`parse`].
pub(crate) struct NameVisitor<T>(pub(crate) PhantomData<T>);

impl<T: Named> serde::de::Visitor<'_> for NameVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {}: one of {}", T::WHAT, allowed::<T>())
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
        parse(text).map_err(E::custom)
    }
}

/// Names the variants of an enum, in declaration order, with optional aliases:
///
/// `named!(Type, "what", [Variant => "name", ...], aliases ["alias" => Variant, ...]);`
///
/// gives `Type::ALL`, the [`Named`] impl, and `Display`, `FromStr`, `Serialize` and
/// `Deserialize` all through those names. A variant left out of the list is a compile
/// error (the name match is exhaustive).
macro_rules! named {
    (
        $type:ident,
        $what:literal,
        [$($variant:ident => $name:literal),+ $(,)?]
        $(, aliases [$($alias:literal => $target:ident),* $(,)?])? $(,)?
    ) => {
        impl $type {
            /// Every value, in declaration order.
            pub const ALL: &'static [$type] = &[$($type::$variant),+];
        }

        impl $crate::names::Named for $type {
            const WHAT: &'static str = $what;
            const ALL: &'static [Self] = $type::ALL;
            const ALIASES: &'static [(&'static str, Self)] =
                &[$($(($alias, $type::$target)),*)?];

            fn name(self) -> &'static str {
                match self {
                    $($type::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad($crate::names::Named::name(*self))
            }
        }

        impl std::str::FromStr for $type {
            type Err = $crate::error::MetricsError;

            fn from_str(text: &str) -> $crate::error::Result<Self> {
                $crate::names::parse(text)
            }
        }

        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str($crate::names::Named::name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> std::result::Result<Self, D::Error> {
                deserializer.deserialize_str($crate::names::NameVisitor(std::marker::PhantomData))
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::RunFormat;
    use crate::{TieBreak, ZeroPolicy};

    /// Every value prints, serializes, parses and deserializes under its canonical name,
    /// and every alias parses to its value: through `FromStr` and through serde alike.
    fn check_round_trips<T>(canonical: &[(&str, T)], aliases: &[(&str, T)])
    where
        T: Named
            + fmt::Debug
            + fmt::Display
            + std::str::FromStr<Err = MetricsError>
            + serde::Serialize
            + serde::de::DeserializeOwned,
    {
        assert_eq!(canonical.len(), T::ALL.len());
        for &(name, value) in canonical {
            assert_eq!(value.to_string(), name);
            assert_eq!(name.parse::<T>().unwrap(), value);
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
        }
        for &(alias, value) in aliases {
            assert_eq!(alias.parse::<T>().unwrap(), value);
            assert_eq!(serde_json::from_str::<T>(&format!("\"{alias}\"")).unwrap(), value);
        }
    }

    #[test]
    fn tie_policies_have_kebab_case_names_and_the_old_cli_spellings() {
        check_round_trips(
            &[
                ("expected", TieBreak::Expected),
                ("item-ascending", TieBreak::ItemAscending),
                ("item-descending", TieBreak::ItemDescending),
            ],
            &[("item-asc", TieBreak::ItemAscending), ("item-desc", TieBreak::ItemDescending)],
        );
        assert_eq!(format!("{:>10}", TieBreak::Expected), "  expected");
    }

    #[test]
    fn zero_policies_have_kebab_case_names() {
        check_round_trips(
            &[
                ("exclude", ZeroPolicy::Exclude),
                ("zero", ZeroPolicy::Zero),
                ("ignatov", ZeroPolicy::Ignatov),
            ],
            &[],
        );
    }

    #[test]
    fn run_formats_have_lowercase_names() {
        check_round_trips(
            &[("auto", RunFormat::Auto), ("tsv", RunFormat::Tsv), ("trec", RunFormat::Trec)],
            &[],
        );
    }

    #[test]
    fn unknown_names_are_errors_listing_the_allowed_names() {
        let e = "random".parse::<TieBreak>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown tie policy `random` (allowed: expected, item-ascending, item-descending; \
             aliases item-asc for item-ascending, item-desc for item-descending)"
        );
        let e = "Zero".parse::<ZeroPolicy>().unwrap_err().to_string();
        assert_eq!(e, "unknown zero policy `Zero` (allowed: exclude, zero, ignatov)");
        let e = serde_json::from_str::<ZeroPolicy>("\"none\"").unwrap_err().to_string();
        assert!(e.contains("`none`") && e.contains("exclude, zero, ignatov"), "{e}");
        let e = serde_json::from_str::<ZeroPolicy>("1").unwrap_err().to_string();
        assert!(e.contains("a zero policy: one of exclude, zero, ignatov"), "{e}");
    }
}
