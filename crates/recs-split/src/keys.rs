//! Protocols by name and text parameters: the one table of protocol keys and defaults
//! that configurations (`recs run`) and command lines (`recs split`) both read.
//!
//! Every value is text, as a user writes it: amounts as `331`, `0.2` or `20%`; `given` as
//! a count, a fraction or `all-but:N`; a temporal `cut` as `at:T` or `fraction:F`.

use recs_core::{RecsError, Result};

use crate::protocol::{Amount, Generalization, Given, HistoryOrder, Protocol, TimeCut};

/// One parameter of a protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolKey {
    /// The key as written (`k`, `min_train`, ...).
    pub name: &'static str,
    /// Its default as text, or `None` when it must be given.
    pub default: Option<&'static str>,
}

const fn key(name: &'static str, default: Option<&'static str>) -> ProtocolKey {
    ProtocolKey { name, default }
}

/// Every protocol drawn from events, with its keys, in documentation order.
pub const PROTOCOL_KEYS: &[(&str, &[ProtocolKey])] = &[
    ("holdout", &[key("test_fraction", Some("0.2"))]),
    ("leave-k-out", &[key("k", Some("1")), key("min_train", Some("1"))]),
    ("leave-one-out", &[]),
    ("kfold-events", &[key("folds", Some("5"))]),
    (
        "kfold-users",
        &[key("folds", Some("5")), key("given", Some("1")), key("generalization", Some("weak"))],
    ),
    (
        "hidden-items",
        &[key("folds", Some("5")), key("hidden", Some("10")), key("generalization", Some("weak"))],
    ),
    ("cold-start-items", &[key("test_items", Some("0.2")), key("min_item_events", Some("0"))]),
    ("strong", &[key("test_users", Some("0.2")), key("given", Some("1"))]),
    (
        "given-l",
        &[key("test_users", Some("0.2")), key("max_l", Some("50")), key("order", Some("random"))],
    ),
    ("temporal", &[key("cut", None)]),
    ("temporal-last-n", &[key("n", None), key("min_train", Some("1"))]),
];

/// The keys of protocol `name`, or `None` for an unknown name.
pub fn protocol_keys(name: &str) -> Option<&'static [ProtocolKey]> {
    PROTOCOL_KEYS.iter().find(|(n, _)| *n == name).map(|(_, keys)| *keys)
}

/// The names of [`PROTOCOL_KEYS`], comma-separated, for messages.
pub fn protocol_names() -> String {
    PROTOCOL_KEYS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// The text form [`Given::from_text`] reads.
impl std::fmt::Display for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Given::N(n) => write!(f, "{n}"),
            Given::Fraction(x) => write!(f, "{x:?}"),
            Given::AllBut(n) => write!(f, "all-but:{n}"),
        }
    }
}

impl Given {
    /// `given` as text: a count (`1`), a fraction (`0.5`, `50%`) or `all-but:N`.
    ///
    /// ```
    /// use recs_split::Given;
    /// assert_eq!(Given::from_text("all-but:1")?, Given::AllBut(1));
    /// assert_eq!(Given::from_text("2")?, Given::N(2));
    /// assert!(Given::from_text("all-but:x").is_err());
    /// for given in [Given::AllBut(1), Given::N(2), Given::Fraction(0.5)] {
    ///     assert_eq!(Given::from_text(&given.to_string())?, given);
    /// }
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming `given` for any other text.
    pub fn from_text(v: &str) -> Result<Given> {
        if let Some(n) = v.strip_prefix("all-but:") {
            let n = n.trim().parse().map_err(|_| {
                RecsError::invalid_parameter("given", v, "`all-but:N` with a whole number N")
            })?;
            return Ok(Given::AllBut(n));
        }
        let given = match v.parse::<Amount>() {
            Ok(Amount::Count(n)) => Given::N(n),
            Ok(Amount::Fraction(f)) => Given::Fraction(f),
            Err(_) => {
                return Err(RecsError::invalid_parameter(
                    "given",
                    v,
                    "a count (1), a fraction in [0, 1] (0.5), a percentage (50%) or all-but:N",
                ));
            }
        };
        given.validate()?;
        Ok(given)
    }
}

impl Protocol {
    /// The protocol `name` with text parameters `values`; keys not given take their
    /// defaults from [`PROTOCOL_KEYS`]. The result is validated.
    ///
    /// ```
    /// use recs_split::{Amount, Protocol};
    /// let p = Protocol::from_keys("leave-k-out", &[("k".into(), "20%".into())])?;
    /// assert_eq!(p, Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 });
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming the key: an unknown protocol (the message
    /// lists the known ones), a key the protocol does not read (listing its keys), a
    /// missing required key, a key given twice, or a value that does not parse or
    /// validate.
    pub fn from_keys(name: &str, values: &[(String, String)]) -> Result<Protocol> {
        let keys = protocol_keys(name).ok_or_else(|| {
            RecsError::invalid_parameter("protocol", name, format!("one of {}", protocol_names()))
        })?;
        for (at, (key, _)) in values.iter().enumerate() {
            if !keys.iter().any(|k| k.name == key) {
                let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
                let names = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(RecsError::invalid_parameter(
                    key,
                    &values[at].1,
                    format!("a key of protocol `{name}` (its keys: {names})"),
                ));
            }
            if values[..at].iter().any(|(k, _)| k == key) {
                return Err(RecsError::invalid_parameter(key, &values[at].1, "one value"));
            }
        }
        let text = |key: &str| -> Result<&str> {
            if let Some((_, v)) = values.iter().find(|(k, _)| k == key) {
                return Ok(v.as_str());
            }
            keys.iter().find(|k| k.name == key).and_then(|k| k.default).ok_or_else(|| {
                RecsError::invalid_parameter(
                    key,
                    "nothing",
                    format!("a value (protocol `{name}` needs `{key}`)"),
                )
            })
        };
        let count = |key: &str| -> Result<usize> {
            let v = text(key)?;
            v.trim().parse().map_err(|_| RecsError::invalid_parameter(key, v, "a whole number"))
        };
        let amount = |key: &str| -> Result<Amount> {
            let v = text(key)?;
            v.parse::<Amount>().map_err(|_| {
                RecsError::invalid_parameter(
                    key,
                    v,
                    "a count (331), a fraction in [0, 1] (0.2) or a percentage (20%)",
                )
            })
        };
        let given = || -> Result<Given> { Given::from_text(text("given")?) };
        let generalization = || -> Result<Generalization> {
            match text("generalization")? {
                "weak" => Ok(Generalization::Weak),
                "strong" => Ok(Generalization::Strong),
                other => {
                    Err(RecsError::invalid_parameter("generalization", other, "weak or strong"))
                }
            }
        };
        let protocol = match name {
            "holdout" => {
                let v = text("test_fraction")?;
                let test_fraction = v.trim().parse().map_err(|_| {
                    RecsError::invalid_parameter("test_fraction", v, "a fraction in (0, 1)")
                })?;
                Protocol::Holdout { test_fraction }
            }
            "leave-k-out" => {
                Protocol::LeaveKOut { k: amount("k")?, min_train: count("min_train")? }
            }
            "leave-one-out" => Protocol::LeaveOneOut,
            "kfold-events" => Protocol::KFoldEvents { folds: count("folds")? },
            "kfold-users" => Protocol::KFoldUsers {
                folds: count("folds")?,
                given: given()?,
                generalization: generalization()?,
            },
            "hidden-items" => Protocol::HiddenItems {
                folds: count("folds")?,
                hidden: amount("hidden")?,
                generalization: generalization()?,
            },
            "cold-start-items" => Protocol::ColdStartItems {
                test_items: amount("test_items")?,
                min_item_events: count("min_item_events")?,
            },
            "strong" => Protocol::Strong { test_users: amount("test_users")?, given: given()? },
            "given-l" => Protocol::GivenL {
                test_users: amount("test_users")?,
                max_l: count("max_l")?,
                order: match text("order")? {
                    "random" => HistoryOrder::Random,
                    "timestamp" | "time" => HistoryOrder::Timestamp,
                    other => {
                        return Err(RecsError::invalid_parameter(
                            "order",
                            other,
                            "random or timestamp",
                        ));
                    }
                },
            },
            "temporal" => {
                let v = text("cut")?;
                let bad = || {
                    RecsError::invalid_parameter("cut", v, "`at:T` (a timestamp) or `fraction:F`")
                };
                let cut = match v.split_once(':') {
                    Some(("at", t)) => TimeCut::At(t.trim().parse().map_err(|_| bad())?),
                    Some(("fraction", f)) => {
                        TimeCut::Fraction(f.trim().parse().map_err(|_| bad())?)
                    }
                    _ => return Err(bad()),
                };
                Protocol::TemporalCut { cut }
            }
            "temporal-last-n" => {
                Protocol::TemporalLastN { n: count("n")?, min_train: count("min_train")? }
            }
            // `protocol_keys` accepted the name, so every listed name has an arm above.
            other => {
                return Err(RecsError::invalid_parameter(
                    "protocol",
                    other,
                    format!("one of {}", protocol_names()),
                ));
            }
        };
        protocol.validate()?;
        Ok(protocol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(values: &[(&str, &str)]) -> Vec<(String, String)> {
        values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// The table lists exactly the keys each protocol serialises, and its defaults fill
    /// every key: a protocol written with its required keys only parses. (That every
    /// protocol is in the table is checked beside the protocols' serde tests.)
    #[test]
    fn the_key_table_matches_the_protocols() {
        for (name, keys) in PROTOCOL_KEYS {
            let required: Vec<(String, String)> = match *name {
                "temporal" => pairs(&[("cut", "at:0")]),
                "temporal-last-n" => pairs(&[("n", "1")]),
                _ => Vec::new(),
            };
            let protocol = Protocol::from_keys(name, &required).unwrap();
            assert_eq!(protocol.name(), *name);
            let serialised = serde_json::to_value(&protocol).unwrap();
            let mut names: Vec<&str> = serialised
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "protocol")
                .collect();
            let mut listed: Vec<&str> = keys.iter().map(|k| k.name).collect();
            names.sort_unstable();
            listed.sort_unstable();
            assert_eq!(names, listed, "{name}");
            let optional = keys.iter().filter(|k| k.default.is_some()).count();
            assert_eq!(optional + required.len(), keys.len(), "{name}: defaults fill the rest");
        }
    }

    #[test]
    fn values_take_every_spelling() {
        let k = |v: &str| Protocol::from_keys("leave-k-out", &pairs(&[("k", v)])).unwrap();
        assert_eq!(k("3"), Protocol::LeaveKOut { k: Amount::Count(3), min_train: 1 });
        assert_eq!(k("0.25"), Protocol::LeaveKOut { k: Amount::Fraction(0.25), min_train: 1 });
        assert_eq!(k("25%"), Protocol::LeaveKOut { k: Amount::Fraction(0.25), min_train: 1 });
        let strong = |v: &str| {
            Protocol::from_keys("strong", &pairs(&[("test_users", "10"), ("given", v)])).unwrap()
        };
        assert!(matches!(strong("all-but:2"), Protocol::Strong { given: Given::AllBut(2), .. }));
        assert!(matches!(strong("0.5"), Protocol::Strong { given: Given::Fraction(_), .. }));
        let cut = |v: &str| Protocol::from_keys("temporal", &pairs(&[("cut", v)])).unwrap();
        assert_eq!(cut("fraction:0.1"), Protocol::TemporalCut { cut: TimeCut::Fraction(0.1) });
    }

    #[test]
    fn errors_name_the_key_and_what_is_allowed() {
        let err = |name: &str, values: &[(&str, &str)]| {
            Protocol::from_keys(name, &pairs(values)).unwrap_err().to_string()
        };
        let e = err("leave-some-out", &[]);
        assert!(e.contains("leave-some-out") && e.contains("kfold-events"), "{e}");
        let e = err("leave-k-out", &[("min_tran", "1")]);
        assert!(e.contains("min_tran") && e.contains("min_train"), "{e}");
        let e = err("temporal", &[]);
        assert!(e.contains("cut"), "{e}");
        let e = err("leave-k-out", &[("k", "lots")]);
        assert!(e.contains("`k`") || e.contains("k"), "{e}");
        assert!(err("kfold-events", &[("folds", "1")]).contains("folds"));
        assert!(err("kfold-users", &[("generalization", "medium")]).contains("weak or strong"));
        assert!(err("leave-k-out", &[("k", "1"), ("k", "2")]).contains("one value"));
    }
}
