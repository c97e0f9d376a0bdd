//! Scores aligned with judgments, the order-preserving score keys, and tie groups.

use recs_core::{Judgments, UserJudgments};

use crate::error::{MetricsError, Result};
use crate::names::named;

/// Judgments together with one score per candidate, in the judgments' own order (users
/// ascending, candidates ascending within a user).
///
/// A `NaN` score marks a candidate the scorer did not score ("missing"): it ranks below
/// every other score, tied with the other missing candidates of its user, and is counted
/// by [`Scored::n_missing`]. `-0.0` and `0.0` are the same score.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::Scored;
/// let mut builder = Judgments::builder(2, 3);
/// builder.push_user(1, &[0, 2], &[1.0, 0.0])?;
/// builder.push_user(0, &[1], &[1.0])?;
/// let judgments = builder.build()?;
/// // user 0: item 1; user 1: items 0, 2.
/// let scored = Scored::new(&judgments, &[0.5, 0.9, f32::NAN])?;
/// assert_eq!(scored.n_missing(), 1);
/// assert_eq!(scored.user(1).0.items, &[0, 2]);
/// assert_eq!(scored.user(0).1, &[0.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Scored<'a> {
    judgments: &'a Judgments,
    scores: &'a [f32],
    users: Vec<UserJudgments<'a>>,
    offsets: Vec<usize>,
}

impl<'a> Scored<'a> {
    /// Pairs `judgments` with `scores`.
    ///
    /// # Errors
    /// [`MetricsError::ScoreLength`] when `scores.len()` differs from the number of
    /// candidates.
    pub fn new(judgments: &'a Judgments, scores: &'a [f32]) -> Result<Self> {
        if scores.len() != judgments.n_candidates() {
            return Err(MetricsError::ScoreLength {
                expected: judgments.n_candidates(),
                found: scores.len(),
            });
        }
        let users: Vec<UserJudgments<'a>> = judgments.iter().collect();
        let mut offsets = Vec::with_capacity(users.len() + 1);
        offsets.push(0);
        let mut end = 0;
        for user in &users {
            end += user.items.len();
            offsets.push(end);
        }
        Ok(Scored { judgments, scores, users, offsets })
    }

    /// The judgments.
    pub fn judgments(&self) -> &'a Judgments {
        self.judgments
    }

    /// All scores, flat.
    pub fn scores(&self) -> &'a [f32] {
        self.scores
    }

    /// Number of judged users.
    pub fn n_users(&self) -> usize {
        self.users.len()
    }

    /// The `position`-th judged user (in increasing user order) and its scores.
    ///
    /// # Panics
    /// When `position >= self.n_users()`.
    pub fn user(&self, position: usize) -> (UserJudgments<'a>, &'a [f32]) {
        (self.users[position], &self.scores[self.offsets[position]..self.offsets[position + 1]])
    }

    /// Every judged user as `(user, grades, score keys)`, the keys [`score_key`]'s of its
    /// candidates' scores, aligned with the grades: what rank-based code outside this crate
    /// (the corrected sampled metrics) reads.
    pub fn keyed_users(&self) -> impl Iterator<Item = (u32, &'a [f32], Vec<u32>)> + '_ {
        (0..self.n_users()).map(|position| {
            let (judged, scores) = self.user(position);
            (judged.user, judged.grades, scores.iter().map(|&s| score_key(s)).collect())
        })
    }

    /// Number of missing (`NaN`) scores.
    pub fn n_missing(&self) -> usize {
        self.scores.iter().filter(|s| s.is_nan()).count()
    }
}

/// Maps a score to a `u32` whose unsigned order is the score order. `NaN` (missing)
/// maps to 0, below every number; `-0.0` and `0.0` map to the same key. Two scores tie
/// exactly when their keys are equal, so an engine can group pairs by key (a per-score
/// histogram of the pooled ROC: [`crate::roc_summary_of_groups`]).
///
/// ```
/// use recs_metrics::score_key;
/// assert!(score_key(-1.0) < score_key(0.0) && score_key(0.0) < score_key(0.5));
/// assert_eq!(score_key(-0.0), score_key(0.0));
/// assert_eq!(score_key(f32::NAN), 0);
/// ```
#[inline]
pub fn score_key(score: f32) -> u32 {
    // Branch-free: flip every bit of a negative number, only the sign bit of a positive
    // one; then send both zeros to the key of 0.0 and NaN to 0.
    let bits = score.to_bits();
    let flip = ((bits as i32 >> 31) as u32) | 0x8000_0000;
    let key = if score == 0.0 { 0x8000_0000 } else { bits ^ flip };
    if score.is_nan() { 0 } else { key }
}

/// How candidates with equal scores are ordered.
///
/// As text (`FromStr`, `Display`, serde, `recs eval --ties`): `expected`,
/// `item-ascending` (also `item-asc`) or `item-descending` (also `item-desc`).
///
/// ```
/// use recs_metrics::TieBreak;
/// assert_eq!("item-desc".parse::<TieBreak>()?, TieBreak::ItemDescending);
/// assert_eq!(TieBreak::ItemDescending.to_string(), "item-descending");
/// assert!("random".parse::<TieBreak>().is_err());
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TieBreak {
    /// `expected`: the expected value under a uniformly random order within each group
    /// of equal scores (the default; a group cut by a top-k boundary contributes
    /// fractionally).
    #[default]
    Expected,
    /// `item-ascending`: equal scores ordered by increasing item index.
    ItemAscending,
    /// `item-descending`: equal scores ordered by decreasing item index (trec_eval orders
    /// ties by decreasing document id; this matches it when item indices follow the ids'
    /// order).
    ItemDescending,
}

named!(
    TieBreak,
    "tie policy",
    [
        Expected => "expected",
        ItemAscending => "item-ascending",
        ItemDescending => "item-descending",
    ],
    // The spellings `recs eval --ties` accepted before the names were spelled out.
    aliases ["item-asc" => ItemAscending, "item-desc" => ItemDescending],
);

/// What a candidate without a score (`NaN`) is, for the per-user metrics.
///
/// As text (`FromStr`, `Display`, serde): `last` or `unranked`.
///
/// ```
/// use recs_metrics::Missing;
/// assert_eq!("unranked".parse::<Missing>()?, Missing::Unranked);
/// assert_eq!(Missing::default().to_string(), "last");
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Missing {
    /// `last`: ranked below every scored candidate, tied with the user's other missing
    /// candidates (the default: a system that gives no score gives the lowest).
    #[default]
    Last,
    /// `unranked`: never ranked, so never a hit; a missing relevant candidate still
    /// counts in `R` (recall, AP, MAP, F1) and in the ideal DCG. This is trec_eval's
    /// treatment of a judged document the run does not retrieve. The pooled ROC and CROC,
    /// whose curves end at (1, 1), and the per-user AUC still place it last.
    Unranked,
}

named!(Missing, "missing-score policy", [Last => "last", Unranked => "unranked"]);

/// A user's candidates in decreasing score order, cut into tie groups.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ranking {
    /// Local candidate positions in ranked order (only the ranked prefix when cut).
    pub order: Vec<u32>,
    /// `(start, len)` of each tie group over `order`.
    pub groups: Vec<(usize, usize)>,
    packed: Vec<u64>,
}

impl Ranking {
    /// Ranks `scores`. With `depth = Some(d)`, only the top `d` positions (extended to the
    /// end of the tie group holding position `d`) are ranked, by partial selection; the
    /// candidates left out all score strictly lower.
    pub(crate) fn rank(&mut self, scores: &[f32], depth: Option<usize>, ties: TieBreak) {
        self.packed.clear();
        self.order.clear();
        self.groups.clear();
        let descending_items = ties == TieBreak::ItemDescending;
        self.packed.extend(scores.iter().enumerate().map(|(i, &s)| {
            let i = if descending_items { !(i as u32) } else { i as u32 };
            (u64::from(!score_key(s)) << 32) | u64::from(i)
        }));
        let n = self.packed.len();
        let mut ranked = n;
        if let Some(depth) = depth {
            if depth == 0 {
                ranked = 0;
            } else if depth < n {
                self.packed.select_nth_unstable(depth - 1);
                let boundary = self.packed[depth - 1] >> 32;
                let mut end = depth;
                for j in depth..n {
                    if self.packed[j] >> 32 == boundary {
                        self.packed.swap(j, end);
                        end += 1;
                    }
                }
                ranked = end;
            }
        }
        let prefix = &mut self.packed[..ranked];
        prefix.sort_unstable();
        let mut start = 0;
        for j in 0..ranked {
            let low = prefix[j] as u32;
            self.order.push(if descending_items { !low } else { low });
            let group_ends = match ties {
                TieBreak::Expected => j + 1 == ranked || prefix[j + 1] >> 32 != prefix[j] >> 32,
                _ => true,
            };
            if group_ends {
                self.groups.push((start, j + 1 - start));
                start = j + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_score_order() {
        let scores = [f32::NEG_INFINITY, -3.5, -1e-30, -0.0, 0.0, 1e-30, 2.0, f32::INFINITY];
        for w in scores.windows(2) {
            assert!(score_key(w[0]) <= score_key(w[1]), "{w:?}");
        }
        assert_eq!(score_key(-0.0), score_key(0.0));
        assert!(score_key(f32::NAN) < score_key(f32::NEG_INFINITY));
    }

    #[test]
    fn ranking_cuts_at_tie_group_end() {
        let mut r = Ranking::default();
        r.rank(&[0.1, 0.5, 0.5, 0.9, 0.5, 0.2], Some(2), TieBreak::Expected);
        assert_eq!(r.order[0], 3);
        assert_eq!(r.order.len(), 4);
        assert_eq!(r.groups, vec![(0, 1), (1, 3)]);
        r.rank(&[0.1, 0.5, 0.5, 0.9, 0.5, 0.2], None, TieBreak::ItemDescending);
        assert_eq!(r.order, vec![3, 4, 2, 1, 5, 0]);
        assert_eq!(r.groups.len(), 6);
    }
}
