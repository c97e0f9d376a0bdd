//! `recs eval --user-groups FILE`: every per-user mean broken down by a user attribute
//! (gender, age band, occupation, profile length, ...), with the gap between the groups
//! (`recs_metrics::io::UserGroups::breakdown`: the mean absolute difference of the group
//! means and its bootstrap interval), as text and JSON; and `--item-groups FILE`: every
//! per-user mean that reads relevance with only one item group's items relevant
//! (`recs_metrics::item_group_breakdown`).

use std::path::Path;

use recs_metrics::io::{Qrels, read_item_groups, read_user_groups};
use recs_metrics::{GroupBreakdown, ItemFacts, Metric, Options, PerUser};
use serde_json::{Value, json};

/// The per-user means by group, with the group names in the order of their indices.
pub(crate) struct ByGroup {
    /// What a group is made of, as the text shows it: `group` or `item group` (a mean
    /// is over users either way: for an item group, those with a relevant item in it).
    title: &'static str,
    names: Vec<String>,
    breakdowns: Vec<GroupBreakdown>,
}

/// An evaluation as `recs eval` made it: what `--item-groups` evaluates again per group.
pub(crate) struct Evaluated<'a> {
    pub(crate) qrels: &'a Qrels,
    pub(crate) scores: &'a [f32],
    pub(crate) metrics: &'a [Metric],
    pub(crate) options: &'a Options,
    pub(crate) facts: ItemFacts<'a>,
}

/// Every per-user mean of `evaluated` that reads relevance, computed again for each item
/// group of the file at `path` with only that group's items relevant, and the gap between
/// the groups (items of the qrels without a group, relevant in none, are counted in a
/// warning; an undefined gap is a warning too).
///
/// # Errors
/// The file's errors, naming file and line ([`read_item_groups`]).
pub(crate) fn item_breakdown(
    evaluated: Evaluated<'_>,
    path: &Path,
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> anyhow::Result<ByGroup> {
    let Evaluated { qrels, scores, metrics, options, facts } = evaluated;
    let groups = read_item_groups(path)?;
    let (breakdowns, without) =
        groups.breakdown(qrels, scores, metrics, options, facts, resamples, seed)?;
    if breakdowns.is_empty() {
        warnings.push(format!(
            "--item-groups breaks down the per-user means that read relevance; none was asked \
             for (of {})",
            Metric::USER_MEANS
        ));
        return Ok(ByGroup::none());
    }
    if without > 0 {
        warnings.push(format!(
            "--item-groups: {without} of {} items of the qrels have no group and are relevant \
             in none",
            qrels.judgments.n_items()
        ));
    }
    warnings.extend(
        breakdowns
            .iter()
            .filter_map(|b| b.error.as_ref().map(|e| format!("{} by item group: {e}", b.key))),
    );
    Ok(ByGroup { title: "item group", names: groups.names().to_vec(), breakdowns })
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
    Ok(ByGroup { title: "group", names: groups.names().to_vec(), breakdowns })
}

impl ByGroup {
    /// None asked for.
    pub(crate) fn none() -> ByGroup {
        ByGroup { title: "group", names: Vec::new(), breakdowns: Vec::new() }
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
            println!("{} by {}", b.key, self.title);
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
