//! Sampled candidates: each judged user's relevant items and `m` negatives drawn from the
//! items it neither knows nor finds relevant (the protocol of much of the literature,
//! RecBole's `uni100` and `pop100` among them). Whether that is wise is the question of
//! `recs-sampled`; this module only draws.

use rand_xoshiro::Xoshiro256PlusPlus;
use recs_core::{Judgments, RecsError, Result};
use serde::{Deserialize, Serialize};

use crate::judge::JudgmentOptions;
use crate::rng::{Purpose, below, stream};
use crate::split::Split;

/// How sampled negatives are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SampleBy {
    /// Every eligible item equally likely.
    #[default]
    Uniform,
    /// In proportion to the item's training events (an item without any is never drawn).
    Popularity,
}

impl SampleBy {
    /// The name configurations and the command line use: `uniform` or `popularity`.
    pub fn name(self) -> &'static str {
        match self {
            SampleBy::Uniform => "uniform",
            SampleBy::Popularity => "popularity",
        }
    }
}

impl std::fmt::Display for SampleBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for SampleBy {
    type Err = RecsError;

    /// Parses [`SampleBy::name`].
    ///
    /// ```
    /// use recs_split::SampleBy;
    /// assert_eq!("popularity".parse::<SampleBy>()?, SampleBy::Popularity);
    /// assert!("pop".parse::<SampleBy>().is_err());
    /// # Ok::<(), recs_core::RecsError>(())
    /// ```
    fn from_str(text: &str) -> Result<SampleBy> {
        [SampleBy::Uniform, SampleBy::Popularity]
            .into_iter()
            .find(|by| by.name() == text)
            .ok_or_else(|| RecsError::invalid_parameter("by", text, "`uniform` or `popularity`"))
    }
}

/// The sampled-candidates policy: `negatives` items per judged user, drawn without
/// replacement by `by`, seeded per user (so the draw of a user does not depend on which
/// other users are judged, in what order, or on how many threads draw).
///
/// The `m` negatives are shared by all of a user's relevant items; with one relevant item
/// per user (leave one out) that is the usual "1 + m candidates per test item". A user with
/// fewer than `m` eligible items gets all of them. Without replacement because a candidate
/// is judged once: a negative drawn twice would have to count twice in a rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NegativeSampling {
    /// Negatives per judged user.
    pub negatives: usize,
    /// Uniformly or by popularity.
    pub by: SampleBy,
    /// The seed every user's draw derives from.
    pub seed: u64,
}

/// The user a draw of negatives is for, which names the user's random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampledUser<'a> {
    /// A dense user index, as a [`Split`] numbers its users.
    Index(u32),
    /// An external user id, as files name users: the stream follows the id, so the user
    /// gets the same negatives however the users of a file are numbered (the order of its
    /// lines, the other users in it).
    Id(&'a str),
}

impl SampledUser<'_> {
    /// The user's stream of `seed`. An id is a path of its byte length and its bytes in
    /// little-endian words, so that two ids never share a path.
    fn stream(self, seed: u64) -> Xoshiro256PlusPlus {
        match self {
            SampledUser::Index(user) => stream(seed, Purpose::SampledNegatives, &[u64::from(user)]),
            SampledUser::Id(id) => {
                let bytes = id.as_bytes();
                let mut path = Vec::with_capacity(1 + bytes.len().div_ceil(8));
                path.push(bytes.len() as u64);
                path.extend(bytes.chunks(8).map(|chunk| {
                    let mut word = [0u8; 8];
                    word[..chunk.len()].copy_from_slice(chunk);
                    u64::from_le_bytes(word)
                }));
                stream(seed, Purpose::SampledNegativesOfId, &path)
            }
        }
    }
}

/// One user's sampled candidates ([`NegativeSampling::sample`]), in increasing item order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampledCandidates {
    /// The relevant items and the drawn negatives, ascending.
    pub items: Vec<u32>,
    /// Each item's grade, as the full candidate list gave it.
    pub grades: Vec<f32>,
    /// How many negatives were drawn: fewer than asked when the user has fewer eligible
    /// items (or, by popularity, fewer with training events).
    pub n_negatives: usize,
}

impl NegativeSampling {
    /// The warning about `n_short` draws (a user and a seed) that found fewer than
    /// `self.negatives` eligible items and took all there were; `None` when there are none.
    ///
    /// ```
    /// use recs_split::{NegativeSampling, SampleBy};
    /// let sampling = NegativeSampling { negatives: 100, by: SampleBy::Popularity, seed: 0 };
    /// let warning = sampling.short_draws_warning(3).unwrap();
    /// assert!(warning.starts_with("3 draws") && warning.contains("with training events"));
    /// assert_eq!(sampling.short_draws_warning(0), None);
    /// ```
    pub fn short_draws_warning(&self, n_short: usize) -> Option<String> {
        let eligible = match self.by {
            SampleBy::Uniform => "eligible items",
            SampleBy::Popularity => "eligible items with training events",
        };
        (n_short > 0).then(|| {
            format!(
                "{n_short} draws (a user and a seed) found fewer than {} {eligible}, and took \
                 all there were",
                self.negatives
            )
        })
    }

    /// One user's sampled candidates: out of its full candidate list (`items`, ascending,
    /// with their `grades`), every item whose grade `is_relevant`, and `self.negatives`
    /// of the others (the *eligible* items) drawn without replacement from `user`'s own
    /// stream of `self.seed`: uniformly (a partial Fisher–Yates shuffle of the eligible
    /// items in their given order), or by popularity (successive draws, each next item in
    /// proportion to its `popularity` among those left; an item of popularity 0 is never
    /// drawn). `popularity` is indexed by item and read only when drawing by popularity.
    ///
    /// This is the one definition of the draw: [`Split::sampled_judgments`] and `recs eval
    /// --candidates sampled:N` both call it.
    ///
    /// ```
    /// use recs_split::{NegativeSampling, SampleBy, SampledUser};
    /// let sampling = NegativeSampling { negatives: 2, by: SampleBy::Uniform, seed: 7 };
    /// let (items, grades) = ([0, 1, 2, 3, 4], [0.0, 1.0, 0.0, 0.0, 0.0]);
    /// let drawn = sampling.sample(SampledUser::Id("u1"), &items, &grades, |g| g > 0.0, &[]);
    /// assert_eq!(drawn.items.len(), 3);
    /// assert!(drawn.items.contains(&1));
    /// assert_eq!(drawn.n_negatives, 2);
    /// ```
    ///
    /// # Panics
    /// When drawing by popularity and an eligible item is not an index of `popularity`.
    pub fn sample(
        &self,
        user: SampledUser<'_>,
        items: &[u32],
        grades: &[f32],
        is_relevant: impl Fn(f32) -> bool,
        popularity: &[u32],
    ) -> SampledCandidates {
        if self.by == SampleBy::Uniform {
            return self.sample_uniformly(user, items, grades, is_relevant);
        }
        let eligible: Vec<u32> =
            items.iter().zip(grades).filter(|(_, g)| !is_relevant(**g)).map(|(&i, _)| i).collect();
        let drawn = draw_by_popularity(&eligible, popularity, self, user);
        let mut out = SampledCandidates {
            items: Vec::with_capacity(items.len() - eligible.len() + drawn.len()),
            grades: Vec::with_capacity(items.len() - eligible.len() + drawn.len()),
            n_negatives: drawn.len(),
        };
        // Both `items` and `drawn` ascend: one merge keeps the relevant items and the drawn
        // ones, in order, with their grades.
        let mut drawn = drawn.into_iter().peekable();
        for (&item, &grade) in items.iter().zip(grades) {
            let keep = if is_relevant(grade) {
                true
            } else if drawn.peek() == Some(&item) {
                drawn.next();
                true
            } else {
                false
            };
            if keep {
                out.items.push(item);
                out.grades.push(grade);
            }
        }
        out
    }
}

impl NegativeSampling {
    /// [`NegativeSampling::sample`]'s uniform draw, without listing the eligible items:
    /// the same partial Fisher–Yates shuffle of the same stream, on a pool that is read
    /// through (its `k`-th item found past the relevant positions) and written only where
    /// a swap moved an item, so a draw costs the negatives drawn and the relevant items,
    /// not the catalog. The draw is the listed shuffle's, item for item
    /// (`the_draws_of_a_seed_do_not_change`, `a_draw_read_through_equals_the_listed_shuffle`).
    fn sample_uniformly(
        &self,
        user: SampledUser<'_>,
        items: &[u32],
        grades: &[f32],
        is_relevant: impl Fn(f32) -> bool,
    ) -> SampledCandidates {
        let relevant: Vec<usize> = (0..items.len()).filter(|&p| is_relevant(grades[p])).collect();
        let n_eligible = items.len() - relevant.len();
        // The position in `items` of the k-th eligible item.
        let eligible_at = |k: usize| {
            let mut at = k;
            for &p in &relevant {
                if p > at {
                    break;
                }
                at += 1;
            }
            at
        };
        let k = self.negatives.min(n_eligible);
        let mut rng = user.stream(self.seed);
        let mut moved: std::collections::HashMap<usize, usize> =
            std::collections::HashMap::with_capacity(k);
        let mut chosen = Vec::with_capacity(k);
        for i in 0..k {
            let j = i + below(&mut rng, (n_eligible - i) as u64) as usize;
            let at = |slot: usize| moved.get(&slot).copied().unwrap_or_else(|| eligible_at(slot));
            let (from_i, from_j) = (at(i), at(j));
            // The swap of slots i and j: slot i is drawn and never read again.
            moved.insert(j, from_i);
            chosen.push(from_j);
        }
        chosen.sort_unstable();
        let mut out = SampledCandidates {
            items: Vec::with_capacity(relevant.len() + k),
            grades: Vec::with_capacity(relevant.len() + k),
            n_negatives: k,
        };
        // Relevant and drawn positions both ascend: one merge keeps them in order.
        let (mut r, mut c) = (0, 0);
        while r < relevant.len() || c < chosen.len() {
            let take_relevant =
                c == chosen.len() || (r < relevant.len() && relevant[r] < chosen[c]);
            let position = if take_relevant {
                r += 1;
                relevant[r - 1]
            } else {
                c += 1;
                chosen[c - 1]
            };
            out.items.push(items[position]);
            out.grades.push(grades[position]);
        }
        out
    }
}

impl Split {
    /// Judgments whose candidates are, for each user [`Split::judgments`] would judge under
    /// `options` (full catalog), its relevant items and `sampling.negatives` items drawn
    /// from its *eligible* ones: allowed, not known, not relevant. A test event that is not
    /// relevant (rated below the threshold) is eligible, as it is a negative of the full
    /// catalog. Users without a relevant item are not judged. Each user's draw is
    /// [`NegativeSampling::sample`] for [`SampledUser::Index`].
    ///
    /// # Errors
    /// As [`Split::judgments`]; [`RecsError::InvalidParameter`] for held-out-only
    /// candidates (nothing to sample) or zero negatives.
    pub fn sampled_judgments(
        &self,
        options: &JudgmentOptions,
        sampling: &NegativeSampling,
    ) -> Result<Judgments> {
        if options.candidates != crate::judge::CandidateSet::FullCatalog {
            return Err(RecsError::invalid_parameter(
                "candidates",
                "held-out only",
                "the full catalog to sample negatives from",
            ));
        }
        if sampling.negatives == 0 {
            return Err(RecsError::invalid_parameter("negatives", 0, "at least 1"));
        }
        let allowed_items = self.allowed_items(options)?;
        let popularity = match sampling.by {
            SampleBy::Uniform => Vec::new(),
            SampleBy::Popularity => self.train().item_counts(),
        };
        let mut builder = Judgments::builder(self.n_users(), self.n_items());
        let (mut candidates, mut candidate_grades) = (Vec::new(), Vec::new());
        // One user's full candidate list at a time: memory grows with the catalog, never
        // with users × items.
        for user in self.judged_users(options) {
            if !self.user_candidates(
                user,
                options,
                &allowed_items,
                &mut candidates,
                &mut candidate_grades,
            ) {
                continue;
            }
            let is_relevant = |grade: f32| grade > 0.0;
            if !candidate_grades.iter().any(|&g| is_relevant(g)) {
                continue;
            }
            let sampled = sampling.sample(
                SampledUser::Index(user),
                &candidates,
                &candidate_grades,
                is_relevant,
                &popularity,
            );
            builder.push_user(user, &sampled.items, &sampled.grades)?;
        }
        builder.build()
    }
}

impl Split {
    /// For each user [`Split::sampled_judgments`] judges under `options`, the number of its
    /// full-catalog candidates graded below `threshold`, as `(user, count)` ascending by
    /// user: the negatives a corrected sampled metric estimates over (its drawn negatives
    /// are among them). One user's candidate list at a time, as the draw.
    ///
    /// # Errors
    /// As [`Split::sampled_judgments`].
    pub fn catalog_negative_counts(
        &self,
        options: &JudgmentOptions,
        threshold: f32,
    ) -> Result<Vec<(u32, u64)>> {
        if options.candidates != crate::judge::CandidateSet::FullCatalog {
            return Err(RecsError::invalid_parameter(
                "candidates",
                "held-out only",
                "the full catalog to sample negatives from",
            ));
        }
        let allowed_items = self.allowed_items(options)?;
        let (mut candidates, mut grades) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for user in self.judged_users(options) {
            if self.user_candidates(user, options, &allowed_items, &mut candidates, &mut grades)
                && grades.iter().any(|&g| g > 0.0)
            {
                out.push((user, grades.iter().filter(|&&g| g < threshold).count() as u64));
            }
        }
        out.sort_unstable();
        Ok(out)
    }
}

/// `sampling.negatives` distinct items of `eligible` drawn by popularity (successive
/// weighted draws, each next item in proportion to its popularity among those left; an
/// item of popularity 0 is never drawn), in increasing order. The uniform draw is
/// [`NegativeSampling::sample_uniformly`].
fn draw_by_popularity(
    eligible: &[u32],
    popularity: &[u32],
    sampling: &NegativeSampling,
    user: SampledUser<'_>,
) -> Vec<u32> {
    let mut rng = user.stream(sampling.seed);
    let mut pool: Vec<(u32, f64)> = eligible
        .iter()
        .map(|&i| (i, f64::from(popularity[i as usize])))
        .filter(|&(_, w)| w > 0.0)
        .collect();
    let mut chosen = Vec::with_capacity(sampling.negatives.min(pool.len()));
    let mut total: f64 = pool.iter().map(|p| p.1).sum();
    while chosen.len() < sampling.negatives && !pool.is_empty() {
        // A uniform number in [0, total) from 53 random bits.
        let u = (below(&mut rng, 1 << 53) as f64) / (1u64 << 53) as f64 * total;
        let mut acc = 0.0;
        let mut at = pool.len() - 1;
        for (k, &(_, w)) in pool.iter().enumerate() {
            acc += w;
            if u < acc {
                at = k;
                break;
            }
        }
        let (item, w) = pool.swap_remove(at);
        total -= w;
        chosen.push(item);
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Interactions};

    /// 300 users; user u rated item u % 40 (test) and items 40..45 (training); 60 items.
    fn split() -> Split {
        let train: Vec<Event> = (0..300u32)
            .flat_map(|u| (40..45u32).map(move |i| Event::new(u, i, 1.0)))
            .chain((0..10u32).map(|u| Event::new(u, 50, 1.0)))
            .collect();
        let test: Vec<Event> = (0..300u32).map(|u| Event::new(u, u % 40, 1.0)).collect();
        let train = Interactions::from_events(300, 60, train, DuplicatePolicy::Error).unwrap();
        let test = Interactions::from_events(300, 60, test, DuplicatePolicy::Error).unwrap();
        Split::predefined(train, test).unwrap()
    }

    fn sampling(negatives: usize, by: SampleBy) -> NegativeSampling {
        NegativeSampling { negatives, by, seed: 7 }
    }

    #[test]
    fn each_user_gets_its_positive_and_m_eligible_negatives() {
        let j = split()
            .sampled_judgments(&JudgmentOptions::implicit(), &sampling(9, SampleBy::Uniform))
            .unwrap();
        assert_eq!(j.n_judged_users(), 300);
        for user in j.iter() {
            assert_eq!(user.items.len(), 10);
            let positives: Vec<u32> = user
                .items
                .iter()
                .zip(user.grades)
                .filter(|(_, g)| **g > 0.0)
                .map(|(i, _)| *i)
                .collect();
            assert_eq!(positives, [user.user % 40]);
            assert!(user.items.windows(2).all(|w| w[0] < w[1]));
            assert!(user.items.iter().all(|i| !(40..45).contains(i)), "no known item");
        }
        // The same seed draws the same sets, another seed others.
        let again = split()
            .sampled_judgments(&JudgmentOptions::implicit(), &sampling(9, SampleBy::Uniform))
            .unwrap();
        assert_eq!(j, again);
        let other = NegativeSampling { seed: 8, ..sampling(9, SampleBy::Uniform) };
        assert_ne!(j, split().sampled_judgments(&JudgmentOptions::implicit(), &other).unwrap());
    }

    #[test]
    fn popularity_draws_only_items_with_training_events() {
        let j = split()
            .sampled_judgments(&JudgmentOptions::implicit(), &sampling(3, SampleBy::Popularity))
            .unwrap();
        for user in j.iter() {
            let negatives: Vec<u32> = user
                .items
                .iter()
                .zip(user.grades)
                .filter(|(_, g)| **g == 0.0)
                .map(|(i, _)| *i)
                .collect();
            // Items 40..45 are known to everybody; item 50 is the one other item with
            // training events (users 0..10 know it), so it is the only negative there is.
            let want: &[u32] = if user.user < 10 { &[] } else { &[50] };
            assert_eq!(negatives, want, "user {}", user.user);
        }
    }

    #[test]
    fn a_user_with_few_eligible_items_gets_them_all_and_bad_options_are_refused() {
        let j = split()
            .sampled_judgments(&JudgmentOptions::implicit(), &sampling(500, SampleBy::Uniform))
            .unwrap();
        // 60 items − 5 known (6 for users 0..10) − 1 relevant + the relevant one.
        assert!(j.iter().all(|u| u.items.len() == if u.user < 10 { 54 } else { 55 }));
        assert!(
            split()
                .sampled_judgments(&JudgmentOptions::implicit(), &sampling(0, SampleBy::Uniform))
                .is_err()
        );
        assert!(
            split()
                .sampled_judgments(
                    &JudgmentOptions::conditional(4.0),
                    &sampling(5, SampleBy::Uniform)
                )
                .is_err()
        );
    }

    #[test]
    fn catalog_negatives_are_what_a_draw_of_every_item_holds() {
        let split = split();
        let options = JudgmentOptions::implicit();
        let counts = split.catalog_negative_counts(&options, 1.0).unwrap();
        // 60 items − 5 known (6 for users 0..10) − 1 relevant: every eligible item.
        let all = split.sampled_judgments(&options, &sampling(500, SampleBy::Uniform)).unwrap();
        let drawn: Vec<(u32, u64)> = all
            .iter()
            .map(|u| (u.user, u.grades.iter().filter(|&&g| g < 1.0).count() as u64))
            .collect();
        assert_eq!(counts, drawn);
        assert_eq!(counts[0], (0, 53));
        assert_eq!(counts[299], (299, 54));
        assert!(split.catalog_negative_counts(&JudgmentOptions::conditional(4.0), 1.0).is_err());
    }

    /// The rank of a relevant item among its sampled negatives follows the hypergeometric
    /// law of sampling without replacement: a chi-square test over 3,000 users whose
    /// relevant item has 20 of its 54 eligible items ranked above it (scores by item id).
    #[test]
    fn sampled_ranks_follow_the_hypergeometric_law() {
        let users = 3000u32;
        // Every user: relevant item 20, known items 55..60; eligible 0..55 without 20.
        let train: Vec<Event> =
            (0..users).flat_map(|u| (55..60u32).map(move |i| Event::new(u, i, 1.0))).collect();
        let test: Vec<Event> = (0..users).map(|u| Event::new(u, 20, 1.0)).collect();
        let train =
            Interactions::from_events(users as usize, 60, train, DuplicatePolicy::Error).unwrap();
        let test =
            Interactions::from_events(users as usize, 60, test, DuplicatePolicy::Error).unwrap();
        let split = Split::predefined(train, test).unwrap();
        let m = 5usize;
        let j = split
            .sampled_judgments(&JudgmentOptions::implicit(), &sampling(m, SampleBy::Uniform))
            .unwrap();
        // Items below 20 rank above it (a lower id is a higher score).
        let mut counts = vec![0f64; m + 1];
        for user in j.iter() {
            counts[user.items.iter().filter(|&&i| i < 20).count()] += 1.0;
        }
        // Hypergeometric: population 54, 20 above, 5 drawn.
        let choose = |n: u64, k: u64| (0..k).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64);
        let chi2: f64 = (0..=m as u64)
            .map(|k| {
                let expected = f64::from(users) * choose(20, k) * choose(34, 5 - k) / choose(54, 5);
                (counts[k as usize] - expected).powi(2) / expected
            })
            .sum();
        // Five degrees of freedom: P(χ² > 20.5) ≈ 0.001.
        assert!(chi2 < 20.5, "chi-square {chi2}: {counts:?}");
    }

    /// 200 users, 80 items, five training items per user (some shared, so popularity
    /// varies) and one test item each.
    fn varied_split() -> Split {
        let (users, n_items) = (200u32, 80u32);
        let train: Vec<Event> = (0..users)
            .flat_map(|u| {
                (0..5u32).map(move |k| Event::new(u, (u * 3 + k * k * 11) % n_items, 1.0))
            })
            .collect();
        let test: Vec<Event> =
            (0..users).map(|u| Event::new(u, (u * 3 + 1) % n_items, 1.0)).collect();
        let (n_users, n_items) = (users as usize, n_items as usize);
        let train =
            Interactions::from_events(n_users, n_items, train, DuplicatePolicy::KeepLast).unwrap();
        let test =
            Interactions::from_events(n_users, n_items, test, DuplicatePolicy::Error).unwrap();
        Split::predefined(train, test).unwrap()
    }

    /// The draws of a seed are part of every sampled result ever reported: they are pinned
    /// here (the first users' candidates, and a fingerprint of all of them), so that a
    /// change of the drawing code that moves any of them fails.
    #[test]
    fn a_draw_read_through_equals_the_listed_shuffle() {
        // The partial Fisher–Yates shuffle of every eligible item, listed.
        let listed_shuffle = |eligible: &[u32], sampling: &NegativeSampling, user: SampledUser| {
            let mut rng = user.stream(sampling.seed);
            let mut pool = eligible.to_vec();
            let k = sampling.negatives.min(pool.len());
            for i in 0..k {
                let j = i + below(&mut rng, (pool.len() - i) as u64) as usize;
                pool.swap(i, j);
            }
            pool.truncate(k);
            pool.sort_unstable();
            pool
        };
        let (items, grades): (Vec<u32>, Vec<f32>) =
            (0..300u32).map(|i| (i * 3 + 1, if i % 7 == 3 || i < 4 { 1.0 } else { 0.0 })).unzip();
        for negatives in [1, 5, 40, 290, 500] {
            for seed in 0..20 {
                let sampling = NegativeSampling { negatives, by: SampleBy::Uniform, seed };
                let eligible: Vec<u32> = items
                    .iter()
                    .zip(&grades)
                    .filter(|(_, g)| **g <= 0.0)
                    .map(|(&i, _)| i)
                    .collect();
                let user = SampledUser::Id("u");
                let listed = listed_shuffle(&eligible, &sampling, user);
                let read = sampling.sample(user, &items, &grades, |g| g > 0.0, &[]);
                let drawn: Vec<u32> = read
                    .items
                    .iter()
                    .zip(&read.grades)
                    .filter(|(_, g)| **g <= 0.0)
                    .map(|(&i, _)| i)
                    .collect();
                assert_eq!(drawn, listed, "{negatives} negatives, seed {seed}");
                assert_eq!(read.items.len(), listed.len() + items.len() - eligible.len());
                assert!(read.items.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }

    #[test]
    fn the_draws_of_a_seed_do_not_change() {
        let split = varied_split();
        let pinned = [
            (
                SampleBy::Uniform,
                0xde44_d681_35fe_1ffe_u64,
                [[1, 8, 10, 51, 62, 71, 72], [0, 2, 4, 5, 7, 76, 77], [3, 7, 8, 24, 40, 56, 61]],
            ),
            (
                SampleBy::Popularity,
                0xd1df_8bf9_dfa5_cbcd,
                [[1, 3, 9, 50, 58, 68, 69], [0, 1, 4, 73, 74, 75, 76], [2, 3, 7, 21, 40, 51, 55]],
            ),
        ];
        for (by, fingerprint, first) in pinned {
            let sampling = NegativeSampling { negatives: 6, by, seed: 11 };
            let j = split.sampled_judgments(&JudgmentOptions::implicit(), &sampling).unwrap();
            let mut hash = 0u64;
            for user in j.iter() {
                for (&item, &grade) in user.items.iter().zip(user.grades) {
                    let word = (u64::from(user.user) << 40)
                        ^ (u64::from(item) << 8)
                        ^ u64::from(grade.to_bits());
                    hash = recs_core::mix64(hash ^ word);
                }
            }
            let firsts: Vec<&[u32]> = j.iter().take(3).map(|u| u.items).collect();
            assert_eq!(firsts, first, "{by:?}");
            assert_eq!(hash, fingerprint, "{by:?}: {hash:#x}");
        }
    }

    /// A user named by its id draws from the id's stream: the same draw whatever else is
    /// around it, another draw for another id, and never an index's stream.
    #[test]
    fn a_draw_by_id_follows_the_id() {
        let items: Vec<u32> = (0..50).collect();
        let grades: Vec<f32> = items.iter().map(|&i| if i == 7 { 1.0 } else { 0.0 }).collect();
        let sampling = sampling(5, SampleBy::Uniform);
        let draw = |user| sampling.sample(user, &items, &grades, |g| g > 0.0, &[]);
        let a = draw(SampledUser::Id("user-a"));
        assert_eq!(a, draw(SampledUser::Id("user-a")));
        assert_eq!((a.items.len(), a.n_negatives), (6, 5));
        assert!(a.items.contains(&7) && a.items.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(a, draw(SampledUser::Id("user-b")));
        // Ids that differ only past their first word, or by trailing zero bytes, differ.
        assert_ne!(draw(SampledUser::Id("abcdefgh1")), draw(SampledUser::Id("abcdefgh2")));
        assert_ne!(draw(SampledUser::Id("0")), draw(SampledUser::Id("0\0")));
        assert_ne!(draw(SampledUser::Id("\0")), draw(SampledUser::Index(0)));
    }

    /// Drawing by popularity favours the popular items in proportion: over many users,
    /// one negative each out of items of popularity 1, 2 and 7.
    #[test]
    fn popularity_draws_in_proportion() {
        let (items, grades) = ([0u32, 1, 2, 3], [1.0f32, 0.0, 0.0, 0.0]);
        let popularity = [0u32, 1, 2, 7];
        let sampling = sampling(1, SampleBy::Popularity);
        let mut counts = [0f64; 4];
        let users = 10_000;
        for user in 0..users {
            let id = format!("u{user}");
            let drawn =
                sampling.sample(SampledUser::Id(&id), &items, &grades, |g| g > 0.0, &popularity);
            assert_eq!(drawn.items[0], 0, "the relevant item stays");
            counts[drawn.items[1] as usize] += 1.0;
        }
        let chi2: f64 = [(1, 0.1), (2, 0.2), (3, 0.7)]
            .iter()
            .map(|&(i, p)| (counts[i] - p * f64::from(users)).powi(2) / (p * f64::from(users)))
            .sum();
        // Two degrees of freedom: P(χ² > 13.8) ≈ 0.001.
        assert!(chi2 < 13.8, "chi-square {chi2}: {counts:?}");
    }
}
