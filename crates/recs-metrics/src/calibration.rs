//! Calibration (Steck, "Calibrated Recommendations", RecSys 2018): how far the attribute
//! (genre) distribution of a user's top-N list is from that of the user's training
//! history, as the Kullback–Leibler divergence of Steck's eq. 3 with the smoothing of his
//! eq. 4.
//!
//! With `p(g|i)` an item's attribute weights over their sum (uniform over a film's
//! genres):
//!
//! - `p(g|u) = Σ_{i∈H} p(g|i) / |H|` over the user's distinct training items that have
//!   an attribute (Steck's eq. 1 with every weight `w_{u,i} = 1`);
//! - `q(g|u) = Σ_{i∈L} p(g|i) / |L|` over the list's items that have an attribute (eq. 2
//!   with every rank weight `w_{r(i)} = 1`);
//! - `miscal = Σ_g p(g|u) · ln(p(g|u) / q̃(g|u))`, `q̃ = (1 − α) · q + α · p` (α = 0.01 by
//!   default, the value Steck gives), in nats.
//!
//! A user without an attributed training item has no `p(g|u)`: the value is undefined and
//! the user is left out of the mean. A list without an attributed item has `q = 0`, and
//! the value is its maximum, `ln(1/α)`. Under a tie that the cut-off splits, `q` is the
//! distribution of the list's **expected** attribute mass, `Σ P(i ∈ L) · p(g|i) /
//! Σ P(i ∈ L)`: the divergence of the expected list, not the expected divergence (the
//! two differ; the first is what one ranking shown many times with its ties shuffled
//! gives). Definitions: `docs/metrics.md`, "Beyond accuracy".

use recs_core::ItemAttributes;

use crate::error::{MetricsError, Result};
use crate::lists::Listed;

/// The smoothing α of `q̃ = (1 − α) · q + α · p` that Steck (2018) gives: 0.01.
pub const DEFAULT_CALIBRATION_SMOOTHING: f64 = 0.01;

/// What `miscal@N` reads: each list item's attribute distribution `p(g|i)` and each
/// user's history distribution `p(g|u)`.
///
/// ```
/// use recs_core::{IdMap, ItemAttributes};
/// use recs_metrics::Calibration;
/// // Two genres; item 0 is a comedy, item 1 a drama, item 2 both.
/// let genres = IdMap::from_ids_sorted(["comedy", "drama"])?;
/// let attributes =
///     ItemAttributes::from_pairs(3, genres, [(0, 0, 1.0), (1, 1, 1.0), (2, 0, 1.0), (2, 1, 1.0)])?;
/// // User 0 trained on items 0 and 2: p(comedy|u) = (1 + 1/2) / 2 = 3/4.
/// let calibration = Calibration::new(&attributes, &attributes, [(0, 0), (0, 2)], 1, 0.01)?;
/// assert_eq!(calibration.history(0), &[(0, 0.75), (1, 0.25)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    alpha: f64,
    /// Per item that may be listed, `(attribute, p(g|i))` by attribute; empty without one.
    items: Vec<Vec<(u32, f64)>>,
    /// Per user, `(attribute, p(g|u))` by attribute; empty without an attributed history.
    users: Vec<Vec<(u32, f64)>>,
}

impl Calibration {
    /// The calibration of lists over the items of `list_items` for users `0..n_users`
    /// whose training histories are the `(user, item)` pairs of `history`, items numbered
    /// as in `history_items` (a pair given twice counts once). Both tables must share
    /// their attribute vocabulary; they may be the same table.
    ///
    /// # Errors
    /// [`MetricsError::InvalidArgument`] for tables with different vocabularies, a
    /// negative attribute weight, a user or item out of range, or `alpha` outside
    /// `(0, 1]`.
    pub fn new(
        list_items: &ItemAttributes,
        history_items: &ItemAttributes,
        history: impl IntoIterator<Item = (u32, u32)>,
        n_users: usize,
        alpha: f64,
    ) -> Result<Calibration> {
        if !(alpha > 0.0 && alpha <= 1.0) {
            return Err(MetricsError::InvalidArgument {
                name: "calibration smoothing",
                value: alpha.to_string(),
                expected: "a smoothing α in (0, 1] (Steck's 0.01 by default)",
            });
        }
        if list_items.vocabulary() != history_items.vocabulary() {
            return Err(MetricsError::InvalidArgument {
                name: "attributes",
                value: "two attribute vocabularies".into(),
                expected: "the listed and the history items' attributes from one vocabulary",
            });
        }
        let items = distributions(list_items)?;
        let known = distributions(history_items)?;
        let mut pairs: Vec<(u32, u32)> = history.into_iter().collect();
        for &(user, item) in &pairs {
            if user as usize >= n_users || item as usize >= known.len() {
                return Err(MetricsError::InvalidArgument {
                    name: "history",
                    value: format!("(user {user}, item {item})"),
                    expected: "users below the number of users and items of the history table",
                });
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut users = vec![Vec::new(); n_users];
        let mut terms: Vec<(u32, f64)> = Vec::new();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            terms.clear();
            let mut attributed = 0usize;
            for &(_, item) in run {
                let of_item = &known[item as usize];
                attributed += usize::from(!of_item.is_empty());
                terms.extend_from_slice(of_item);
            }
            if attributed == 0 {
                continue;
            }
            // A stable sort keeps each attribute's terms in item order: the sums below
            // do not depend on how the pairs were given.
            terms.sort_by_key(|&(g, _)| g);
            let mut merged: Vec<(u32, f64)> = Vec::new();
            for &(g, p) in &terms {
                match merged.last_mut() {
                    Some(last) if last.0 == g => last.1 += p,
                    _ => merged.push((g, p)),
                }
            }
            for term in &mut merged {
                term.1 /= attributed as f64;
            }
            users[run[0].0 as usize] = merged;
        }
        Ok(Calibration { alpha, items, users })
    }

    /// Number of items that may be listed.
    pub fn n_items(&self) -> usize {
        self.items.len()
    }

    /// Number of users it knows the histories of.
    pub fn n_users(&self) -> usize {
        self.users.len()
    }

    /// The smoothing α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// User `user`'s history distribution `p(g|u)` as `(attribute, probability)` by
    /// attribute; empty when no training item of the user has an attribute.
    pub fn history(&self, user: u32) -> &[(u32, f64)] {
        &self.users[user as usize]
    }

    /// The miscalibration of `user`'s list (`listed`, positions into `items`), `NaN`
    /// when the user has no attributed history; `q` is scratch storage.
    pub(crate) fn miscalibration(
        &self,
        user: u32,
        listed: &[Listed],
        items: &[u32],
        q: &mut Vec<f64>,
    ) -> f64 {
        let Some(p) = self.users.get(user as usize).filter(|p| !p.is_empty()) else {
            return f64::NAN;
        };
        q.clear();
        q.resize(p.len(), 0.0);
        let mut mass = 0.0;
        for l in listed {
            let of_item = &self.items[items[l.position as usize] as usize];
            if of_item.is_empty() {
                continue;
            }
            mass += l.probability;
            for &(g, weight) in of_item {
                if let Ok(at) = p.binary_search_by_key(&g, |&(h, _)| h) {
                    q[at] += l.probability * weight;
                }
            }
        }
        let alpha = self.alpha;
        p.iter()
            .zip(q.iter())
            .map(|(&(_, pg), &qg)| {
                let qg = if mass > 0.0 { qg / mass } else { 0.0 };
                pg * (pg / ((1.0 - alpha) * qg + alpha * pg)).ln()
            })
            .sum()
    }
}

/// Per item, its attribute weights over their sum, by attribute.
fn distributions(attributes: &ItemAttributes) -> Result<Vec<Vec<(u32, f64)>>> {
    (0..attributes.n_items() as u32)
        .map(|item| {
            let (ids, weights) = (attributes.item_attributes(item), attributes.item_weights(item));
            if let Some(&w) = weights.iter().find(|&&w| w < 0.0) {
                return Err(MetricsError::InvalidArgument {
                    name: "attribute weight",
                    value: format!("{w} (item {item})"),
                    expected: "non-negative attribute weights for calibration",
                });
            }
            let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
            if total == 0.0 {
                return Ok(Vec::new());
            }
            let mut out: Vec<(u32, f64)> = ids
                .iter()
                .zip(weights)
                .filter(|&(_, &w)| w > 0.0)
                .map(|(&g, &w)| (g, f64::from(w) / total))
                .collect();
            out.sort_unstable_by_key(|&(g, _)| g);
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::IdMap;

    fn genres() -> ItemAttributes {
        // Items: 0 comedy, 1 drama, 2 comedy+drama, 3 none.
        let vocabulary = IdMap::from_ids_sorted(["comedy", "drama"]).unwrap();
        ItemAttributes::from_pairs(
            4,
            vocabulary,
            [(0, 0, 1.0), (1, 1, 1.0), (2, 0, 1.0), (2, 1, 1.0)],
        )
        .unwrap()
    }

    fn listed(items: &[(u32, f64)]) -> Vec<Listed> {
        items
            .iter()
            .map(|&(position, probability)| Listed {
                position,
                probability,
                discount: 0.0,
                ranks: (1, 1),
                group: 1,
            })
            .collect()
    }

    #[test]
    fn hand_computed_divergence() {
        let a = genres();
        // History {0, 2}: p = (3/4, 1/4). List {1, 3}: only item 1 has genres, q = (0, 1).
        let c = Calibration::new(&a, &a, [(0, 0), (0, 2), (0, 0)], 1, 0.01).unwrap();
        let items = [0, 1, 2, 3];
        let value = c.miscalibration(0, &listed(&[(1, 1.0), (3, 1.0)]), &items, &mut Vec::new());
        let (p, q): ([f64; 2], [f64; 2]) = ([0.75, 0.25], [0.0, 1.0]);
        let expected: f64 = (0..2).map(|g| p[g] * (p[g] / (0.99 * q[g] + 0.01 * p[g])).ln()).sum();
        assert!((value - expected).abs() < 1e-15, "{value} {expected}");
        // A list shaped like the history is perfectly calibrated.
        let same = c.miscalibration(0, &listed(&[(0, 1.0), (2, 1.0)]), &items, &mut Vec::new());
        assert!(same.abs() < 1e-15);
        // No attributed item listed: ln(1/α).
        let none = c.miscalibration(0, &listed(&[(3, 1.0)]), &items, &mut Vec::new());
        assert!((none - 100f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn a_tie_gives_the_divergence_of_the_expected_list() {
        let a = genres();
        let c = Calibration::new(&a, &a, [(0, 0), (0, 1)], 1, 0.01).unwrap();
        // Item 0 surely listed; one slot shared by items 1 and 2 (probability 1/2 each):
        // expected mass comedy 1 + 1/4, drama 1/2 + 1/4, over 2.
        let value = c.miscalibration(
            0,
            &listed(&[(0, 1.0), (1, 0.5), (2, 0.5)]),
            &[0, 1, 2, 3],
            &mut Vec::new(),
        );
        let (p, q): ([f64; 2], [f64; 2]) = ([0.5, 0.5], [1.25 / 2.0, 0.75 / 2.0]);
        let expected: f64 = (0..2).map(|g| p[g] * (p[g] / (0.99 * q[g] + 0.01 * p[g])).ln()).sum();
        assert!((value - expected).abs() < 1e-15);
    }

    #[test]
    fn users_without_an_attributed_history_are_undefined() {
        let a = genres();
        let c = Calibration::new(&a, &a, [(1, 3)], 2, 0.01).unwrap();
        assert!(c.history(0).is_empty() && c.history(1).is_empty());
        assert!(c.miscalibration(1, &listed(&[(0, 1.0)]), &[0, 1, 2, 3], &mut Vec::new()).is_nan());
    }

    #[test]
    fn bad_input_is_refused() {
        let a = genres();
        assert!(Calibration::new(&a, &a, [(0, 0)], 1, 0.0).is_err());
        assert!(Calibration::new(&a, &a, [(0, 0)], 1, 1.5).is_err());
        assert!(Calibration::new(&a, &a, [(1, 0)], 1, 0.01).is_err());
        assert!(Calibration::new(&a, &a, [(0, 4)], 1, 0.01).is_err());
        let other = IdMap::from_ids_sorted(["action"]).unwrap();
        let b = ItemAttributes::from_pairs(1, other, [(0, 0, 1.0)]).unwrap();
        assert!(Calibration::new(&a, &b, [(0, 0)], 1, 0.01).is_err());
        let vocabulary = IdMap::from_ids_sorted(["comedy", "drama"]).unwrap();
        let negative = ItemAttributes::from_pairs(1, vocabulary, [(0, 0, -1.0)]).unwrap();
        assert!(Calibration::new(&negative, &negative, [(0, 0)], 1, 0.01).is_err());
    }
}
