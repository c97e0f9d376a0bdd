//! User groups by external id (`user<TAB>group` files, or pairs held in memory), and the
//! breakdown of a qrels' per-user values over them: what `recs eval --user-groups` and
//! Python's `user_groups=` share.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use super::{Qrels, open, parse_error};
use crate::aggregate::{GroupBreakdown, group_breakdown};
use crate::error::{MetricsError, Result};
use crate::topn::{PerUser, per_user_with};
use crate::{ItemFacts, Metric, Options, Scored};
use recs_core::Judgments;

/// Each user's group, by external ids; the group names in byte order.
#[derive(Debug, Clone, PartialEq)]
pub struct UserGroups {
    names: Vec<String>,
    of_user: HashMap<String, usize>,
}

/// The `(id, group)` pairs of users or items (`what`) by id; an id in two groups is an
/// error.
fn map_of_pairs<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    what: &'static str,
) -> Result<HashMap<String, String>> {
    let mut named: HashMap<String, String> = HashMap::new();
    for (id, group) in pairs {
        if let Some(before) = named.insert(id.to_string(), group.to_string())
            && before != group
        {
            return Err(MetricsError::InvalidArgument {
                name: if what == "user" { "user groups" } else { "item groups" },
                value: conflict(what, id, &before, group),
                expected: "one group per id",
            });
        }
    }
    Ok(named)
}

/// No pair was given.
fn no_pair(what: &'static str) -> MetricsError {
    MetricsError::InvalidArgument {
        name: if what == "user" { "user groups" } else { "item groups" },
        value: format!("no {what}"),
        expected: "at least one (id, group) pair",
    }
}

/// A user or item (`what`) given two groups.
fn conflict(what: &str, id: &str, before: &str, group: &str) -> String {
    format!("{what} {id} is in group {before} and in group {group}")
}

impl UserGroups {
    /// The groups of `(user, group)` pairs (a pair given twice counts once).
    ///
    /// ```
    /// use recs_metrics::io::UserGroups;
    /// let groups = UserGroups::from_pairs([("u1", "F"), ("u2", "M"), ("u3", "F")])?;
    /// assert_eq!(groups.names(), ["F", "M"]);
    /// assert!(UserGroups::from_pairs([("u1", "F"), ("u1", "M")]).is_err());
    /// # Ok::<(), recs_metrics::MetricsError>(())
    /// ```
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] for a user in two groups or no pair.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self> {
        Self::from_map(map_of_pairs(pairs, "user")?).ok_or_else(|| no_pair("user"))
    }

    fn from_map(named: HashMap<String, String>) -> Option<Self> {
        let mut names: Vec<String> = named.values().cloned().collect();
        names.sort_unstable();
        names.dedup();
        let index: HashMap<&str, usize> =
            names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let of_user = named.iter().map(|(u, g)| (u.clone(), index[g.as_str()])).collect();
        (!named.is_empty()).then_some(UserGroups { names, of_user })
    }

    /// The group names, in byte order (a group's index is its place here).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The group index of user `id`, if it has one.
    pub fn group_of(&self, id: &str) -> Option<usize> {
        self.of_user.get(id).copied()
    }

    /// Every per-user mean of `values` (whose users are `qrels`' users) by group, with
    /// the gap between groups ([`group_breakdown`]), and the number of users left out for
    /// having no group.
    pub fn breakdown(
        &self,
        values: &PerUser,
        qrels: &Qrels,
        resamples: usize,
        seed: u64,
    ) -> (Vec<GroupBreakdown>, usize) {
        let users = values.users();
        let group_of = |at: usize| qrels.users.external(users[at]).and_then(|id| self.group_of(id));
        let left_out = (0..users.len()).filter(|&at| group_of(at).is_none()).count();
        (group_breakdown(values, self.names.len(), group_of, resamples, seed), left_out)
    }
}

/// Reads `user<TAB>group` lines (an optional `user<TAB>group` header; blank lines skipped).
///
/// # Errors
/// An unreadable file; a line without exactly two non-empty fields, or a user in two
/// groups, naming file and line; a file without a user.
pub fn read_user_groups(path: impl AsRef<Path>) -> Result<UserGroups> {
    let path = path.as_ref();
    let named = read_pairs(path, "user")?;
    UserGroups::from_map(named).ok_or_else(|| MetricsError::InvalidArgument {
        name: "user groups",
        value: path.display().to_string(),
        expected: "a file with a `user<TAB>group` line",
    })
}

/// Reads `item<TAB>group` lines (an optional `item<TAB>group` header; blank lines skipped).
///
/// # Errors
/// An unreadable file; a line without exactly two non-empty fields, or an item in two
/// groups, naming file and line; a file without an item.
pub fn read_item_groups(path: impl AsRef<Path>) -> Result<ItemGroups> {
    let path = path.as_ref();
    let named = read_pairs(path, "item")?;
    UserGroups::from_map(named).map(|groups| ItemGroups { groups }).ok_or_else(|| {
        MetricsError::InvalidArgument {
            name: "item groups",
            value: path.display().to_string(),
            expected: "a file with an `item<TAB>group` line",
        }
    })
}

/// The `(id, group)` pairs of a `what<TAB>group` file (`what`: `user` or `item`).
fn read_pairs(path: &Path, what: &str) -> Result<HashMap<String, String>> {
    let header = format!("{what}\tgroup");
    let mut named: HashMap<String, String> = HashMap::new();
    for (at, line) in open(path)?.lines().enumerate() {
        let line = line.map_err(|source| MetricsError::Io { path: path.to_path_buf(), source })?;
        let line = line.trim_end_matches('\r');
        if line.is_empty() || (at == 0 && line == header) {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [id, group] = fields[..] else {
            return Err(parse_error(
                path,
                at + 1,
                format!("expected `{what}<TAB>group`, found {line:?}"),
            ));
        };
        if id.is_empty() || group.is_empty() {
            return Err(parse_error(path, at + 1, format!("an empty {what} or group")));
        }
        if let Some(before) = named.insert(id.to_string(), group.to_string())
            && before != group
        {
            return Err(parse_error(path, at + 1, conflict(what, id, &before, group)));
        }
    }
    Ok(named)
}

/// Each item's group, by external ids; the group names in byte order: the groups of
/// `recs eval --item-groups`, by which every per-user mean that reads relevance is broken
/// down ([`ItemGroups::masked`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemGroups {
    groups: UserGroups,
}

impl ItemGroups {
    /// The groups of `(item, group)` pairs (a pair given twice counts once).
    ///
    /// ```
    /// use recs_metrics::io::ItemGroups;
    /// let groups = ItemGroups::from_pairs([("i1", "head"), ("i2", "tail")])?;
    /// assert_eq!(groups.names(), ["head", "tail"]);
    /// assert_eq!(groups.group_of("i2"), Some(1));
    /// assert!(ItemGroups::from_pairs([("i1", "head"), ("i1", "tail")]).is_err());
    /// # Ok::<(), recs_metrics::MetricsError>(())
    /// ```
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] for an item in two groups or no pair.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self> {
        let groups = UserGroups::from_map(map_of_pairs(pairs, "item")?);
        groups.map(|groups| ItemGroups { groups }).ok_or_else(|| no_pair("item"))
    }

    /// The group names, in byte order (a group's index is its place here).
    pub fn names(&self) -> &[String] {
        self.groups.names()
    }

    /// The group index of item `id`, if it has one.
    pub fn group_of(&self, id: &str) -> Option<usize> {
        self.groups.group_of(id)
    }

    /// Every per-user mean of `metrics` that reads relevance, computed again for each
    /// group with only its items relevant (`scores` are a run's scores of `qrels`'
    /// candidates, in their order), and the gap between the groups
    /// ([`crate::item_group_breakdown`]); also the number of the qrels' items without a
    /// group. Empty when no such metric is asked for.
    ///
    /// # Errors
    /// As [`crate::per_user_with`].
    #[allow(clippy::too_many_arguments)]
    pub fn breakdown(
        &self,
        qrels: &Qrels,
        scores: &[f32],
        metrics: &[Metric],
        options: &Options,
        facts: ItemFacts<'_>,
        resamples: usize,
        seed: u64,
    ) -> Result<(Vec<GroupBreakdown>, usize)> {
        let asked: Vec<Metric> =
            metrics.iter().filter(|m| m.is_user_mean() && m.reads_relevance()).copied().collect();
        if asked.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let (masked, without) = self.masked(qrels)?;
        let per_group = masked
            .iter()
            .map(|judgments| {
                per_user_with(&Scored::new(judgments, scores)?, &asked, options, facts)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((crate::aggregate::item_group_breakdown(&per_group, resamples, seed), without))
    }

    /// `qrels`' judgments once per group, each with the grade of every item outside the
    /// group set to 0 (not relevant, no gain): the same candidates in the same order, so
    /// a run's scores apply to each. Also the number of the qrels' items without a group
    /// (relevant in no group).
    pub fn masked(&self, qrels: &Qrels) -> Result<(Vec<Judgments>, usize)> {
        let of_item: Vec<Option<usize>> = (0..qrels.judgments.n_items() as u32)
            .map(|i| qrels.items.external(i).and_then(|id| self.group_of(id)))
            .collect();
        let without = of_item.iter().filter(|g| g.is_none()).count();
        let judgments = &qrels.judgments;
        let masked =
            (0..self.names().len())
                .map(|group| {
                    let mut builder = Judgments::builder(judgments.n_users(), judgments.n_items());
                    let mut grades = Vec::new();
                    for row in judgments.iter() {
                        grades.clear();
                        grades.extend(row.items.iter().zip(row.grades).map(|(&i, &g)| {
                            if of_item[i as usize] == Some(group) { g } else { 0.0 }
                        }));
                        builder.push_user(row.user, row.items, &grades)?;
                    }
                    Ok(builder.build()?)
                })
                .collect::<Result<Vec<_>>>()?;
        Ok((masked, without))
    }
}
