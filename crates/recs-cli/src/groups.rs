//! `recs eval --user-groups FILE`: every per-user mean broken down by a user attribute
//! (gender, age band, occupation, profile length, ...), with the gap between the groups
//! (`recs_metrics::group_gap`: the mean absolute difference of the group means and its
//! bootstrap interval).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context;
use recs_metrics::io::Qrels;
use recs_metrics::{GroupBreakdown, Metric, PerUser, group_breakdown};
use serde_json::{Value, json};

/// The per-user means by group, with the group names in the order of their indices.
pub(crate) struct ByGroup {
    names: Vec<String>,
    breakdowns: Vec<GroupBreakdown>,
}

/// The groups of `--user-groups`: `user<TAB>group` per line, an optional `user<TAB>group`
/// header.
///
/// # Errors
/// An unreadable file, a line without exactly two non-empty fields, or a user given two
/// groups, naming file and line.
pub(crate) fn read(path: &Path) -> anyhow::Result<HashMap<String, String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut groups = HashMap::new();
    for (at, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || (at == 0 && line == "user\tgroup") {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [user, group] = fields[..] else {
            anyhow::bail!(
                "{}:{}: expected `user<TAB>group`, found {line:?}",
                path.display(),
                at + 1
            );
        };
        if user.is_empty() || group.is_empty() {
            anyhow::bail!("{}:{}: an empty user or group", path.display(), at + 1);
        }
        if let Some(before) = groups.insert(user.to_string(), group.to_string())
            && before != group
        {
            anyhow::bail!(
                "{}:{}: user {user} is in group {before} and in group {group}",
                path.display(),
                at + 1
            );
        }
    }
    if groups.is_empty() {
        anyhow::bail!("{}: no `user<TAB>group` line", path.display());
    }
    Ok(groups)
}

/// The breakdown of every per-user mean of `values` over the groups of the qrels' users
/// (users without a group are left out, and counted in a warning; an undefined gap is a
/// warning too).
pub(crate) fn breakdown(
    values: &PerUser,
    qrels: &Qrels,
    of_user: &HashMap<String, String>,
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> ByGroup {
    let mut names: Vec<String> = of_user.values().cloned().collect();
    names.sort_unstable();
    names.dedup();
    let index: BTreeMap<&str, usize> =
        names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let users = values.users();
    let group_of = |at: usize| {
        let id = qrels.users.external(users[at]).unwrap_or("?");
        of_user.get(id).map(|g| index[g.as_str()])
    };
    let left_out = (0..users.len()).filter(|&at| group_of(at).is_none()).count();
    if left_out > 0 {
        warnings.push(format!(
            "--user-groups: {left_out} of {} evaluated users have no group and are left out \
             of the breakdown",
            users.len()
        ));
    }
    let breakdowns = group_breakdown(values, names.len(), group_of, resamples, seed);
    for b in &breakdowns {
        if let Some(e) = &b.error {
            warnings.push(format!("{} by group: {e}", b.key));
        }
    }
    ByGroup { names, breakdowns }
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

/// Whether `metrics` has a per-user mean to break down.
pub(crate) fn has_means(metrics: &[Metric]) -> bool {
    metrics.iter().any(Metric::is_user_mean)
}
