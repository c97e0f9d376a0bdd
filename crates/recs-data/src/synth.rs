//! Seeded synthetic datasets: the block matrix of Ignatov et al. (2010) and a power-law
//! generator with latent cluster structure.

use std::io::Write;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{DuplicatePolicy, Event, IdMap, Interactions};

use crate::dataset::{Dataset, Feedback};
use crate::error::{DataError, Result};

/// The synthetic matrix of Ignatov et al. (2010, §5): 20 users × 20 items with four 5 × 5
/// blocks of ones — here on the diagonal (users `5b..5b+5` × items `5b..5b+5`; the paper
/// does not say where the blocks lie, and any placement is the same matrix up to a
/// permutation). Ids are `1..=20`; feedback is implicit.
///
/// # Errors
/// None in practice (the core types accept this matrix).
pub fn ignatov_blocks() -> Result<Dataset> {
    block_diagonal(4, 5)
}

/// `n_blocks` diagonal blocks of ones, each `block_size` × `block_size`.
///
/// # Errors
/// Zero sizes, or more than `u32::MAX` rows.
pub fn block_diagonal(n_blocks: usize, block_size: usize) -> Result<Dataset> {
    let n = n_blocks.checked_mul(block_size).filter(|&n| n > 0 && n < u32::MAX as usize);
    let n = n.ok_or_else(|| {
        DataError::invalid("blocks", format!("{n_blocks} x {block_size}"), "positive sizes")
    })?;
    let mut events = Vec::with_capacity(n * block_size);
    for b in 0..n_blocks {
        for u in b * block_size..(b + 1) * block_size {
            for i in b * block_size..(b + 1) * block_size {
                events.push(Event::new(u as u32, i as u32, 1.0));
            }
        }
    }
    let ids = IdMap::from_ids_sorted((1..=n).map(|k| k.to_string()))?;
    let m = Interactions::from_events(n, n, events, DuplicatePolicy::Error)?;
    Dataset::new("ignatov-blocks", m, ids.clone(), ids, Feedback::Implicit)
}

/// Parameters of the power-law generator ([`PowerLaw::generate`]).
///
/// Model (ours): profile lengths follow a Lomax law with tail index `user_exponent`
/// (see [`PowerLaw::profile_lengths`]), at least `min_per_user`, at most `n_items / 2`,
/// summing to about `n_events`; item `i` has popularity proportional to
/// `(i + 1)^−b` (`b` = `item_exponent`). Users and items belong to `n_clusters` clusters
/// (`u mod K`, `i mod K`). Each event of a user picks, with probability `affinity`, an item
/// of the user's cluster by popularity, otherwise any item by popularity; a user never gets
/// the same item twice. With ratings, in-cluster events rate 3–5 and others 1–4, so a
/// model that finds the clusters predicts better than popularity alone.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerLaw {
    /// Number of users.
    pub n_users: usize,
    /// Number of items.
    pub n_items: usize,
    /// Target number of events.
    pub n_events: u64,
    /// Tail index `α` of user activity (smaller: heavier tail).
    pub user_exponent: f64,
    /// Exponent `b` of item popularity.
    pub item_exponent: f64,
    /// Smallest profile length.
    pub min_per_user: u32,
    /// Number of latent clusters `K`.
    pub n_clusters: usize,
    /// Probability of an in-cluster pick.
    pub affinity: f64,
    /// 1–5 ratings instead of binary events.
    pub ratings: bool,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for PowerLaw {
    /// 1000 users, 500 items, 20,000 events, `α = 1.5`, `b = 1.0`, at least 2 events per
    /// user, 8 clusters, affinity 0.7, binary, seed 0 (all ours).
    fn default() -> Self {
        PowerLaw {
            n_users: 1000,
            n_items: 500,
            n_events: 20_000,
            user_exponent: 1.5,
            item_exponent: 1.0,
            min_per_user: 2,
            n_clusters: 8,
            affinity: 0.7,
            ratings: false,
            seed: 0,
        }
    }
}

/// SplitMix64 finaliser: a well-mixed 64-bit function of its input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Cumulative weights and a sampler over them.
struct Cdf {
    items: Vec<u32>,
    cumulative: Vec<f64>,
}

impl Cdf {
    fn sample(&self, rng: &mut Xoshiro256PlusPlus) -> u32 {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let x = unit(rng) * total;
        let k = self.cumulative.partition_point(|&c| c <= x).min(self.items.len() - 1);
        self.items[k]
    }
}

/// The scale `λ` making `Σ clamp(round(min + λ t), min, cap)` reach `target`.
fn lomax_scale(tails: &[f64], min: f64, cap: f64, target: f64) -> f64 {
    let total = |lambda: f64| {
        tails.iter().map(|&t| (min + lambda * t).round().clamp(min, cap)).sum::<f64>()
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while total(hi) < target && hi < 1e12 {
        hi *= 2.0;
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if total(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Expected share of events held by the `k` most popular of `n` items under exponent `b`.
fn head_share(n: usize, k: usize, b: f64) -> f64 {
    let w = |i: usize| ((i + 1) as f64).powf(-b);
    let total: f64 = (0..n).map(w).sum();
    (0..k.min(n)).map(w).sum::<f64>() / total
}

impl PowerLaw {
    /// Checks the parameters.
    ///
    /// # Errors
    /// Zero users, items or clusters; more clusters than items; non-finite or negative
    /// exponents; affinity outside `[0, 1]`; `min_per_user` above `n_items / 2`.
    pub fn validate(&self) -> Result<()> {
        if self.n_users == 0 || self.n_users >= u32::MAX as usize {
            return Err(DataError::invalid("n_users", self.n_users, "1 ..= 2^32 - 2"));
        }
        if self.n_items < 2 || self.n_items >= u32::MAX as usize {
            return Err(DataError::invalid("n_items", self.n_items, "2 ..= 2^32 - 2"));
        }
        if self.n_clusters == 0 || self.n_clusters > self.n_items {
            return Err(DataError::invalid("n_clusters", self.n_clusters, "1 ..= n_items"));
        }
        if !(self.user_exponent.is_finite() && self.user_exponent > 0.0) {
            return Err(DataError::invalid(
                "user_exponent",
                self.user_exponent,
                "a finite number > 0",
            ));
        }
        if !(self.item_exponent.is_finite() && self.item_exponent >= 0.0) {
            return Err(DataError::invalid(
                "item_exponent",
                self.item_exponent,
                "a finite number >= 0",
            ));
        }
        if !(0.0..=1.0).contains(&self.affinity) {
            return Err(DataError::invalid("affinity", self.affinity, "a probability in [0, 1]"));
        }
        if self.min_per_user as usize > self.n_items / 2 {
            return Err(DataError::invalid(
                "min_per_user",
                self.min_per_user,
                "at most n_items / 2",
            ));
        }
        Ok(())
    }

    /// Parameters whose item exponent makes the `head_items` most popular items hold
    /// `head_share` of the events, and whose user exponent makes the expected share of
    /// users with at least `long_len` events equal `long_share` (both by bisection on the
    /// model's expected values). Other fields come from `self`.
    ///
    /// # Errors
    /// Invalid targets (shares outside (0, 1), `head_items` not below `n_items`).
    pub fn calibrated(
        &self,
        head_items: usize,
        head_share_target: f64,
        long_len: u32,
        long_share: f64,
    ) -> Result<PowerLaw> {
        self.validate()?;
        if !(head_share_target > 0.0 && head_share_target < 1.0)
            || head_items == 0
            || head_items >= self.n_items
        {
            return Err(DataError::invalid(
                "head",
                format!("{head_items} items, share {head_share_target}"),
                "0 < items < n_items, 0 < share < 1",
            ));
        }
        if !(long_share > 0.0 && long_share < 1.0) {
            return Err(DataError::invalid("long_share", long_share, "a share in (0, 1)"));
        }
        // Bisection for an increasing function on [lo, hi].
        let bisect = |f: &dyn Fn(f64) -> f64, target: f64, mut lo: f64, mut hi: f64| {
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if f(mid) < target { lo = mid } else { hi = mid }
            }
            0.5 * (lo + hi)
        };
        let mut out = self.clone();
        out.item_exponent =
            bisect(&|b| head_share(self.n_items, head_items, b), head_share_target, 0.0, 8.0);
        // Share of users with at least `long_len` events, for a tail index.
        let long = |alpha: f64| {
            let p = PowerLaw { user_exponent: alpha, ..self.clone() };
            let lengths = p.profile_lengths();
            lengths.iter().filter(|&&n| n >= long_len).count() as f64 / lengths.len() as f64
        };
        let (lo, hi) = (0.2, 50.0);
        let (at_lo, at_hi) = (long(lo), long(hi));
        let (small, large) = (at_lo.min(at_hi), at_lo.max(at_hi));
        if !(small..=large).contains(&long_share) {
            return Err(DataError::invalid(
                "long_share",
                long_share,
                format!("between {small:.4} and {large:.4} for these sizes"),
            ));
        }
        out.user_exponent = if at_lo <= at_hi {
            bisect(&long, long_share, lo, hi)
        } else {
            bisect(&|a| -long(a), -long_share, lo, hi)
        };
        Ok(out)
    }

    /// The profile length of every user (deterministic: no randomness involved).
    ///
    /// Lengths follow a Lomax (shifted Pareto) law by quantile: user `u` of `N` has
    /// `n_u = clamp(round(m + λ · (p_u^(−1/α) − 1)), m, n_items / 2)` with
    /// `p_u = (u + ½) / N`, `m` = `min_per_user`, `α` = `user_exponent` (the tail index:
    /// `P(n ≥ L) = (1 + (L − m)/λ)^−α`), and `λ` found by bisection so that the lengths
    /// sum to `n_events` as closely as rounding and the clamps allow.
    pub fn profile_lengths(&self) -> Vec<u32> {
        let n = self.n_users as f64;
        let alpha = self.user_exponent.max(1e-3);
        let tails: Vec<f64> =
            (0..self.n_users).map(|u| ((u as f64 + 0.5) / n).powf(-1.0 / alpha) - 1.0).collect();
        let cap = (self.n_items / 2).max(1) as f64;
        let min = f64::from(self.min_per_user).min(cap);
        let lambda = lomax_scale(&tails, min, cap, self.n_events as f64);
        tails.iter().map(|&t| (min + lambda * t).round().clamp(min, cap) as u32).collect()
    }

    fn samplers(&self) -> (Cdf, Vec<Cdf>) {
        let weight = |i: usize| ((i + 1) as f64).powf(-self.item_exponent);
        let cdf = |items: Vec<u32>| {
            let mut acc = 0.0;
            let cumulative = items
                .iter()
                .map(|&i| {
                    acc += weight(i as usize);
                    acc
                })
                .collect();
            Cdf { items, cumulative }
        };
        let global = cdf((0..self.n_items as u32).collect());
        let clusters = (0..self.n_clusters)
            .map(|c| cdf((c..self.n_items).step_by(self.n_clusters).map(|i| i as u32).collect()))
            .collect();
        (global, clusters)
    }

    /// Calls `row(user, items, values)` for every user in order, items increasing; only
    /// one row is held at a time.
    fn for_each_row(&self, mut row: impl FnMut(u32, &[u32], &[f32]) -> Result<()>) -> Result<()> {
        self.validate()?;
        let (global, clusters) = self.samplers();
        let lengths = self.profile_lengths();
        let mut picked: Vec<(u32, f32)> = Vec::new();
        let mut items: Vec<u32> = Vec::new();
        let mut values: Vec<f32> = Vec::new();
        // Items already in the current row (cleared after each row): O(1) membership.
        let mut taken = vec![false; self.n_items];
        for (u, &n) in lengths.iter().enumerate() {
            // One independent stream per user: rows do not depend on each other.
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(self.seed ^ mix(u as u64)));
            let cluster = &clusters[u % self.n_clusters];
            picked.clear();
            let mut attempts = 0usize;
            while picked.len() < n as usize && attempts < 50 * n as usize {
                attempts += 1;
                let in_cluster = unit(&mut rng) < self.affinity;
                let item =
                    if in_cluster { cluster.sample(&mut rng) } else { global.sample(&mut rng) };
                if taken[item as usize] {
                    continue;
                }
                taken[item as usize] = true;
                let own = item as usize % self.n_clusters == u % self.n_clusters;
                let value = if !self.ratings {
                    1.0
                } else if own {
                    3.0 + (unit(&mut rng) * 3.0).floor().min(2.0) as f32
                } else {
                    1.0 + (unit(&mut rng) * 4.0).floor().min(3.0) as f32
                };
                picked.push((item, value));
            }
            // Rare: rejection ran out of attempts; fill with the most popular free items.
            let mut next = 0u32;
            while picked.len() < n as usize {
                if !taken[next as usize] {
                    taken[next as usize] = true;
                    picked.push((next, if self.ratings { 3.0 } else { 1.0 }));
                }
                next += 1;
            }
            for p in &picked {
                taken[p.0 as usize] = false;
            }
            picked.sort_unstable_by_key(|p| p.0);
            items.clear();
            values.clear();
            items.extend(picked.iter().map(|p| p.0));
            values.extend(picked.iter().map(|p| p.1));
            row(u as u32, &items, &values)?;
        }
        Ok(())
    }

    /// Generates the dataset in memory. Ids are `1..=n_users` and `1..=n_items`.
    ///
    /// # Errors
    /// Invalid parameters (see [`PowerLaw::validate`]).
    pub fn generate(&self) -> Result<Dataset> {
        let mut events = Vec::with_capacity(self.n_events as usize);
        self.for_each_row(|u, items, values| {
            events.extend(items.iter().zip(values).map(|(&i, &v)| Event::new(u, i, v)));
            Ok(())
        })?;
        let users = IdMap::from_ids_sorted((1..=self.n_users).map(|k| k.to_string()))?;
        let items = IdMap::from_ids_sorted((1..=self.n_items).map(|k| k.to_string()))?;
        let m =
            Interactions::from_events(self.n_users, self.n_items, events, DuplicatePolicy::Error)?;
        let feedback = if self.ratings {
            Feedback::Explicit { min: 1.0, max: 5.0 }
        } else {
            Feedback::Implicit
        };
        Dataset::new("synthetic-power-law", m, users, items, feedback)
    }

    /// Streams the dataset as `user<delimiter>item<delimiter>value` lines (ids 1-based),
    /// holding one user's row at a time, so any size fits in memory. Returns the number of
    /// events written.
    ///
    /// # Errors
    /// Invalid parameters, or a write error (reported with `label`).
    pub fn write_delimited(
        &self,
        out: &mut dyn Write,
        delimiter: &str,
        label: &str,
    ) -> Result<u64> {
        let mut written = 0u64;
        let io = |e: std::io::Error| DataError::io(std::path::Path::new(label), e);
        self.for_each_row(|u, items, values| {
            for (&i, &v) in items.iter().zip(values) {
                writeln!(out, "{}{delimiter}{}{delimiter}{}", u + 1, i + 1, v).map_err(io)?;
            }
            written += items.len() as u64;
            Ok(())
        })?;
        out.flush().map_err(io)?;
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignatov_matrix_has_four_blocks_of_ones() {
        let d = ignatov_blocks().unwrap();
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (20, 20, 100));
        for u in 0..20u32 {
            let b = u / 5;
            assert_eq!(d.interactions.user_items(u), &(5 * b..5 * b + 5).collect::<Vec<_>>()[..]);
        }
        assert!(block_diagonal(0, 5).is_err());
    }

    #[test]
    fn same_seed_same_data_other_seed_other_data() {
        let p = PowerLaw { ratings: true, ..PowerLaw::default() };
        let a = p.generate().unwrap();
        let b = p.generate().unwrap();
        assert_eq!(
            a.interactions.events().collect::<Vec<_>>(),
            b.interactions.events().collect::<Vec<_>>()
        );
        let c = PowerLaw { seed: 1, ..p.clone() }.generate().unwrap();
        assert_ne!(
            a.interactions.events().collect::<Vec<_>>(),
            c.interactions.events().collect::<Vec<_>>()
        );
        let mut text = Vec::new();
        let n = p.write_delimited(&mut text, "\t", "mem").unwrap();
        assert_eq!(n as usize, a.n_events());
        let parsed = crate::parse_delimited(
            &text,
            "mem",
            &crate::DelimitedFormat::new("\t").unwrap().fields(3),
        )
        .unwrap();
        assert_eq!(
            parsed.interactions.events().collect::<Vec<_>>(),
            a.interactions.events().collect::<Vec<_>>()
        );
    }

    #[test]
    fn lengths_follow_the_power_law_and_the_target() {
        let p = PowerLaw::default();
        let lengths = p.profile_lengths();
        assert!(lengths.windows(2).all(|w| w[0] >= w[1]));
        assert!(lengths[0] > 10 * lengths[999]);
        assert!(PowerLaw { user_exponent: 0.0, ..p }.generate().is_err());
        assert!(lengths.iter().all(|n| (2..=250).contains(n)));
        let total: u64 = lengths.iter().map(|&n| u64::from(n)).sum();
        assert!((total as f64 - 20_000.0).abs() / 20_000.0 < 0.01, "{total}");
    }

    #[test]
    fn clusters_carry_signal() {
        let d =
            PowerLaw { ratings: true, affinity: 0.8, ..PowerLaw::default() }.generate().unwrap();
        let (mut own, mut other) = (0usize, 0usize);
        for e in d.interactions.events() {
            if e.user as usize % 8 == e.item as usize % 8 { own += 1 } else { other += 1 }
        }
        // Random picks would be in-cluster 1/8 of the time; heavy users exhaust their
        // cluster's items, so the share stays below 0.8 + 0.2/8.
        let share = own as f64 / (own + other) as f64;
        assert!(share > 0.5, "{own} vs {other}");
        let mean = |same: bool| {
            let v: Vec<f32> = d
                .interactions
                .events()
                .filter(|e| (e.user as usize % 8 == e.item as usize % 8) == same)
                .map(|e| e.value)
                .collect();
            v.iter().sum::<f32>() / v.len() as f32
        };
        assert!(mean(true) > mean(false) + 1.0);
        assert!(d.interactions.events().all(|e| (1.0..=5.0).contains(&e.value)));
    }

    #[test]
    fn calibration_hits_the_newmovies_head_and_long_profile_share() {
        // NewMovies (Cremonesi et al.): 26,799 users x 771 items, 186,459 events, top 80
        // items hold 50%, 1,568 + 3,400 users with 10+ events.
        let base =
            PowerLaw { n_users: 26_799, n_items: 771, n_events: 186_459, ..PowerLaw::default() };
        let p = base.calibrated(80, 0.5, 10, (3_400.0 + 1_568.0) / 26_799.0).unwrap();
        assert!((head_share(771, 80, p.item_exponent) - 0.5).abs() < 1e-6);
        let lengths = p.profile_lengths();
        let long = lengths.iter().filter(|&&n| n >= 10).count() as f64 / lengths.len() as f64;
        assert!((long - 4_968.0 / 26_799.0).abs() < 0.01, "{long}");
        assert!(base.calibrated(0, 0.5, 10, 0.1).is_err());
        assert!(base.calibrated(80, 1.5, 10, 0.1).is_err());
    }

    #[test]
    fn invalid_parameters_are_errors() {
        for p in [
            PowerLaw { n_users: 0, ..PowerLaw::default() },
            PowerLaw { n_items: 1, ..PowerLaw::default() },
            PowerLaw { n_clusters: 0, ..PowerLaw::default() },
            PowerLaw { affinity: 1.5, ..PowerLaw::default() },
            PowerLaw { item_exponent: f64::NAN, ..PowerLaw::default() },
            PowerLaw { min_per_user: 400, ..PowerLaw::default() },
        ] {
            assert!(p.generate().is_err(), "{p:?}");
        }
    }
}
