//! `recs eval --user-groups FILE`: every per-user mean broken down by a user attribute
//! (gender, age band, occupation, profile length, ...), with the gap between the groups
//! (`recs_metrics::io::UserGroups::breakdown`: the mean absolute difference of the group
//! means and its bootstrap interval), as text and JSON.

use std::path::Path;

use recs_metrics::io::{Qrels, read_user_groups};
use recs_metrics::{GroupBreakdown, PerUser};
use serde_json::{Value, json};

/// The per-user means by group, with the group names in the order of their indices.
pub(crate) struct ByGroup {
    names: Vec<String>,
    breakdowns: Vec<GroupBreakdown>,
}

/// The breakdown of every per-user mean of `values` over the groups of the file at
/// `path` (users without a group are left out, and counted in a warning; an undefined gap
/// is a warning too).
///
/// # Errors
/// The file's errors, naming file and line ([`read_user_groups`]).
pub(crate) fn breakdown(
    values: &PerUser,
    qrels: &Qrels,
    path: &Path,
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> anyhow::Result<ByGroup> {
    let groups = read_user_groups(path)?;
    let (breakdowns, left_out) = groups.breakdown(values, qrels, resamples, seed);
    if left_out > 0 {
        warnings.push(format!(
            "--user-groups: {left_out} of {} evaluated users have no group and are left out \
             of the breakdown",
            values.users().len()
        ));
    }
    warnings.extend(
        breakdowns
            .iter()
            .filter_map(|b| b.error.as_ref().map(|e| format!("{} by group: {e}", b.key))),
    );
    Ok(ByGroup { names: groups.names().to_vec(), breakdowns })
}

impl ByGroup {
    /// None asked for.
    pub(crate) fn none() -> ByGroup {
        ByGroup { names: Vec::new(), breakdowns: Vec::new() }
    }

    /// Whether there is nothing to show.
    pub(crate) fn is_empty(&self) -> bool {
        self.breakdowns.is_empty()
    }

    /// The breakdowns as the `groups` object of `--json`.
    pub(crate) fn json(&self, number: impl Fn(Option<f64>) -> Value) -> Value {
        let mut out = serde_json::Map::new();
        for b in &self.breakdowns {
            let mut groups = serde_json::Map::new();
            for (name, (mean, n)) in self.names.iter().zip(&b.means) {
                groups.insert(name.clone(), json!({ "mean": number(*mean), "n_users": n }));
            }
            out.insert(
                b.key.clone(),
                json!({
                    "groups": Value::Object(groups),
                    "mad": number(b.gap.map(|g| g.0)),
                    "mad_ci95_bootstrap": b.gap.map_or(Value::Null, |g| json!(g.1)),
                }),
            );
        }
        Value::Object(out)
    }

    /// The breakdowns as text, after the report's lines.
    pub(crate) fn print(&self, width: usize, text: impl Fn(Option<f64>) -> String) {
        for b in &self.breakdowns {
            println!();
            println!("{} by group", b.key);
            for (name, (mean, n)) in self.names.iter().zip(&b.means) {
                println!("  {name:<width$}  {}  ({n} users)", text(*mean));
            }
            match b.gap {
                Some((mad, [lo, hi])) => {
                    println!("  {:<width$}  {mad:.6}  bootstrap [{lo:.6}, {hi:.6}]", "gap (MAD)")
                }
                None => println!("  {:<width$}  undefined", "gap (MAD)"),
            }
        }
    }
}
