//! `recs eval --user-groups FILE`: every per-user mean broken down by a user attribute
//! (gender, age band, occupation, profile length, ...), with the gap between the groups
//! (`recs_metrics::group_gap`: the mean absolute difference of the group means and its
//! bootstrap interval).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context;
use recs_metrics::io::Qrels;
use recs_metrics::{Metric, PerUser, group_gap};
use serde_json::{Value, json};

/// One per-user mean's breakdown.
pub(crate) struct Breakdown {
    pub(crate) key: String,
    /// `(group, mean, users counted)`, groups in byte order of their names.
    pub(crate) groups: Vec<(String, Option<f64>, usize)>,
    /// The mean absolute difference of the group means and its 95% bootstrap interval;
    /// `None` (with a warning) when fewer than two groups have a user.
    pub(crate) gap: Option<(f64, [f64; 2])>,
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
/// (users without a group are left out, and counted in a warning).
pub(crate) fn breakdown(
    values: &PerUser,
    qrels: &Qrels,
    of_user: &HashMap<String, String>,
    resamples: usize,
    seed: u64,
    warnings: &mut Vec<String>,
) -> Vec<Breakdown> {
    let names: Vec<String> = {
        let mut names: Vec<String> = of_user.values().cloned().collect();
        names.sort_unstable();
        names.dedup();
        names
    };
    let index: BTreeMap<&str, usize> =
        names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    // The users with a group, as positions among the evaluated users, and their groups.
    let mut kept = Vec::new();
    let mut groups = Vec::new();
    for (at, &user) in values.users().iter().enumerate() {
        let id = qrels.users.external(user).unwrap_or("?");
        if let Some(group) = of_user.get(id) {
            kept.push(at);
            groups.push(index[group.as_str()]);
        }
    }
    let left_out = values.users().len() - kept.len();
    if left_out > 0 {
        warnings.push(format!(
            "--user-groups: {left_out} of {} evaluated users have no group and are left out \
             of the breakdown",
            values.users().len()
        ));
    }
    (0..values.metrics().len())
        .filter(|&c| values.metrics()[c].is_user_mean())
        .map(|column| {
            let key = values.metrics()[column].to_string();
            let all = values.column(column);
            let sample: Vec<f64> = kept.iter().map(|&at| all[at]).collect();
            let (means, gap) = match group_gap(&sample, &groups, names.len(), resamples, seed) {
                Ok(gap) => (gap.means, Some((gap.mad, gap.interval))),
                Err(e) => {
                    warnings.push(format!("{key} by group: {e}"));
                    let means = recs_metrics::group_means(&sample, &groups, names.len())
                        .unwrap_or_default();
                    (means, None)
                }
            };
            let groups =
                names.iter().cloned().zip(means).map(|(name, (mean, n))| (name, mean, n)).collect();
            Breakdown { key, groups, gap }
        })
        .collect()
}

/// The breakdowns as the `groups` object of `--json`.
pub(crate) fn json(breakdowns: &[Breakdown], number: impl Fn(Option<f64>) -> Value) -> Value {
    let mut out = serde_json::Map::new();
    for b in breakdowns {
        let mut groups = serde_json::Map::new();
        for (name, mean, n) in &b.groups {
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

/// Whether `metrics` has a per-user mean to break down.
pub(crate) fn has_means(metrics: &[Metric]) -> bool {
    metrics.iter().any(Metric::is_user_mean)
}
