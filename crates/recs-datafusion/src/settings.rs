//! What `recs_user_part` evaluates with, written as the string literal of its fourth
//! argument: `metrics=ndcg@10,map;threshold=1;ties=expected;zero=exclude;neutral=0;
//! gain_offset=0;missing=last;max_fpr=0.3;items=numeric` (one line, no spaces). A literal travels with
//! the plan — to every partition and to every Ballista executor — where state held by a
//! registered function would not.

use std::fmt;
use std::str::FromStr;

use datafusion::common::{DataFusionError, Result};
use recs_metrics::stream::Evaluator;
use recs_metrics::{Metric, Options};

/// The metrics and options of one evaluation, and how the qrels' items are ordered.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The per-user metrics evaluated in each user's part.
    pub metrics: Vec<Metric>,
    /// The options of the per-user metrics.
    pub options: Options,
    /// The largest false-alarm rate of the partial ROC area.
    pub max_fpr: f64,
    /// Whether every qrels item id is an integer: items are then ordered by value (as
    /// [`recs_core::IdMap::from_ids_sorted`] orders them), otherwise by their bytes.
    pub numeric_items: bool,
}

impl Settings {
    /// The evaluator these settings configure.
    ///
    /// # Errors
    /// The errors of [`Evaluator::new`].
    pub fn evaluator(&self) -> Result<Evaluator> {
        Evaluator::new(&self.metrics, self.options, self.max_fpr)
            .map_err(|e| DataFusionError::External(Box::new(e)))
    }

    /// These settings as a SQL string literal, quotes included.
    pub fn to_sql_literal(&self) -> String {
        // No field's text holds a quote; doubling them keeps the literal well formed anyway.
        format!("'{}'", self.to_string().replace('\'', "''"))
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let metrics: Vec<String> = self.metrics.iter().map(Metric::to_string).collect();
        let o = &self.options;
        // `{:?}` prints floats so that they parse back to the same bits.
        write!(
            f,
            "metrics={};threshold={:?};ties={};zero={};neutral={:?};gain_offset={:?};missing={};max_fpr={:?};items={}",
            metrics.join(","),
            o.threshold,
            o.ties,
            o.zero,
            o.neutral,
            o.gain_offset,
            o.missing,
            self.max_fpr,
            if self.numeric_items { "numeric" } else { "bytes" }
        )
    }
}

impl FromStr for Settings {
    type Err = DataFusionError;

    fn from_str(text: &str) -> Result<Self> {
        let bad = |what: String| {
            DataFusionError::Plan(format!("recs_user_part settings `{text}`: {what}"))
        };
        let mut settings = Settings {
            metrics: Vec::new(),
            options: Options::default(),
            max_fpr: f64::NAN,
            numeric_items: false,
        };
        let mut seen = Vec::new();
        for field in text.split(';') {
            let (key, value) =
                field.split_once('=').ok_or_else(|| bad(format!("`{field}` is not key=value")))?;
            let invalid = |e: &dyn fmt::Display| bad(format!("{key}: {e}"));
            let number = |v: &str| v.parse::<f64>().map_err(|e| invalid(&e));
            let o = &mut settings.options;
            match key {
                "metrics" => {
                    settings.metrics = Metric::parse_list(value).map_err(|e| invalid(&e))?
                }
                "threshold" => o.threshold = number(value)? as f32,
                "ties" => o.ties = value.parse().map_err(|e| invalid(&e))?,
                "zero" => o.zero = value.parse().map_err(|e| invalid(&e))?,
                "neutral" => o.neutral = number(value)? as f32,
                "gain_offset" => o.gain_offset = number(value)? as f32,
                "missing" => o.missing = value.parse().map_err(|e| invalid(&e))?,
                "max_fpr" => settings.max_fpr = number(value)?,
                "items" => {
                    settings.numeric_items = match value {
                        "numeric" => true,
                        "bytes" => false,
                        _ => return Err(invalid(&"expected `numeric` or `bytes`")),
                    }
                }
                _ => return Err(bad(format!("unknown key `{key}`"))),
            }
            if seen.contains(&key) {
                return Err(bad(format!("`{key}` given twice")));
            }
            seen.push(key);
        }
        let all = [
            "metrics",
            "threshold",
            "ties",
            "zero",
            "neutral",
            "gain_offset",
            "missing",
            "max_fpr",
            "items",
        ];
        if let Some(missing) = all.iter().find(|k| !seen.contains(k)) {
            return Err(bad(format!("`{missing}` is missing")));
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_metrics::{Missing, TieBreak, ZeroPolicy};

    #[test]
    fn settings_round_trip_through_their_literal_bit_for_bit() {
        let settings = Settings {
            metrics: Metric::parse_list("croc,ndcg@10,half_life@4.5,map").unwrap(),
            options: Options {
                threshold: 0.1,
                ties: TieBreak::Expected,
                zero: ZeroPolicy::Zero,
                neutral: 1.0 / 3.0,
                missing: Missing::Last,
                gain_offset: 3.0,
            },
            max_fpr: 0.1 + 0.2,
            numeric_items: true,
        };
        let text = settings.to_string();
        let back: Settings = text.parse().unwrap();
        assert_eq!(back, settings);
        assert_eq!(back.options.neutral.to_bits(), settings.options.neutral.to_bits());
        assert_eq!(back.max_fpr.to_bits(), settings.max_fpr.to_bits());
        assert_eq!(settings.to_sql_literal(), format!("'{text}'"));
    }

    #[test]
    fn bad_settings_name_the_key() {
        let good = Settings {
            metrics: vec![Metric::Map],
            options: Options::default(),
            max_fpr: 0.3,
            numeric_items: false,
        }
        .to_string();
        let error = |text: &str| text.parse::<Settings>().unwrap_err().to_string();
        assert!(error(&good.replace("ties=expected", "ties=sideways")).contains("ties"));
        assert!(error(&good.replace(";items=bytes", "")).contains("`items` is missing"));
        assert!(error(&format!("{good};zero=zero")).contains("`zero` given twice"));
        assert!(error(&good.replace("map", "nope")).contains("metrics"));
        assert!(error("metrics").contains("not key=value"));
    }
}
