//! Intra-list diversity: how unlike each other the items of a top-N list are, by their
//! attributes (genres, cast, any attribute file), as the expectation over the orders of a
//! tie that the cut-off splits.
//!
//! Two items of a list are both in it with probability 1 when neither is in the cut tie
//! group, `c/g` when one is (`c` of its `g` members are taken), and `c(c−1)/(g(g−1))`
//! when both are. Definitions: `docs/metrics.md`, "Beyond accuracy".

use recs_core::ItemAttributes;

use crate::error::{MetricsError, Result};
use crate::lists::{Listed, log_discount};
use crate::names::named;

/// How alike two items' attributes are.
///
/// As text (`FromStr`, `Display`, serde, `recs eval --similarity`): `cosine` or `jaccard`.
///
/// ```
/// use recs_metrics::Similarity;
/// assert_eq!("jaccard".parse::<Similarity>()?, Similarity::Jaccard);
/// assert_eq!(Similarity::default().to_string(), "cosine");
/// # Ok::<(), recs_metrics::MetricsError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Similarity {
    /// `cosine`: the cosine of the items' attribute weight vectors (the default); 0 when
    /// either item has no attribute.
    #[default]
    Cosine,
    /// `jaccard`: shared attributes over attributes of either item (weights ignored); 0
    /// when neither has an attribute.
    Jaccard,
}

named!(Similarity, "similarity", [Cosine => "cosine", Jaccard => "jaccard"]);

/// Item attributes prepared for intra-list diversity: per item, its attribute weights
/// scaled to unit length (cosine) or its attribute set (Jaccard).
///
/// ```
/// use recs_core::{IdMap, ItemAttributes};
/// use recs_metrics::{Diversity, Similarity};
/// let vocabulary = IdMap::from_ids_sorted(["comedy", "drama"])?;
/// let attributes = ItemAttributes::from_pairs(3, vocabulary, [(0, 0, 1.0), (1, 0, 1.0), (1, 1, 1.0)])?;
/// let diversity = Diversity::new(&attributes, Similarity::Cosine);
/// assert!((diversity.similarity_of(0, 1) - 0.5f64.sqrt()).abs() < 1e-15);
/// assert_eq!(diversity.similarity_of(0, 2), 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Diversity {
    similarity: Similarity,
    n_attributes: usize,
    /// Per item, `(attribute, weight)` sorted by attribute: unit length for cosine, 1 for
    /// Jaccard.
    vectors: Vec<Vec<(u32, f64)>>,
}

impl Diversity {
    /// The attributes of the judgments' items (`attributes.n_items()` of them), compared
    /// by `similarity`.
    pub fn new(attributes: &ItemAttributes, similarity: Similarity) -> Diversity {
        let vectors = (0..attributes.n_items() as u32)
            .map(|item| {
                let ids = attributes.item_attributes(item);
                let weights = attributes.item_weights(item);
                match similarity {
                    Similarity::Jaccard => ids.iter().map(|&a| (a, 1.0)).collect(),
                    _ => {
                        let norm = weights
                            .iter()
                            .map(|&w| f64::from(w) * f64::from(w))
                            .sum::<f64>()
                            .sqrt();
                        if norm == 0.0 {
                            return Vec::new();
                        }
                        ids.iter().zip(weights).map(|(&a, &w)| (a, f64::from(w) / norm)).collect()
                    }
                }
            })
            .collect();
        Diversity { similarity, n_attributes: attributes.n_attributes(), vectors }
    }

    /// Number of items it describes.
    pub fn n_items(&self) -> usize {
        self.vectors.len()
    }

    /// The similarity it compares items by.
    pub fn similarity(&self) -> Similarity {
        self.similarity
    }

    /// The similarity of items `a` and `b`, in `[0, 1]` for non-negative weights.
    pub fn similarity_of(&self, a: u32, b: u32) -> f64 {
        let (x, y) = (&self.vectors[a as usize], &self.vectors[b as usize]);
        let (dot, shared) = sparse_dot(x, y);
        match self.similarity {
            Similarity::Jaccard => {
                let either = x.len() + y.len() - shared;
                if either == 0 { 0.0 } else { shared as f64 / either as f64 }
            }
            _ => dot,
        }
    }

    /// The expected intra-list diversity of one user's top-`length` list, `listed` its
    /// items (positions mapped to items by `items`), each with the probability of being
    /// in the list: `1 − E[Σ_{pairs} sim] / (length (length − 1) / 2)`; `NaN` for a list
    /// of fewer than 2 items.
    pub(crate) fn expected(
        &self,
        listed: &[Listed],
        items: &[u32],
        length: usize,
        scratch: &mut Scratch,
    ) -> f64 {
        if length < 2 {
            return f64::NAN;
        }
        let Scratch { sums: scratch, certain, cut, .. } = scratch;
        let item = |l: &Listed| items[l.position as usize];
        // The certain items and the members of the cut group (all share p = c/g < 1).
        certain.clear();
        certain.extend(listed.iter().filter(|l| l.probability >= 1.0).map(item));
        cut.clear();
        cut.extend(listed.iter().filter(|l| l.probability < 1.0).map(item));
        let (certain, cut) = (&certain[..], &cut[..]);
        let g = cut.len() as f64;
        let c = listed.iter().find(|l| l.probability < 1.0).map_or(0.0, |l| l.probability * g);
        let c = c.round();
        let both_cut = if g > 1.0 { c * (c - 1.0) / (g * (g - 1.0)) } else { 0.0 };
        let one_cut = if g > 0.0 { c / g } else { 0.0 };
        let similar = match self.similarity {
            Similarity::Jaccard => {
                let within = |set: &[u32]| -> f64 {
                    let mut sum = 0.0;
                    for (k, &a) in set.iter().enumerate() {
                        for &b in &set[k + 1..] {
                            sum += self.similarity_of(a, b);
                        }
                    }
                    sum
                };
                let across: f64 = certain
                    .iter()
                    .flat_map(|&a| cut.iter().map(move |&b| (a, b)))
                    .map(|(a, b)| self.similarity_of(a, b))
                    .sum();
                within(certain) + one_cut * across + both_cut * within(cut)
            }
            // Cosine is a dot product of unit vectors: a set's pair sum is
            // (|Σ u|² − Σ |u|²) / 2 and a cross sum is ⟨Σ u, Σ v⟩, in O(items · attributes).
            _ => {
                scratch.clear();
                scratch.resize(2 * self.n_attributes, 0.0);
                let (sum_certain, sum_cut) = scratch.split_at_mut(self.n_attributes);
                // Σ |u|² of a set: 1 per item with attributes, 0 per item without.
                let add = |set: &[u32], sum: &mut [f64]| -> f64 {
                    let mut units = 0.0;
                    for &i in set {
                        let v = &self.vectors[i as usize];
                        units += v.iter().map(|&(_, w)| w * w).sum::<f64>();
                        for &(a, w) in v {
                            sum[a as usize] += w;
                        }
                    }
                    units
                };
                let units = [add(certain, sum_certain), add(cut, sum_cut)];
                let square = |s: &[f64]| s.iter().map(|x| x * x).sum::<f64>();
                let cross: f64 = sum_certain.iter().zip(sum_cut.iter()).map(|(x, y)| x * y).sum();
                (square(sum_certain) - units[0]) / 2.0
                    + one_cut * cross
                    + both_cut * (square(sum_cut) - units[1]) / 2.0
            }
        };
        let pairs = (length * (length - 1)) as f64 / 2.0;
        1.0 - similar / pairs
    }
}

impl Diversity {
    /// The expected rank-discounted intra-list diversity of one user's top-`length` list
    /// (`listed` as for [`Diversity::expected`]): Vargas & Castells' EILD with every
    /// item's relevance 1 and logarithmic discounts, as RankSys computes it,
    /// `Σ_r disc(r) · Σ_{s≠r} gap(r, s) d(i_r, i_s) / Σ_{s≠r} gap(r, s)` over `Σ_r disc(r)`,
    /// with `gap(r, s) = disc(max(1, s − r))` (an item ranked above `r` weighs fully) and
    /// `d = 1 − sim`; `NaN` for a list of fewer than 2 items.
    ///
    /// The weight of an ordered pair of ranks does not depend on the items, so under ties
    /// the expectation over the orders is, for each ordered pair of tie groups, the mean
    /// weight of the rank pairs its items may take times the sum of `d` over its item
    /// pairs: `1/(g_A g_B)` for two items of different groups at two given ranks,
    /// `1/(g(g − 1))` for two of one group.
    pub(crate) fn expected_discounted(
        &self,
        listed: &[Listed],
        items: &[u32],
        length: usize,
        scratch: &mut Scratch,
    ) -> f64 {
        if length < 2 {
            return f64::NAN;
        }
        let weights = scratch.weights.of(length);
        let Scratch { groups, members, sparse: sums, spans, units, .. } = scratch;
        // The tie groups, in rank order: (first member, members, first rank, last rank).
        groups.clear();
        members.clear();
        for l in listed {
            let item = items[l.position as usize];
            match groups.last_mut() {
                Some(g) if g.ranks == l.ranks && g.size < l.group => g.size += 1,
                _ => groups.push(Group { start: members.len(), size: 1, ranks: l.ranks }),
            }
            members.push(item);
        }
        // Each group's attribute sums (cosine: the sum of its unit vectors, sparse, and
        // Σ |u|²), so that a pair sum of similarities is a dot product.
        sums.clear();
        spans.clear();
        units.clear();
        if self.similarity != Similarity::Jaccard {
            for g in groups.iter() {
                let from = sums.len();
                let mut unit = 0.0;
                for &i in &members[g.start..g.start + g.size] {
                    let v = &self.vectors[i as usize];
                    unit += v.iter().map(|&(_, w)| w * w).sum::<f64>();
                    sums.extend_from_slice(v);
                }
                sums[from..].sort_unstable_by_key(|&(a, _)| a);
                let mut end = from;
                for k in from..sums.len() {
                    if end > from && sums[end - 1].0 == sums[k].0 {
                        sums[end - 1].1 += sums[k].1;
                    } else {
                        sums[end] = sums[k];
                        end += 1;
                    }
                }
                sums.truncate(end);
                spans.push((from, end));
                units.push(unit);
            }
        }
        let of = |g: &Group| &members[g.start..g.start + g.size];
        // Σ sim over the ordered pairs of distinct items of A × B (A = B: of one group).
        let similar = |a: usize, b: usize| -> f64 {
            let (ga, gb) = (&groups[a], &groups[b]);
            match self.similarity {
                Similarity::Jaccard => {
                    let mut sum = 0.0;
                    for (k, &x) in of(ga).iter().enumerate() {
                        for (j, &y) in of(gb).iter().enumerate() {
                            if a != b || k != j {
                                sum += self.similarity_of(x, y);
                            }
                        }
                    }
                    sum
                }
                _ => {
                    let (dot, _) =
                        sparse_dot(&sums[spans[a].0..spans[a].1], &sums[spans[b].0..spans[b].1]);
                    if a == b { dot - units[a] } else { dot }
                }
            }
        };
        let mut value = 0.0;
        for (a, ga) in groups.iter().enumerate() {
            for (b, gb) in groups.iter().enumerate() {
                let pairs = if a == b { ga.size * (ga.size - 1) } else { ga.size * gb.size };
                if pairs == 0 {
                    continue;
                }
                let mut weight = 0.0;
                for r in ga.ranks.0..=ga.ranks.1 {
                    for s in gb.ranks.0..=gb.ranks.1 {
                        if r != s {
                            weight += weights[(r - 1) * length + (s - 1)];
                        }
                    }
                }
                if weight == 0.0 {
                    continue;
                }
                let distance = pairs as f64 - similar(a, b);
                value += weight / pairs as f64 * distance;
            }
        }
        value
    }
}

/// The dot product of two sparse vectors sorted by index, and the number of indices they
/// share.
fn sparse_dot(x: &[(u32, f64)], y: &[(u32, f64)]) -> (f64, usize) {
    let (mut i, mut j, mut dot, mut shared) = (0, 0, 0.0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += x[i].1 * y[j].1;
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (dot, shared)
}

/// One tie group of a list: its members (from `start` in the member list), and the ranks
/// of the list it spans (from 1; the cut group spans fewer ranks than it has members).
#[derive(Debug, Clone, Copy)]
struct Group {
    start: usize,
    size: usize,
    ranks: (usize, usize),
}

/// The weights of the ordered rank pairs of a list of one length, kept while the length
/// does not change: `W(r, s) = disc(r) gap(r, s) / (Σ_{t≠r} gap(r, t) · Σ_t disc(t))`.
#[derive(Debug, Default)]
struct PairWeights {
    length: usize,
    weights: Vec<f64>,
}

impl PairWeights {
    fn of(&mut self, length: usize) -> &[f64] {
        if self.length != length || self.weights.is_empty() {
            let gap = |r: usize, s: usize| log_discount(s.saturating_sub(r).max(1));
            let total: f64 = (1..=length).map(log_discount).sum();
            self.weights = vec![0.0; length * length];
            for r in 1..=length {
                let gaps: f64 = (1..=length).filter(|&s| s != r).map(|s| gap(r, s)).sum();
                for s in (1..=length).filter(|&s| s != r) {
                    self.weights[(r - 1) * length + (s - 1)] =
                        log_discount(r) * gap(r, s) / (gaps * total);
                }
            }
            self.length = length;
        }
        &self.weights
    }
}

/// Per-thread storage of the diversity metrics: attribute sums, the list's items and tie
/// groups, and the rank weights of the discounted one.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    sums: Vec<f64>,
    certain: Vec<u32>,
    cut: Vec<u32>,
    groups: Vec<Group>,
    members: Vec<u32>,
    sparse: Vec<(u32, f64)>,
    /// Per tie group, its attribute sum's span in `sparse` and its `Σ |u|²`.
    spans: Vec<(usize, usize)>,
    units: Vec<f64>,
    weights: PairWeights,
}

/// The check that the diversity metrics' attributes describe the judgments' items.
pub(crate) fn check_items(diversity: &Diversity, n_items: usize) -> Result<()> {
    if diversity.n_items() != n_items {
        return Err(MetricsError::InvalidArgument {
            name: "attributes",
            value: format!("{} items", diversity.n_items()),
            expected: "the attributes of every item of the judgments",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::IdMap;

    fn attributes(pairs: &[(u32, u32)], n_items: usize, n_attributes: usize) -> ItemAttributes {
        let names: Vec<String> = (0..n_attributes).map(|a| format!("a{a:02}")).collect();
        let vocabulary = IdMap::from_ids_sorted(names.iter().map(String::as_str)).unwrap();
        ItemAttributes::from_pairs(n_items, vocabulary, pairs.iter().map(|&(i, a)| (i, a, 1.0)))
            .unwrap()
    }

    #[test]
    fn similarities_by_hand() {
        // Item 0: {0, 1}; item 1: {1, 2, 3}; item 2: none.
        let a = attributes(&[(0, 0), (0, 1), (1, 1), (1, 2), (1, 3)], 3, 4);
        let cosine = Diversity::new(&a, Similarity::Cosine);
        assert!((cosine.similarity_of(0, 1) - 1.0 / (2f64.sqrt() * 3f64.sqrt())).abs() < 1e-15);
        assert_eq!(cosine.similarity_of(1, 2), 0.0);
        let jaccard = Diversity::new(&a, Similarity::Jaccard);
        assert_eq!(jaccard.similarity_of(0, 1), 0.25);
        assert_eq!(jaccard.similarity_of(2, 2), 0.0);
    }
}
