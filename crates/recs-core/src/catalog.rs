//! How a model crate names its models and parses their parameters, so that the runner and
//! the command line can build any model from text (`--model item-knn --param k=20`)
//! without knowing its types.
//!
//! Each model crate exposes `pub fn catalog() -> Vec<ModelEntry>`; the registry in
//! `recs-bench` concatenates them. Names are the crate's to choose and must be unique.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::error::{RecsError, Result};
use crate::model::FitDyn;

/// One documented hyper-parameter of a catalogued model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// Name as written on the command line and in configs (`k`, `lambda`, `seed`, ...).
    pub name: &'static str,
    /// The default, as text.
    pub default: &'static str,
    /// One line: meaning and allowed values, with the source of the default.
    pub help: &'static str,
}

/// A model that can be built from text parameters.
#[derive(Clone, Copy)]
pub struct ModelEntry {
    /// Unique name (`item-pop`, `puresvd`, ...).
    pub name: &'static str,
    /// One line describing the model and its source.
    pub summary: &'static str,
    /// Every accepted parameter (`seed` is implicit: it comes from the runner).
    pub params: &'static [ParamSpec],
    /// True when fitting needs item attributes.
    pub needs_attributes: bool,
    /// Validates `params` and returns the unfitted model.
    pub build: fn(&ParamValues) -> Result<Box<dyn FitDyn>>,
}

impl fmt::Debug for ModelEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelEntry")
            .field("name", &self.name)
            .field("params", &self.params)
            .field("needs_attributes", &self.needs_attributes)
            .finish_non_exhaustive()
    }
}

impl ModelEntry {
    /// Checks `values` against [`ModelEntry::params`] and builds the model.
    ///
    /// # Errors
    /// An unknown parameter name (the message lists the known ones) or whatever
    /// validation the model performs.
    pub fn build_checked(&self, values: &ParamValues) -> Result<Box<dyn FitDyn>> {
        values.check_known(self.name, self.params)?;
        (self.build)(values)
    }
}

/// Parameter values as text, keyed by name, e.g. from `--param k=20`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParamValues {
    values: BTreeMap<String, String>,
}

impl ParamValues {
    /// No values: every parameter takes its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `key=value` pairs.
    ///
    /// # Errors
    /// A pair without `=`, an empty key, or a key given twice.
    pub fn parse<I, S>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut values = ParamValues::new();
        for pair in pairs {
            let pair = pair.as_ref();
            let (key, value) = pair
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| RecsError::invalid_parameter("--param", pair, "key=value"))?;
            if values.values.insert(key.trim().to_string(), value.trim().to_string()).is_some() {
                return Err(RecsError::invalid_parameter(
                    key.trim(),
                    value,
                    "a parameter given once",
                ));
            }
        }
        Ok(values)
    }

    /// Sets one value.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.values.insert(key.into(), value.into());
        self
    }

    /// The raw text of `key`, if given.
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// `key` parsed as `T`, or `default` when absent.
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] when the text does not parse.
    pub fn get_or<T: FromStr>(&self, key: &str, default: T) -> Result<T> {
        match self.values.get(key) {
            None => Ok(default),
            Some(text) => text.parse().map_err(|_| {
                RecsError::invalid_parameter(
                    key,
                    text,
                    format!("a value of type {}", std::any::type_name::<T>()),
                )
            }),
        }
    }

    /// Errors on any key not in `specs` (and not `seed`).
    ///
    /// # Errors
    /// [`RecsError::InvalidParameter`] naming the key and the accepted names.
    pub fn check_known(&self, model: &str, specs: &[ParamSpec]) -> Result<()> {
        for key in self.values.keys() {
            if key != "seed" && !specs.iter().any(|s| s.name == key) {
                let known: Vec<&str> = specs.iter().map(|s| s.name).chain(["seed"]).collect();
                return Err(RecsError::invalid_parameter(
                    key,
                    &self.values[key],
                    format!("a parameter of {model}: one of {}", known.join(", ")),
                ));
            }
        }
        Ok(())
    }

    /// All values in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[ParamSpec { name: "k", default: "20", help: "neighbours" }];

    #[test]
    fn parse_and_read() {
        let v = ParamValues::parse(["k=5", "seed=3"]).unwrap();
        assert_eq!(v.get_or("k", 20usize).unwrap(), 5);
        assert_eq!(v.get_or("alpha", 0.5f64).unwrap(), 0.5);
        assert!(v.check_known("knn", SPECS).is_ok());
    }

    #[test]
    fn bad_pairs_are_errors() {
        assert!(ParamValues::parse(["k"]).is_err());
        assert!(ParamValues::parse(["=3"]).is_err());
        assert!(ParamValues::parse(["k=1", "k=2"]).is_err());
        let v = ParamValues::parse(["k=x", "q=1"]).unwrap();
        assert!(v.get_or("k", 1usize).is_err());
        let err = v.check_known("knn", SPECS).unwrap_err().to_string();
        assert!(err.contains("one of k, seed"), "{err}");
    }
}
