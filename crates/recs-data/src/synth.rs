//! Seeded synthetic datasets: the block matrix of Ignatov et al. (2010) and a power-law
//! generator with latent cluster structure.

use std::io::Write;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{DuplicatePolicy, Event, IdMap, Interactions, RowsBuilder};

use crate::dataset::{Dataset, Feedback};
use crate::error::{DataError, Result};

/// The synthetic matrix of Ignatov et al. (2010, §5): 20 users × 20 items with four 5 × 5
/// blocks of ones — here on the diagonal (users `5b..5b+5` × items `5b..5b+5`). The paper
/// says "four rectangles 5×5 full of ones" and not where they lie. Any placement whose
/// rectangles share no row and no column is this matrix up to a permutation of users and
/// items; rectangles that overlap in rows or columns give other matrices (see
/// [`ignatov_blocks_overlapping`]). Ids are `1..=20`; feedback is implicit.
///
/// # Errors
/// None in practice (the core types accept this matrix).
pub fn ignatov_blocks() -> Result<Dataset> {
    block_diagonal(4, 5)
}

/// Another placement of the four 5 × 5 rectangles of ones in 20 users × 20 items:
/// rectangle `b` covers users `5b..5b+5` and items `3b..3b+5`, so neighbouring rectangles
/// share two item columns (items 15..20 stay empty). A user then has graded neighbours:
/// its four block-mates (identical rows) and the ten users of the neighbouring
/// rectangles, whose rows share two of its five items (a Pearson correlation of 0.2 over
/// the 20 columns; one shared column would give −0.05, which positive-similarity
/// neighbourhoods drop). The paper's words allow this matrix as well as the disjoint one;
/// the choice of the two shared columns is ours. Ids are `1..=20`; feedback is implicit.
///
/// # Errors
/// None in practice (the core types accept this matrix).
pub fn ignatov_blocks_overlapping() -> Result<Dataset> {
    rectangles("ignatov-blocks-overlapping", [20, 20], 5, &[(0, 0), (5, 3), (10, 6), (15, 9)])
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
    let corners: Vec<(usize, usize)> =
        (0..n_blocks).map(|b| (b * block_size, b * block_size)).collect();
    rectangles("ignatov-blocks", [n, n], block_size, &corners)
}

/// Dataset `name` of `n_users` × `n_items` with a `size` × `size` square of ones at each
/// `(user, item)` corner; a cell that two squares cover is one event.
fn rectangles(
    name: &str,
    [n_users, n_items]: [usize; 2],
    size: usize,
    corners: &[(usize, usize)],
) -> Result<Dataset> {
    let mut cells = std::collections::BTreeSet::new();
    for &(u0, i0) in corners {
        if u0 + size > n_users || i0 + size > n_items {
            return Err(DataError::invalid(
                "blocks",
                format!("a {size} x {size} square at ({u0}, {i0})"),
                format!("squares inside {n_users} x {n_items}"),
            ));
        }
        for u in u0..u0 + size {
            for i in i0..i0 + size {
                cells.insert((u as u32, i as u32));
            }
        }
    }
    let events: Vec<Event> = cells.into_iter().map(|(u, i)| Event::new(u, i, 1.0)).collect();
    let ids = |n: usize| IdMap::from_ids_sorted((1..=n).map(|k| k.to_string()));
    let m = Interactions::from_events(n_users, n_items, events, DuplicatePolicy::Error)?;
    Dataset::new(name, m, ids(n_users)?, ids(n_items)?, Feedback::Implicit)
}

/// A group of users whose profile lengths start at `lo` (see [`PowerLaw::user_groups`]):
/// exactly `n_users` users get a length from `lo` to the next group's `lo − 1`, or up to
/// the profile-length cap for the last group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserGroup {
    /// Smallest profile length of the group.
    pub lo: u32,
    /// Number of users in the group.
    pub n_users: usize,
}

/// Parameters of the power-law generator ([`PowerLaw::generate`]).
///
/// Model (ours):
/// - **Profile lengths** are deterministic (see [`PowerLaw::profile_lengths`]): without
///   `user_groups`, a Lomax law with tail index `user_exponent`; with `user_groups`, each
///   group holds exactly its number of users and lengths inside the groups follow a
///   discrete power law whose exponent makes them sum to `n_events`. Every length lies
///   between `min_per_user` and the cap `n_items / 2`; user 0 is the most active.
/// - **Item weights** `w_i ∝ (i + 1)^−b` (`b` = `item_exponent`): item 0 is the most
///   popular.
/// - **Clusters**: user `u` belongs to cluster `u mod K`, item `i` to `i mod K`
///   (`K` = `n_clusters`).
/// - **Picks**: a user's items are drawn one at a time, without replacement, from the
///   mixture `(1 − a)·w + a·w_c` (`a` = `affinity`; `w` normalised over all items, `w_c`
///   over the items of the user's cluster), restricted to the items the user does not
///   have yet; once the own cluster is exhausted, picks come from all items. With
///   ratings, in-cluster events rate 3–5 and others 1–4, so a model that finds the
///   clusters predicts better than popularity alone.
///
/// Drawing without replacement and re-weighting by cluster make the realised item
/// popularity flatter than `w`: heavy users take each popular item only once. So a head
/// target is matched by [`PowerLaw::calibrate_head`], which measures the head on the
/// generated rows themselves, not on `w`.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerLaw {
    /// Number of users.
    pub n_users: usize,
    /// Number of items.
    pub n_items: usize,
    /// Target number of events.
    pub n_events: u64,
    /// Tail index `α` of user activity (smaller: heavier tail); not used with
    /// `user_groups`.
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
    /// Profile-length groups to reproduce exactly, by increasing `lo`; empty: lengths
    /// follow `user_exponent`. Users counted in no group get lengths from `min_per_user`
    /// to the first group's `lo − 1`.
    pub user_groups: Vec<UserGroup>,
}

impl Default for PowerLaw {
    /// 1000 users, 500 items, 20,000 events, `α = 1.5`, `b = 1.0`, at least 2 events per
    /// user, 8 clusters, affinity 0.7, binary, seed 0, no groups (all ours).
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
            user_groups: Vec::new(),
        }
    }
}

/// A well-mixed 64-bit function of its input (one SplitMix64 step from it).
fn mix(z: u64) -> u64 {
    recs_core::splitmix64(&mut { z })
}

fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Stream `stream` of user `user`: rows do not depend on each other, and picks do not
/// depend on whether ratings are drawn.
fn user_rng(seed: u64, user: usize, stream: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix(seed ^ mix(2 * user as u64 + stream)))
}

/// Non-negative weights in a complete binary tree of partial sums: point updates and
/// inverse-CDF search in O(log n). Every inner node is recomputed as the sum of its two
/// children, never by subtraction, so putting a weight back restores the tree exactly and
/// tiny weights stay reachable once the large ones are taken.
struct SumTree {
    nodes: Vec<f64>,
    leaves: usize,
}

impl SumTree {
    fn new(weights: &[f64]) -> Self {
        let leaves = weights.len().next_power_of_two();
        let mut nodes = vec![0.0; 2 * leaves];
        nodes[leaves..leaves + weights.len()].copy_from_slice(weights);
        for k in (1..leaves).rev() {
            nodes[k] = nodes[2 * k] + nodes[2 * k + 1];
        }
        SumTree { nodes, leaves }
    }

    fn total(&self) -> f64 {
        self.nodes[1]
    }

    fn set(&mut self, index: usize, weight: f64) {
        let mut k = self.leaves + index;
        self.nodes[k] = weight;
        while k > 1 {
            k /= 2;
            self.nodes[k] = self.nodes[2 * k] + self.nodes[2 * k + 1];
        }
    }

    /// The index whose weight interval holds `x` (`0 <= x < total`). Never an index of
    /// weight 0 while the total is positive, whatever the rounding.
    fn find(&self, mut x: f64) -> usize {
        let mut k = 1;
        while k < self.leaves {
            let (left, right) = (self.nodes[2 * k], self.nodes[2 * k + 1]);
            if right == 0.0 || (left > 0.0 && x < left) {
                k *= 2;
            } else {
                x -= left;
                k = 2 * k + 1;
            }
        }
        k - self.leaves
    }
}

/// Draws rows without replacement from the popularity/cluster mixture.
struct Sampler {
    /// Weight `(i + 1)^−b` of every item, at least the smallest normal `f64`, so every
    /// item can be drawn.
    weights: Vec<f64>,
    global: SumTree,
    global_total: f64,
    /// One tree per cluster over its items `c, c + K, c + 2K, …`.
    clusters: Vec<SumTree>,
    cluster_totals: Vec<f64>,
    affinity: f64,
}

impl Sampler {
    fn new(p: &PowerLaw) -> Self {
        let weights: Vec<f64> = (0..p.n_items)
            .map(|i| ((i + 1) as f64).powf(-p.item_exponent).max(f64::MIN_POSITIVE))
            .collect();
        let k = p.n_clusters;
        let clusters: Vec<SumTree> = (0..k)
            .map(|c| {
                let members: Vec<f64> = weights[c..].iter().step_by(k).copied().collect();
                SumTree::new(&members)
            })
            .collect();
        let global = SumTree::new(&weights);
        Sampler {
            global_total: global.total(),
            global,
            cluster_totals: clusters.iter().map(SumTree::total).collect(),
            clusters,
            affinity: p.affinity,
            weights,
        }
    }

    /// Draws `n` distinct items (`n` below the number of items) for `user` into `row`,
    /// in draw order. Every draw takes two numbers from `rng`.
    fn draw_row(
        &mut self,
        user: usize,
        n: usize,
        rng: &mut Xoshiro256PlusPlus,
        row: &mut Vec<u32>,
    ) {
        let k = self.clusters.len();
        let c = user % k;
        let (global_all, own_all) = (self.global_total, self.cluster_totals[c]);
        row.clear();
        for _ in 0..n {
            let choice = unit(rng);
            let position = unit(rng);
            let (global_left, own_left) = (self.global.total(), self.clusters[c].total());
            let own = self.affinity * (own_left / own_all);
            let any = (1.0 - self.affinity) * (global_left / global_all);
            let from_own = own_left > 0.0 && (any == 0.0 || choice * (own + any) < own);
            let item = if from_own {
                c + self.clusters[c].find(position * own_left) * k
            } else {
                self.global.find(position * global_left)
            };
            self.global.set(item, 0.0);
            if item % k == c {
                self.clusters[c].set(item / k, 0.0);
            }
            row.push(item as u32);
        }
        for &item in row.iter() {
            let item = item as usize;
            self.global.set(item, self.weights[item]);
            if item % k == c {
                self.clusters[c].set(item / k, self.weights[item]);
            }
        }
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

/// Lengths of users in `ranges` (`(lo, hi, n_users)`, heaviest range first) under the
/// discrete law `P(n) ∝ max(n, 1)^−γ` on each range, by quantile, heaviest user first.
fn quantile_lengths(ranges: &[(u32, u32, usize)], gamma: f64, out: &mut Vec<u32>) {
    out.clear();
    let mut cdf: Vec<f64> = Vec::new();
    for &(lo, hi, count) in ranges {
        // Weights relative to the heaviest end, so no power overflows.
        let reference = f64::from(if gamma >= 0.0 { lo } else { hi }.max(1)).ln();
        cdf.clear();
        let mut acc = 0.0;
        for n in lo..=hi {
            acc += (-gamma * (f64::from(n.max(1)).ln() - reference)).exp();
            cdf.push(acc);
        }
        let start = out.len();
        let mut k = 0usize;
        for s in 0..count {
            let p = (s as f64 + 0.5) / count as f64 * acc;
            while k + 1 < cdf.len() && cdf[k] < p {
                k += 1;
            }
            out.push(lo + k as u32);
        }
        out[start..].reverse();
    }
}

/// Largest magnitude of the within-group exponent `γ` searched for.
const MAX_GROUP_EXPONENT: f64 = 50.0;
/// Largest item exponent `b` searched for by [`PowerLaw::calibrate_head`].
const MAX_ITEM_EXPONENT: f64 = 8.0;
/// Bisection steps of [`PowerLaw::calibrate_head`] (each simulates the rows once).
const HEAD_STEPS: usize = 30;
/// Events simulated per calibration step at most; larger datasets use a seeded subset
/// of users of about this many events.
const CALIBRATION_EVENTS: u64 = 2_000_000;

impl PowerLaw {
    /// Checks the parameters.
    ///
    /// # Errors
    /// Zero users, items or clusters; more clusters than items; non-finite or negative
    /// exponents; affinity outside `[0, 1]`; `min_per_user` above `n_items / 2`; groups not
    /// increasing, starting below `min_per_user`, starting above `n_items / 2`, counting
    /// more users than `n_users`, or leaving users with no length below the first group.
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
        if self.min_per_user > self.cap() {
            return Err(DataError::invalid(
                "min_per_user",
                self.min_per_user,
                "at most n_items / 2",
            ));
        }
        if let (Some(first), Some(last)) = (self.user_groups.first(), self.user_groups.last()) {
            let described = || {
                let parts: Vec<String> =
                    self.user_groups.iter().map(|g| format!("{}:{}", g.lo, g.n_users)).collect();
                parts.join(",")
            };
            let counted: usize = self.user_groups.iter().map(|g| g.n_users).sum();
            let increasing = self.user_groups.windows(2).all(|w| w[0].lo < w[1].lo);
            if !increasing || first.lo < self.min_per_user || last.lo > self.cap() {
                return Err(DataError::invalid(
                    "user_groups",
                    described(),
                    format!(
                        "strictly increasing lower bounds from min_per_user ({}) to n_items / 2 ({})",
                        self.min_per_user,
                        self.cap()
                    ),
                ));
            }
            if counted > self.n_users || (counted < self.n_users && first.lo == self.min_per_user) {
                return Err(DataError::invalid(
                    "user_groups",
                    described(),
                    format!(
                        "at most n_users ({}) users, all of them unless min_per_user is below \
                         the first group",
                        self.n_users
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Largest profile length: half the items.
    fn cap(&self) -> u32 {
        (self.n_items / 2).clamp(1, u32::MAX as usize) as u32
    }

    /// Parameters whose user exponent makes the share of users with at least `long_len`
    /// events equal `long_share` (by bisection on the deterministic profile lengths).
    /// Other fields come from `self`.
    ///
    /// # Errors
    /// Invalid parameters, `user_groups` given (groups fix the lengths themselves), or a
    /// share outside (0, 1) or out of reach for these sizes.
    pub fn calibrate_long_profiles(&self, long_len: u32, long_share: f64) -> Result<PowerLaw> {
        self.validate()?;
        if !self.user_groups.is_empty() {
            return Err(DataError::invalid(
                "user_groups",
                self.user_groups.len(),
                "no groups when calibrating the user exponent",
            ));
        }
        if !(long_share > 0.0 && long_share < 1.0) {
            return Err(DataError::invalid("long_share", long_share, "a share in (0, 1)"));
        }
        let long = |alpha: f64| {
            let lengths = PowerLaw { user_exponent: alpha, ..self.clone() }.lomax_lengths();
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
        // Bisection on a monotone function; `sign` makes it increasing.
        let sign = if at_lo <= at_hi { 1.0 } else { -1.0 };
        let (mut a, mut b) = (lo, hi);
        for _ in 0..60 {
            let mid = 0.5 * (a + b);
            if sign * long(mid) < sign * long_share { a = mid } else { b = mid }
        }
        Ok(PowerLaw { user_exponent: 0.5 * (a + b), ..self.clone() })
    }

    /// Parameters whose item exponent makes the `head_items` most popular items hold
    /// `head_share` of the generated events. Other fields come from `self`.
    ///
    /// The share is measured on the rows this generator produces for `self.seed` (all of
    /// them up to two million events, otherwise a seeded subset of users holding about
    /// that many), and `b` is found by bisection on it. So the head of the generated data
    /// matches the target for this seed, not only the head of the weights `w`, which
    /// drawing without replacement and cluster re-weighting would flatten. Calibrate the
    /// profile lengths first: the head depends on them.
    ///
    /// # Errors
    /// Invalid parameters, `head_items` not in `1..n_items`, a share outside (0, 1), or a
    /// share out of reach (below the share of the uniform law or above that of `b = 8`).
    pub fn calibrate_head(&self, head_items: usize, head_share: f64) -> Result<PowerLaw> {
        self.validate()?;
        if !(head_share > 0.0 && head_share < 1.0) || head_items == 0 || head_items >= self.n_items
        {
            return Err(DataError::invalid(
                "head",
                format!("{head_items} items, share {head_share}"),
                "0 < items < n_items, 0 < share < 1",
            ));
        }
        let lengths = self.profile_lengths()?;
        let users = self.calibration_users(&lengths);
        let share_at = |b: f64| {
            let mut counts =
                PowerLaw { item_exponent: b, ..self.clone() }.item_counts(&lengths, &users);
            counts.sort_unstable_by(|x, y| y.cmp(x));
            let total: u64 = counts.iter().sum();
            counts[..head_items].iter().sum::<u64>() as f64 / total.max(1) as f64
        };
        let (at_lo, at_hi) = (share_at(0.0), share_at(MAX_ITEM_EXPONENT));
        if !(at_lo < head_share && head_share <= at_hi) {
            return Err(DataError::invalid(
                "head",
                format!("{head_items} items, share {head_share}"),
                format!(
                    "a share above {at_lo:.4} and at most {at_hi:.4} for {head_items} items \
                     with these sizes"
                ),
            ));
        }
        let (mut lo, mut hi) = (0.0, MAX_ITEM_EXPONENT);
        for _ in 0..HEAD_STEPS {
            let mid = 0.5 * (lo + hi);
            if share_at(mid) < head_share { lo = mid } else { hi = mid }
        }
        Ok(PowerLaw { item_exponent: hi, ..self.clone() })
    }

    /// Users whose rows a calibration step simulates, increasing.
    fn calibration_users(&self, lengths: &[u32]) -> Vec<u32> {
        let total: u64 = lengths.iter().map(|&n| u64::from(n)).sum();
        let stride = total.div_ceil(CALIBRATION_EVENTS).max(1);
        (0..lengths.len() as u32)
            .filter(|&u| stride == 1 || mix(!self.seed ^ mix(u64::from(u))).is_multiple_of(stride))
            .collect()
    }

    /// Events per item in the rows of `users`, exactly as [`PowerLaw::generate`] draws
    /// them.
    fn item_counts(&self, lengths: &[u32], users: &[u32]) -> Vec<u64> {
        let mut sampler = Sampler::new(self);
        let mut counts = vec![0u64; self.n_items];
        let mut row = Vec::new();
        for &u in users {
            let u = u as usize;
            let mut rng = user_rng(self.seed, u, 0);
            sampler.draw_row(u, lengths[u] as usize, &mut rng, &mut row);
            for &i in &row {
                counts[i as usize] += 1;
            }
        }
        counts
    }

    /// The profile length of every user, most active first (deterministic: no randomness
    /// involved). Cap `c = n_items / 2`, minimum `m` = `min_per_user`.
    ///
    /// Without `user_groups`, lengths follow a Lomax (shifted Pareto) law by quantile:
    /// user `u` of `N` has `n_u = clamp(round(m + λ · (p_u^(−1/α) − 1)), m, c)` with
    /// `p_u = (u + ½) / N`, `α` = `user_exponent` (the tail index:
    /// `P(n ≥ L) = (1 + (L − m)/λ)^−α`), and `λ` found by bisection so that the lengths
    /// sum to `n_events` as closely as rounding and the clamps allow.
    ///
    /// With `user_groups`, group `j` gets exactly its `n_users` users with lengths in
    /// `[lo_j, lo_{j+1} − 1]` (the last group up to `c`; users in no group get
    /// `[m, lo_0 − 1]`), placed by quantile of the discrete law `P(n) ∝ n^−γ` restricted to
    /// the group's range, one `γ` for all groups found by bisection so that the lengths sum
    /// to `n_events` as closely as the quantiles allow.
    ///
    /// # Errors
    /// Invalid parameters; with groups, an `n_events` no `γ` in `[−50, 50]` reaches.
    pub fn profile_lengths(&self) -> Result<Vec<u32>> {
        self.validate()?;
        if self.user_groups.is_empty() { Ok(self.lomax_lengths()) } else { self.group_lengths() }
    }

    fn lomax_lengths(&self) -> Vec<u32> {
        let n = self.n_users as f64;
        let alpha = self.user_exponent.max(1e-3);
        let tails: Vec<f64> =
            (0..self.n_users).map(|u| ((u as f64 + 0.5) / n).powf(-1.0 / alpha) - 1.0).collect();
        let cap = f64::from(self.cap());
        let min = f64::from(self.min_per_user).min(cap);
        let lambda = lomax_scale(&tails, min, cap, self.n_events as f64);
        tails.iter().map(|&t| (min + lambda * t).round().clamp(min, cap) as u32).collect()
    }

    fn group_lengths(&self) -> Result<Vec<u32>> {
        let groups = &self.user_groups;
        let mut ranges: Vec<(u32, u32, usize)> = Vec::with_capacity(groups.len() + 1);
        for (k, g) in groups.iter().enumerate().rev() {
            let hi = groups.get(k + 1).map_or(self.cap(), |next| next.lo - 1);
            ranges.push((g.lo, hi, g.n_users));
        }
        let counted: usize = groups.iter().map(|g| g.n_users).sum();
        if counted < self.n_users {
            ranges.push((self.min_per_user, groups[0].lo - 1, self.n_users - counted));
        }
        let mut lengths = Vec::with_capacity(self.n_users);
        let total = |gamma: f64, lengths: &mut Vec<u32>| {
            quantile_lengths(&ranges, gamma, lengths);
            lengths.iter().map(|&n| u64::from(n)).sum::<u64>()
        };
        let target = self.n_events;
        let (most, least) =
            (total(-MAX_GROUP_EXPONENT, &mut lengths), total(MAX_GROUP_EXPONENT, &mut lengths));
        if !(least..=most).contains(&target) {
            return Err(DataError::invalid(
                "n_events",
                target,
                format!("between {least} and {most} for these groups"),
            ));
        }
        // The total decreases with γ.
        let (mut lo, mut hi) = (-MAX_GROUP_EXPONENT, MAX_GROUP_EXPONENT);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if total(mid, &mut lengths) > target { lo = mid } else { hi = mid }
        }
        let (above, below) = (total(lo, &mut lengths), total(hi, &mut lengths));
        let gamma = if above - target < target - below { lo } else { hi };
        total(gamma, &mut lengths);
        Ok(lengths)
    }

    /// Calls `row(user, items, values)` for every user in order, items increasing; only
    /// one row is held at a time.
    fn for_each_row(
        &self,
        lengths: &[u32],
        mut row: impl FnMut(u32, &[u32], &[f32]) -> Result<()>,
    ) -> Result<()> {
        let mut sampler = Sampler::new(self);
        let mut drawn: Vec<u32> = Vec::new();
        let mut picked: Vec<(u32, f32)> = Vec::new();
        let mut items: Vec<u32> = Vec::new();
        let mut values: Vec<f32> = Vec::new();
        let k = self.n_clusters;
        for (u, &n) in lengths.iter().enumerate() {
            let mut rng = user_rng(self.seed, u, 0);
            sampler.draw_row(u, n as usize, &mut rng, &mut drawn);
            picked.clear();
            if self.ratings {
                let mut rng = user_rng(self.seed, u, 1);
                picked.extend(drawn.iter().map(|&item| {
                    let value = if item as usize % k == u % k {
                        3.0 + (unit(&mut rng) * 3.0).floor().min(2.0) as f32
                    } else {
                        1.0 + (unit(&mut rng) * 4.0).floor().min(3.0) as f32
                    };
                    (item, value)
                }));
            } else {
                picked.extend(drawn.iter().map(|&item| (item, 1.0)));
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
    /// Invalid parameters (see [`PowerLaw::validate`] and [`PowerLaw::profile_lengths`]).
    pub fn generate(&self) -> Result<Dataset> {
        let lengths = self.profile_lengths()?;
        let n_events: u64 = lengths.iter().map(|&n| u64::from(n)).sum();
        // Rows come user by user, so the CSR arrays are filled directly: the final matrix
        // is all that is held, whatever the number of events.
        let mut rows = RowsBuilder::new(self.n_users, self.n_items)?;
        rows.reserve(usize::try_from(n_events).unwrap_or(0));
        self.for_each_row(&lengths, |u, items, values| Ok(rows.push_row(u, items, values)?))?;
        let users = IdMap::from_ids_sorted((1..=self.n_users).map(|k| k.to_string()))?;
        let items = IdMap::from_ids_sorted((1..=self.n_items).map(|k| k.to_string()))?;
        let m = rows.build()?;
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
        let lengths = self.profile_lengths()?;
        let mut written = 0u64;
        let io = |e: std::io::Error| DataError::io(std::path::Path::new(label), e);
        self.for_each_row(&lengths, |u, items, values| {
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
    fn overlapping_blocks_share_two_columns_with_their_neighbours() {
        let d = ignatov_blocks_overlapping().unwrap();
        assert_eq!(d.name, "ignatov-blocks-overlapping");
        assert_eq!((d.n_users(), d.n_items(), d.n_events()), (20, 20, 100));
        for u in 0..20u32 {
            let b = u / 5;
            assert_eq!(d.interactions.user_items(u), &(3 * b..3 * b + 5).collect::<Vec<_>>()[..]);
        }
        let rated: usize = d.interactions.item_counts().iter().filter(|&&c| c > 0).count();
        assert_eq!(rated, 14);
        // Items 3 and 4 lie in the first two rectangles: ten users each.
        assert_eq!(&d.interactions.item_counts()[..6], &[5, 5, 5, 10, 10, 5]);
        assert!(rectangles("t", [4, 4], 3, &[(2, 0)]).is_err());
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
        let lengths = p.profile_lengths().unwrap();
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
    fn sum_tree_finds_like_a_linear_scan_and_restores_exactly() {
        let weights = [3.0, 0.5, 5.0, 1.0, 7.0, 2.0, 9.0, 4.0, 4.0, 1.0, 6.0];
        let mut tree = SumTree::new(&weights);
        let fresh = tree.nodes.clone();
        let mut current = weights;
        let scan = |w: &[f64], x: f64| {
            let mut acc = 0.0;
            w.iter().position(|&v| {
                acc += v;
                acc > x
            })
        };
        for removed in [None, Some(4), Some(0), Some(10)] {
            if let Some(k) = removed {
                tree.set(k, 0.0);
                current[k] = 0.0;
            }
            assert_eq!(tree.total(), current.iter().sum::<f64>());
            for step in 0..(4.0 * tree.total()) as usize {
                let x = step as f64 * 0.25;
                assert_eq!(Some(tree.find(x)), scan(&current, x), "x = {x}");
            }
        }
        for k in [4, 0, 10] {
            tree.set(k, weights[k]);
        }
        assert_eq!(tree.nodes, fresh);
        // A weight far below the rounding of the total is found once the rest is gone.
        let mut tree = SumTree::new(&[1.0, 1e-300, 1.0]);
        assert_eq!(tree.total(), 2.0);
        tree.set(0, 0.0);
        tree.set(2, 0.0);
        assert_eq!(tree.find(0.0), 1);
        assert_eq!(tree.find(0.999 * tree.total()), 1);
    }

    #[test]
    fn rows_are_distinct_items_even_when_the_own_cluster_runs_out() {
        // Affinity 1 with 2 items per cluster: rows of 10 must leave the cluster.
        let p = PowerLaw {
            n_users: 50,
            n_items: 20,
            n_events: 400,
            n_clusters: 10,
            affinity: 1.0,
            min_per_user: 10,
            ..PowerLaw::default()
        };
        let d = p.generate().unwrap();
        assert_eq!(d.n_events(), 500);
        for u in 0..50 {
            let items = d.interactions.user_items(u);
            assert_eq!(items.len(), 10);
            // The two items of the own cluster come first in the draw, so both are there.
            let own = u as usize % 10;
            assert!(items.contains(&(own as u32)) && items.contains(&(own as u32 + 10)));
        }
        // A steep law and rows of half the catalogue: items far down keep being drawn.
        let steep = PowerLaw {
            n_users: 4,
            n_items: 1000,
            n_events: 2000,
            item_exponent: 8.0,
            min_per_user: 500,
            ..PowerLaw::default()
        };
        let d = steep.generate().unwrap();
        assert!((0..4).all(|u| d.interactions.user_items(u).len() == 500));
    }

    #[test]
    fn groups_get_their_users_and_the_lengths_their_total() {
        let p = PowerLaw {
            n_users: 1000,
            n_items: 400,
            n_events: 9_000,
            min_per_user: 1,
            user_groups: vec![
                UserGroup { lo: 2, n_users: 700 },
                UserGroup { lo: 10, n_users: 200 },
                UserGroup { lo: 30, n_users: 95 },
            ],
            ..PowerLaw::default()
        };
        let lengths = p.profile_lengths().unwrap();
        assert!(lengths.windows(2).all(|w| w[0] >= w[1]));
        let count = |lo: u32, hi: u32| lengths.iter().filter(|&&n| (lo..=hi).contains(&n)).count();
        assert_eq!((count(1, 1), count(2, 9), count(10, 29), count(30, 200)), (5, 700, 200, 95));
        let total: u64 = lengths.iter().map(|&n| u64::from(n)).sum();
        assert!(total.abs_diff(9_000) <= 10, "{total}");
        // Out of reach: every user at the cap still holds fewer events.
        assert!(PowerLaw { n_events: 500_000, ..p.clone() }.profile_lengths().is_err());
        let groups = |g: &[(u32, usize)]| PowerLaw {
            user_groups: g.iter().map(|&(lo, n_users)| UserGroup { lo, n_users }).collect(),
            ..p.clone()
        };
        assert!(groups(&[(10, 10), (2, 10)]).validate().is_err());
        assert!(groups(&[(2, 2000)]).validate().is_err());
        assert!(groups(&[(2, 10), (300, 10)]).validate().is_err());
        assert!(PowerLaw { min_per_user: 2, ..groups(&[(2, 10)]) }.validate().is_err());
        assert!(groups(&[(2, 10)]).calibrate_long_profiles(10, 0.2).is_err());
    }

    #[test]
    fn long_profile_calibration_hits_its_share() {
        // A tenth of NewMovies: 497 of 2,680 users with 10 or more events.
        let base =
            PowerLaw { n_users: 2_680, n_items: 771, n_events: 18_646, ..PowerLaw::default() };
        let p = base.calibrate_long_profiles(10, 497.0 / 2_680.0).unwrap();
        let lengths = p.profile_lengths().unwrap();
        let long = lengths.iter().filter(|&&n| n >= 10).count() as f64 / lengths.len() as f64;
        assert!((long - 497.0 / 2_680.0).abs() < 0.01, "{long}");
        assert!(base.calibrate_long_profiles(10, 1.5).is_err());
    }

    /// NewMovies (Cremonesi et al. 2008) at a tenth of its users and events, the full
    /// catalogue of 771 items: top 80 items hold 50% of events; users [2..9] / [10..19] /
    /// [20..] are 81.38% / 12.69% / 5.85% of users.
    fn newmovies_tenth() -> PowerLaw {
        PowerLaw {
            n_users: 2_680,
            n_items: 771,
            n_events: 18_646,
            min_per_user: 1,
            user_groups: vec![
                UserGroup { lo: 2, n_users: 2_181 },
                UserGroup { lo: 10, n_users: 340 },
                UserGroup { lo: 20, n_users: 157 },
            ],
            seed: 11,
            ..PowerLaw::default()
        }
    }

    /// Head size and user share of the groups `[2..9]`, `[10..19]`, `[20..]`.
    fn head_and_groups(d: &Dataset) -> (usize, Vec<f64>) {
        let head = crate::popularity_head(&d.interactions, 0.5).unwrap().n_items;
        let groups = crate::profile_groups(&d.interactions, &[2, 10, 20]).unwrap();
        (head, groups.iter().map(|g| g.n_users as f64 / d.n_users() as f64).collect())
    }

    #[test]
    fn calibrated_generator_matches_the_newmovies_head_and_groups() {
        let base = newmovies_tenth();
        // Choosing b on the weights alone (the top 80 weights hold half the total) leaves
        // the generated head far wider than 80 items: draws without replacement flatten it.
        let weight_share = |b: f64| {
            let w: Vec<f64> = (1..=771).map(|i| f64::from(i).powf(-b)).collect();
            w[..80].iter().sum::<f64>() / w.iter().sum::<f64>()
        };
        let (mut lo, mut hi) = (0.0, 4.0);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if weight_share(mid) < 0.5 { lo = mid } else { hi = mid }
        }
        let by_weights = PowerLaw { item_exponent: hi, ..base.clone() }.generate().unwrap();
        let (head, _) = head_and_groups(&by_weights);
        assert!(head > 96, "{head}");
        let p = base.calibrate_head(80, 0.5).unwrap();
        assert_eq!(p, base.calibrate_head(80, 0.5).unwrap());
        let d = p.generate().unwrap();
        let (head, shares) = head_and_groups(&d);
        // Head within 5% of 80 items, group shares within 2 points.
        assert!(head.abs_diff(80) <= 4, "head {head}");
        let targets = [2_181.0 / 2_680.0, 340.0 / 2_680.0, 157.0 / 2_680.0];
        for (got, want) in shares.iter().zip(targets) {
            assert!((got - want).abs() < 0.02, "{shares:?}");
        }
        assert!(d.n_events().abs_diff(18_646) < 187, "{}", d.n_events());
        // Other seeds with the same exponent land near the target too.
        for seed in [1, 2] {
            let (head, _) = head_and_groups(&PowerLaw { seed, ..p.clone() }.generate().unwrap());
            assert!(head.abs_diff(80) <= 8, "seed {seed}: head {head}");
        }
        assert!(base.calibrate_head(0, 0.5).is_err());
        assert!(base.calibrate_head(80, 1.5).is_err());
        // 770 of 771 items always hold more than 0.01% of events.
        assert!(base.calibrate_head(770, 0.0001).is_err());
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
