//! User groups by external id (`user<TAB>group` files, or pairs held in memory), and the
//! breakdown of a qrels' per-user values over them: what `recs eval --user-groups` and
//! Python's `user_groups=` share.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use super::{Qrels, open, parse_error};
use crate::aggregate::{GroupBreakdown, group_breakdown};
use crate::error::{MetricsError, Result};
use crate::topn::PerUser;

/// Each user's group, by external ids; the group names in byte order.
#[derive(Debug, Clone, PartialEq)]
pub struct UserGroups {
    names: Vec<String>,
    of_user: HashMap<String, usize>,
}

/// A user given two groups.
fn conflict(user: &str, before: &str, group: &str) -> String {
    format!("user {user} is in group {before} and in group {group}")
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
        let mut named: HashMap<String, String> = HashMap::new();
        for (user, group) in pairs {
            if let Some(before) = named.insert(user.to_string(), group.to_string())
                && before != group
            {
                return Err(MetricsError::InvalidArgument {
                    name: "user groups",
                    value: conflict(user, &before, group),
                    expected: "one group per user",
                });
            }
        }
        Self::from_map(named).ok_or_else(|| MetricsError::InvalidArgument {
            name: "user groups",
            value: "no user".into(),
            expected: "at least one (user, group) pair",
        })
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
    let mut named: HashMap<String, String> = HashMap::new();
    for (at, line) in open(path)?.lines().enumerate() {
        let line = line.map_err(|source| MetricsError::Io { path: path.to_path_buf(), source })?;
        let line = line.trim_end_matches('\r');
        if line.is_empty() || (at == 0 && line == "user\tgroup") {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [user, group] = fields[..] else {
            return Err(parse_error(
                path,
                at + 1,
                format!("expected `user<TAB>group`, found {line:?}"),
            ));
        };
        if user.is_empty() || group.is_empty() {
            return Err(parse_error(path, at + 1, "an empty user or group"));
        }
        if let Some(before) = named.insert(user.to_string(), group.to_string())
            && before != group
        {
            return Err(parse_error(path, at + 1, conflict(user, &before, group)));
        }
    }
    UserGroups::from_map(named).ok_or_else(|| MetricsError::InvalidArgument {
        name: "user groups",
        value: path.display().to_string(),
        expected: "a file with a `user<TAB>group` line",
    })
}
