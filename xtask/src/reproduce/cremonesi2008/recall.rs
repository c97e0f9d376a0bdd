//! Recall by withheld-item rank (§3.3, §5.3): Tables 1 and 2.
//!
//! The test users are one fold of ten over users, so no model has seen them (§2.1:
//! m-fold cross-validation evaluates "when new users join the system"). For each test
//! user and each of its items (all positive on binary data): withhold the item, fold the
//! user in from the rest of its profile, score every item, and record the withheld
//! item's rank among the items the user has no event with; a tie counts at its expected
//! value ([`WithheldRank`]).

use anyhow::{Context, Result};
use rayon::prelude::*;
use recs_bench::report::Table;
use recs_core::{Recommender, UserRow};
use recs_metrics::WithheldRank;
use recs_split::{Generalization, Given, Protocol, Split, SplitId};
use serde_json::json;

use super::data::Data;

/// Folds over users; one fold is the test set.
pub(crate) const FOLDS: usize = 10;
/// The list length of the tables (the paper does not state it; ours, the longer list
/// Figure 6 marks).
pub(crate) const RECALL_N: usize = 20;
/// The list lengths the recall claims are read at: the tables' [`RECALL_N`], and 5, the
/// shorter length Figure 6 marks (§3: "many applications show to the users only the
/// highest 5 ranked items").
pub(crate) const CLAIM_N: [usize; 2] = [RECALL_N, 5];
/// The longest list of the recall@N curves.
pub(crate) const CURVE_N: usize = 50;

/// Fold `fold` of the ten-fold partition `partition` over users (partition 0 is the
/// tables'; others are independent draws of the same dealing): test users' events all in
/// the test part (none given), the other users' in training.
pub(crate) fn user_fold(data: &Data, seed: u64, partition: u32, fold: u32) -> Result<Split> {
    let protocol = Protocol::KFoldUsers {
        folds: FOLDS,
        given: Given::N(0),
        generalization: Generalization::Strong,
    };
    Ok(protocol.split(&data.interactions, seed, SplitId::new(partition, fold))?)
}

/// One withheld item: its user's profile length, whether it is a head item, and its
/// rank.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Withheld {
    pub(crate) profile: u32,
    pub(crate) head: bool,
    pub(crate) rank: WithheldRank,
}

/// Every withheld item of the test users of `split` with at least two events, ranked by
/// `model` folded in from the rest of the profile. In user, then item order.
pub(crate) fn withheld(
    model: &dyn Recommender,
    split: &Split,
    head: &[bool],
) -> Result<Vec<Withheld>> {
    let fold_in = model.as_user_fold_in().context("the model cannot fold in a new user")?;
    let users = split.test_users().context("the split designates no test users")?;
    let n_items = split.n_items() as u32;
    let all_items: Vec<u32> = (0..n_items).collect();
    let per_user: Vec<Vec<Withheld>> = users
        .par_iter()
        .map(|&user| -> Result<Vec<Withheld>> {
            let profile = split.test().user_row(user);
            if profile.items.len() < 2 {
                return Ok(Vec::new());
            }
            let mut scores = vec![0.0f32; all_items.len()];
            let (mut items, mut values) = (Vec::new(), Vec::new());
            let mut out = Vec::with_capacity(profile.items.len());
            for (k, &item) in profile.items.iter().enumerate() {
                items.clear();
                values.clear();
                for (j, (&i, &v)) in profile.items.iter().zip(profile.values).enumerate() {
                    if j != k {
                        items.push(i);
                        values.push(v);
                    }
                }
                let history = UserRow { items: &items, values: &values, timestamps: None };
                fold_in.score_history(history, &all_items, &mut scores)?;
                out.push(Withheld {
                    profile: profile.items.len() as u32,
                    head: head[item as usize],
                    rank: rank_among_unrated(user, item, &scores, profile.items),
                });
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    Ok(per_user.into_iter().flatten().collect())
}

/// The rank of `item` among the items not in `profile` (strictly increasing).
fn rank_among_unrated(user: u32, item: u32, scores: &[f32], profile: &[u32]) -> WithheldRank {
    let own = scores[item as usize];
    let (mut above, mut tied) = (0, 0);
    for (i, &s) in scores.iter().enumerate() {
        if profile.binary_search(&(i as u32)).is_ok() {
            continue;
        }
        if s > own {
            above += 1;
        } else if s == own {
            tied += 1;
        }
    }
    WithheldRank { user, item, above, tied }
}

/// Recall of one cell of a table: withheld items and their mean hit probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cell {
    pub(crate) withheld: usize,
    pub(crate) recall: Option<f64>,
}

/// Recall at `n` of the withheld items `keep` accepts.
pub(crate) fn cell(items: &[Withheld], n: usize, keep: impl Fn(&Withheld) -> bool) -> Cell {
    let (mut count, mut hits) = (0usize, 0.0);
    for w in items.iter().filter(|w| keep(w)) {
        count += 1;
        hits += w.rank.hit_probability(n);
    }
    Cell { withheld: count, recall: (count > 0).then(|| hits / count as f64) }
}

/// Head, tail and all-item recall at one list length of one model per user group of a
/// dataset: pooled over the folds run (the tables), and fold by fold (the claims'
/// repetitions).
#[derive(Debug, Clone)]
pub(crate) struct ByGroup {
    /// The user groups' labels.
    pub(crate) labels: [String; 3],
    /// `[head, tail, all]` per group, over the withheld items of every fold.
    pub(crate) pooled: Vec<[Cell; 3]>,
    /// The same cells of each fold alone, in fold order.
    pub(crate) folds: Vec<Vec<[Cell; 3]>>,
}

/// [`ByGroup`] of one model from its withheld items, fold by fold, at list length `n`.
pub(crate) fn by_group(data: &Data, folds: &[Vec<Withheld>], n: usize) -> ByGroup {
    ByGroup {
        labels: data.group_labels(),
        pooled: cells(data, &folds.concat(), n),
        folds: folds.iter().map(|items| cells(data, items, n)).collect(),
    }
}

/// Head, tail and all-item recall at `n` of `items`, per user group of `data`.
fn cells(data: &Data, items: &[Withheld], n: usize) -> Vec<[Cell; 3]> {
    (0..data.groups.len())
        .map(|g| {
            let in_group = |w: &Withheld| data.group_of(w.profile) == Some(g);
            [
                cell(items, n, |w| in_group(w) && w.head),
                cell(items, n, |w| in_group(w) && !w.head),
                cell(items, n, in_group),
            ]
        })
        .collect()
}

/// The rows of a Table 1/2 block: model, group, head and tail recall with their counts,
/// all items, and the paper's head and tail values.
pub(crate) fn table_rows(
    data: &Data,
    model: &str,
    cells: &[[Cell; 3]],
    paper: Option<&[[f64; 2]; 3]>,
) -> Vec<Vec<serde_json::Value>> {
    let labels = data.group_labels();
    cells
        .iter()
        .enumerate()
        .map(|(g, [head, tail, all])| {
            vec![
                json!(data.name),
                json!(model),
                json!(labels[g]),
                json!(head.withheld),
                json!(head.recall),
                json!(tail.withheld),
                json!(tail.recall),
                json!(all.recall),
                json!(paper.map(|p| p[g][0])),
                json!(paper.map(|p| p[g][1])),
            ]
        })
        .collect()
}

/// A recall table from rows of [`table_rows`].
pub(crate) fn table(name: &str, rows: Vec<Vec<serde_json::Value>>) -> Table {
    Table {
        name: name.into(),
        columns: [
            "dataset",
            "model",
            "user group",
            "head items withheld",
            "head recall@20",
            "tail items withheld",
            "tail recall@20",
            "all recall@20",
            "paper head recall",
            "paper tail recall",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Recall@N for `N = 1..=CURVE_N`, one column per (model, group).
pub(crate) fn curve_table(name: &str, data: &Data, models: &[(String, Vec<Withheld>)]) -> Table {
    let labels = data.group_labels();
    let mut columns = vec!["N".to_string()];
    for (model, _) in models {
        for label in &labels {
            columns.push(format!("{model} {label}"));
        }
    }
    let rows = (1..=CURVE_N)
        .map(|n| {
            let mut row = vec![json!(n)];
            for (_, items) in models {
                for g in 0..labels.len() {
                    row.push(json!(cell(items, n, |w| data.group_of(w.profile) == Some(g)).recall));
                }
            }
            row
        })
        .collect();
    Table { name: name.into(), columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_counts_only_unrated_items_and_ties_at_their_expected_value() {
        // Item 2 withheld (score 0.5); items 0 and 3 are in the profile, so item 0's
        // higher score does not count; item 1 is above, item 4 tied.
        let scores = [0.9, 0.7, 0.5, 0.8, 0.5];
        let r = rank_among_unrated(0, 2, &scores, &[0, 2, 3]);
        assert_eq!((r.above, r.tied), (1, 1));
        assert_eq!(r.hit_probability(1), 0.0);
        assert_eq!(r.hit_probability(2), 0.5);
        let w = |head, n| Withheld {
            profile: 5,
            head,
            rank: WithheldRank { user: 0, item: 0, above: n, tied: 0 },
        };
        let items = [w(true, 0), w(true, 30), w(false, 3)];
        assert_eq!(cell(&items, 20, |w| w.head), Cell { withheld: 2, recall: Some(0.5) });
        assert_eq!(cell(&items, 20, |w| !w.head).recall, Some(1.0));
        assert_eq!(cell(&items, 20, |_| false).recall, None);
    }
}
