//! The user groups of a plan on its data (`evaluation.user_groups`, `group_by`): each
//! group's label, and the group of each judged user of a split.

use recs_data::UserInfo;
use recs_split::Split;

use super::load::Loaded;
use crate::error::{BenchError, Result};
use crate::plan::{GroupBy, Plan};

/// The groups users fall in: ranges of a count or an age (lower bounds), or the values of
/// a demographic field (sorted).
pub(crate) struct UserGroups<'a> {
    plan: &'a Plan,
    data: &'a Loaded,
    /// The field's values (a categorical grouping), sorted; empty for ranges.
    values: Vec<String>,
}

impl<'a> UserGroups<'a> {
    /// The plan's groups on `data`; an error when the grouping reads a demographic field
    /// that no user of the dataset has.
    pub(crate) fn new(plan: &'a Plan, data: &'a Loaded) -> Result<Self> {
        let mut groups = UserGroups { plan, data, values: Vec::new() };
        let users = &data.dataset.user_info;
        let field = match plan.group_by {
            GroupBy::Known | GroupBy::Events => return Ok(groups),
            GroupBy::Age => {
                if users.iter().any(|u| u.age.is_some()) {
                    return Ok(groups);
                }
                "age"
            }
            GroupBy::Gender | GroupBy::Occupation => {
                let mut values: Vec<String> =
                    users.iter().filter_map(|u| groups.value_of(u)).map(str::to_string).collect();
                values.sort_unstable();
                values.dedup();
                if !values.is_empty() {
                    groups.values = values;
                    return Ok(groups);
                }
                plan.group_by.axis()
            }
        };
        Err(BenchError::Experiment(format!(
            "evaluation.group_by = \"{field}\": dataset `{}` records no {field} of its users",
            data.dataset.name
        )))
    }

    /// The categorical field of `user`, when the grouping reads one.
    fn value_of<'u>(&self, user: &'u UserInfo) -> Option<&'u str> {
        match self.plan.group_by {
            GroupBy::Gender => user.gender.as_deref(),
            GroupBy::Occupation => user.occupation.as_deref(),
            _ => None,
        }
    }

    /// The groups' labels, in group order: `lo–hi` ranges (`lo+` for the last), or the
    /// field's values.
    pub(crate) fn labels(&self) -> Vec<String> {
        if !self.values.is_empty() {
            return self.values.clone();
        }
        let bounds = &self.plan.user_groups;
        bounds
            .iter()
            .enumerate()
            .map(|(i, &lo)| match bounds.get(i + 1) {
                Some(&hi) if hi == lo + 1 => format!("{lo}"),
                Some(&hi) => format!("{lo}–{}", hi - 1),
                None => format!("{lo}+"),
            })
            .collect()
    }

    /// The group of `user` in `split`; `None` for a user below the first bound or
    /// without the field.
    pub(crate) fn of(&self, user: u32, split: &Split) -> Option<usize> {
        let in_range = |n: usize| self.plan.user_groups.iter().rposition(|&b| n >= b);
        let info = || self.data.dataset.user_info.get(user as usize);
        match self.plan.group_by {
            GroupBy::Known | GroupBy::Events => {
                let history = split.history().map_or(0, |h| h.user_row(user).len());
                let test = match self.plan.group_by {
                    GroupBy::Events => split.test().user_row(user).len(),
                    _ => 0,
                };
                in_range(split.train().user_row(user).len() + history + test)
            }
            GroupBy::Age => in_range(info()?.age? as usize),
            GroupBy::Gender | GroupBy::Occupation => {
                let value = self.value_of(info()?)?;
                self.values.binary_search_by(|v| v.as_str().cmp(value)).ok()
            }
        }
    }
}
