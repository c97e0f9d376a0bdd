//! Beyond accuracy: how popular, novel and evenly exposed the items of the top-N lists
//! are, from the items' popularity in the training data ([`Popularity`]).
//!
//! Each per-user metric is linear in the list's items, so under ties it is computed
//! exactly as the expectation over the tie's orders: an item of a tie group that the
//! cut-off splits is in the list with probability `taken / len`, and at each of the
//! group's positions with probability `1 / len`. Definitions: `docs/metrics.md`,
//! "Beyond accuracy".

use std::collections::HashMap;

use crate::calibration::Calibration;
use crate::diversity::Diversity;
use crate::error::{MetricsError, Result};
use crate::io::Qrels;

/// What the metrics that read the lists' items know about the items besides the scores:
/// their training popularity (`arp@N`, `epc@N`, `gini@N`, ...) and their attributes
/// (`ild@N`), and the users' histories by those attributes (`miscal@N`).
/// [`ItemFacts::default`] knows none of them.
#[derive(Debug, Clone, Copy, Default)]
pub struct ItemFacts<'a> {
    /// The items' popularity in the training data.
    pub popularity: Option<&'a Popularity>,
    /// The items' attributes, for intra-list diversity.
    pub diversity: Option<&'a Diversity>,
    /// The items' attribute distributions and the users' history distributions, for
    /// calibration.
    pub calibration: Option<&'a Calibration>,
}

impl<'a> ItemFacts<'a> {
    /// Facts with the items' popularity only.
    pub fn popularity(popularity: &'a Popularity) -> Self {
        ItemFacts { popularity: Some(popularity), ..ItemFacts::default() }
    }
}

/// [`ItemFacts`] owned: what a front end builds once from its inputs and lends to each
/// evaluation with [`KnownFacts::facts`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KnownFacts {
    /// The items' popularity in the training data.
    pub popularity: Option<Popularity>,
    /// The items' attributes, for intra-list diversity.
    pub diversity: Option<Diversity>,
    /// The items' attribute distributions and the users' history distributions, for
    /// calibration.
    pub calibration: Option<Calibration>,
}

impl KnownFacts {
    /// The facts, lent.
    pub fn facts(&self) -> ItemFacts<'_> {
        ItemFacts {
            popularity: self.popularity.as_ref(),
            diversity: self.diversity.as_ref(),
            calibration: self.calibration.as_ref(),
        }
    }
}

/// Which items form the popularity head; the others are the long tail.
///
/// Items are ranked most popular first; the rule picks a prefix of that ranking, and every
/// item as popular as the prefix's last one joins it, so equal popularity is never split
/// and the head does not depend on how items are numbered (the same head in `recs run`,
/// whose items are a dataset's, and in `recs eval`, whose items are a qrels file's).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum HeadRule {
    /// The fewest most popular items whose training users reach this share of all (item,
    /// user) training pairs, in `(0, 1]` (Cremonesi et al. 2008 §3.1: the items holding
    /// half of the ratings; the default, 0.5), and every item as popular as the last of
    /// them.
    Share(f64),
    /// The this many most popular items (at least 1), and every item as popular as the
    /// last of them.
    Items(usize),
}

impl Default for HeadRule {
    fn default() -> Self {
        HeadRule::Share(0.5)
    }
}

/// The items' popularity in the training data, and what the popularity metrics derive
/// from it: the head, and each item's novelty.
///
/// The popularity `φ(i)` of an item is its number of training users (users with a
/// training event on it: the number of training events when each (user, item) pair occurs
/// once).
///
/// ```
/// use recs_metrics::{HeadRule, Popularity};
/// // Items 0..4 of the judgments with 3, 1, 0 and 2 training users, out of 4 users.
/// let popularity = Popularity::new(vec![3, 1, 0, 2], &[], 4, HeadRule::Share(0.5))?;
/// assert_eq!(popularity.users(0), 3);
/// // 3 of the 6 pairs: item 0 alone reaches half.
/// assert!(popularity.is_head(0) && !popularity.is_head(3));
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Popularity {
    /// `φ(i)`, per item of the judgments.
    users: Vec<u32>,
    head: Vec<bool>,
    rule: HeadRule,
    n_users: usize,
    /// `Σ φ` over every training item, inside the judgments' index or not.
    pairs: u64,
    /// The smallest positive `φ` of any training item (0 when there is none).
    least: u32,
    /// The distinct positive `φ` of the training items, decreasing.
    distinct: Vec<u32>,
}

impl Popularity {
    /// The popularity of the judgments' items, `users[i]` for item `i`, with `outside`
    /// the popularity of training items that are not among the judgments' items (they
    /// count in the totals and in the head's ranking, but are never in a list), and
    /// `n_users` training users.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] when there is no training user, an item has more
    /// users than there are, or the head rule is out of its domain.
    pub fn new(
        users: Vec<u32>,
        outside: &[u32],
        n_users: usize,
        rule: HeadRule,
    ) -> Result<Popularity> {
        if n_users == 0 {
            return Err(MetricsError::InvalidArgument {
                name: "popularity",
                value: "0 training users".into(),
                expected: "training events from at least one user",
            });
        }
        if let Some(&most) = users.iter().chain(outside).max()
            && most as usize > n_users
        {
            return Err(MetricsError::InvalidArgument {
                name: "popularity",
                value: format!("an item with {most} users out of {n_users}"),
                expected: "at most as many users per item as training users",
            });
        }
        match rule {
            HeadRule::Share(share) if !(share > 0.0 && share <= 1.0) => {
                return Err(MetricsError::InvalidArgument {
                    name: "head share",
                    value: share.to_string(),
                    expected: "a share in (0, 1]",
                });
            }
            HeadRule::Items(0) => {
                return Err(MetricsError::InvalidArgument {
                    name: "head items",
                    value: "0".into(),
                    expected: "at least 1 item",
                });
            }
            _ => {}
        }
        let all = || users.iter().chain(outside).copied();
        let pairs: u64 = all().map(u64::from).sum();
        let least = all().filter(|&u| u > 0).min().unwrap_or(0);
        // Popularity values, most popular first: the prefix the rule takes ends at some
        // item, and the head is every item at least as popular as it.
        let mut sorted: Vec<u32> = all().collect();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let last = match rule {
            HeadRule::Items(count) => sorted.get(count.min(sorted.len()).wrapping_sub(1)).copied(),
            HeadRule::Share(share) => {
                let target = share * pairs as f64;
                let mut reached = 0u64;
                let mut last = None;
                for &u in &sorted {
                    if reached as f64 >= target {
                        break;
                    }
                    reached += u64::from(u);
                    last = Some(u);
                }
                last
            }
        };
        // An item without training users is never in the head.
        let threshold = last.map_or(u32::MAX, |u| u.max(1));
        let head = users.iter().map(|&u| u >= threshold).collect();
        let mut distinct: Vec<u32> = sorted.iter().copied().filter(|&u| u > 0).collect();
        distinct.dedup();
        Ok(Popularity { users, head, rule, n_users, pairs, least, distinct })
    }

    /// The popularity of a training set whose items are the judgments' items (same index
    /// space), head by `rule`.
    ///
    /// # Errors
    /// As [`Popularity::new`].
    pub fn of_interactions(train: &recs_core::Interactions, rule: HeadRule) -> Result<Popularity> {
        let n_users = train.users_with_events().count();
        Popularity::new(train.item_counts(), &[], n_users, rule)
    }

    /// The popularity of `qrels`' items in training events given as external `(user,
    /// item)` id pairs (a pair seen twice counts once): each item's training users, mapped
    /// onto the qrels' items by id; training items that are not among them count in the
    /// totals and the head only.
    ///
    /// ```
    /// use recs_metrics::io::qrels_from_rows;
    /// use recs_metrics::{HeadRule, Popularity};
    /// let qrels = qrels_from_rows([("u1", "a", 1.0), ("u1", "b", 0.0)], "q".as_ref())?;
    /// let train = [("u1", "a"), ("u2", "a"), ("u2", "a"), ("u2", "z")];
    /// let popularity = Popularity::of_pairs(&qrels, train, HeadRule::Items(1))?;
    /// assert_eq!((popularity.users(0), popularity.users(1), popularity.n_users()), (2, 0, 2));
    /// # Ok::<(), recs_metrics::MetricsError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Popularity::new`].
    pub fn of_pairs<'a>(
        qrels: &Qrels,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        rule: HeadRule,
    ) -> Result<Popularity> {
        Popularity::of_item_pairs(&qrels.items, qrels.judgments.n_items(), pairs, rule)
    }

    /// [`Popularity::of_pairs`] of the first `n_items` items of `items` (the columns of a
    /// streamed catalog, say) instead of a qrels' items.
    ///
    /// # Errors
    /// As [`Popularity::new`].
    pub fn of_item_pairs<'a>(
        items: &recs_core::IdMap,
        n_items: usize,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        rule: HeadRule,
    ) -> Result<Popularity> {
        let mut users: HashMap<&str, u32> = HashMap::new();
        let mut others: HashMap<&str, u32> = HashMap::new();
        let mut seen: Vec<(u32, u32)> = Vec::new();
        for (user, item) in pairs {
            let next = users.len() as u32;
            let user = *users.entry(user).or_insert(next);
            let item = match items.get(item).filter(|&i| (i as usize) < n_items) {
                Some(i) => i,
                None => {
                    let next = (n_items + others.len()) as u32;
                    *others.entry(item).or_insert(next)
                }
            };
            seen.push((item, user));
        }
        seen.sort_unstable();
        seen.dedup();
        let mut counts = vec![0u32; n_items + others.len()];
        for &(item, _) in &seen {
            counts[item as usize] += 1;
        }
        let outside = counts.split_off(n_items);
        Popularity::new(counts, &outside, users.len(), rule)
    }

    /// Number of items of the judgments it describes.
    pub fn n_items(&self) -> usize {
        self.users.len()
    }

    /// `φ(item)`: the item's training users.
    pub fn users(&self, item: u32) -> u32 {
        self.users[item as usize]
    }

    /// Whether the item is in the head.
    pub fn is_head(&self, item: u32) -> bool {
        self.head[item as usize]
    }

    /// The head rule.
    pub fn rule(&self) -> HeadRule {
        self.rule
    }

    /// Number of the judgments' items in the head.
    pub fn n_head(&self) -> usize {
        self.head.iter().filter(|&&h| h).count()
    }

    /// Number of training users, `|U|`.
    pub fn n_users(&self) -> usize {
        self.n_users
    }

    /// `(n + 1 − dense rank of φ) / n` among the training items' distinct popularities; 0
    /// for φ = 0.
    fn rank_probability(&self, users: f64) -> f64 {
        if users == 0.0 {
            return 0.0;
        }
        // Distinct popularities above this one, plus one.
        let rank = self.distinct.iter().filter(|&&d| f64::from(d) > users).count() + 1;
        let n = self.users.len() as f64;
        (n + 1.0 - rank as f64) / n
    }

    /// Per item, the values the popularity metrics average.
    pub(crate) fn novelty(&self) -> Vec<Novelty> {
        let n_users = self.n_users as f64;
        let pairs = self.pairs as f64;
        // EFD's novelty of an item no training user has: that of the least popular
        // training item (the most novel one seen).
        let cold_efd = if self.least > 0 { -(f64::from(self.least) / pairs).log2() } else { 0.0 };
        self.users
            .iter()
            .zip(&self.head)
            .map(|(&u, &head)| {
                let u = f64::from(u);
                Novelty {
                    users: u,
                    tail: if head { 0.0 } else { 1.0 },
                    complement: 1.0 - u / n_users,
                    free_discovery: if u > 0.0 { -(u / pairs).log2() } else { cold_efd },
                    // An item without training users counts as one user's.
                    inverse_frequency: -(u.max(1.0) / n_users).log2(),
                    popularity_rank_probability: self.rank_probability(u),
                }
            })
            .collect()
    }
}

/// What the popularity metrics average over a list, for one item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Novelty {
    /// `φ(i)` (ARP).
    pub(crate) users: f64,
    /// 1 for a long-tail item (APLT, ACLT).
    pub(crate) tail: f64,
    /// `1 − φ(i) / |U|` (EPC).
    pub(crate) complement: f64,
    /// `−log2(φ(i) / Σ_j φ(j))` (EFD).
    pub(crate) free_discovery: f64,
    /// `−log2(max(φ(i), 1) / |U|)` (MIUF).
    pub(crate) inverse_frequency: f64,
    /// `(n + 1 − rank_φ(i)) / n`, `rank_φ` the dense rank of `φ(i)` among the training
    /// items' popularities (1 for the most popular), `n` the judgments' items; 0 for an
    /// item without training users (serendipity, as RecTools defines it).
    pub(crate) popularity_rank_probability: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_by_share_is_the_fewest_items_reaching_it_with_their_equals() {
        // φ = 2, 3, 3, 1, 1 (10 pairs): 3 + 3 = 6 ≥ 5 after two items.
        let users = vec![2, 3, 3, 1, 1];
        let head = |p: &Popularity| (0..5).map(|i| p.is_head(i)).collect::<Vec<_>>();
        let p = Popularity::new(users.clone(), &[], 3, HeadRule::Share(0.5)).unwrap();
        assert_eq!(head(&p), [false, true, true, false, false]);
        // 3 alone reaches 30%, and item 2 is as popular as item 1: both are in.
        let p = Popularity::new(users.clone(), &[], 3, HeadRule::Share(0.3)).unwrap();
        assert_eq!(head(&p), [false, true, true, false, false]);
        let p = Popularity::new(users.clone(), &[], 3, HeadRule::Share(1.0)).unwrap();
        assert_eq!(p.n_head(), 5);
        let p = Popularity::new(users.clone(), &[], 3, HeadRule::Items(3)).unwrap();
        assert_eq!(head(&p), [true, true, true, false, false]);
        // The fourth most popular ties the fifth: both join.
        let p = Popularity::new(users.clone(), &[], 3, HeadRule::Items(4)).unwrap();
        assert_eq!(p.n_head(), 5);
        // Numbering the items otherwise does not change which items are in the head.
        let reversed: Vec<u32> = users.iter().rev().copied().collect();
        let p = Popularity::new(reversed, &[], 3, HeadRule::Share(0.3)).unwrap();
        assert_eq!(head(&p), [false, false, true, true, false]);
    }

    #[test]
    fn outside_items_count_in_totals_and_in_the_head() {
        // An outside item with 4 users is the most popular: by count 1 the head holds no
        // item of the judgments; by count 2 it holds the two items of 3.
        let p = Popularity::new(vec![2, 3, 3], &[4], 4, HeadRule::Items(1)).unwrap();
        assert_eq!(p.n_head(), 0);
        let p = Popularity::new(vec![2, 3, 3], &[4], 4, HeadRule::Items(2)).unwrap();
        assert_eq!(p.n_head(), 2);
        let novelty = p.novelty();
        // Σ φ = 12: EFD of item 0 is −log2(2/12).
        assert!((novelty[0].free_discovery - (6f64).log2()).abs() < 1e-15);
        assert!((novelty[0].complement - 0.5).abs() < 1e-15);
    }

    #[test]
    fn cold_items_take_the_least_popular_novelty_and_one_user() {
        let p = Popularity::new(vec![0, 2, 1], &[], 4, HeadRule::default()).unwrap();
        let n = p.novelty();
        assert_eq!(n[0].free_discovery, n[2].free_discovery);
        assert_eq!(n[0].inverse_frequency, n[2].inverse_frequency);
        assert_eq!(n[0].complement, 1.0);
        assert_eq!(n[0].users, 0.0);
    }

    #[test]
    fn bad_inputs_are_refused_with_the_reason() {
        let e = Popularity::new(vec![1], &[], 0, HeadRule::default()).unwrap_err().to_string();
        assert!(e.contains("0 training users"), "{e}");
        let e = Popularity::new(vec![5], &[], 4, HeadRule::default()).unwrap_err().to_string();
        assert!(e.contains("5 users out of 4"), "{e}");
        let e = Popularity::new(vec![1], &[], 4, HeadRule::Share(0.0)).unwrap_err().to_string();
        assert!(e.contains("head share"), "{e}");
        assert!(Popularity::new(vec![1], &[], 4, HeadRule::Items(0)).is_err());
    }
}
