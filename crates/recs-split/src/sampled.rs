//! Sampled candidates: each judged user's relevant items and `m` negatives drawn from the
//! items it neither knows nor finds relevant (the protocol of much of the literature,
//! RecBole's `uni100` and `pop100` among them). Whether that is wise is the question of
//! `recs-sampled`; this module only draws.

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

impl Split {
    /// Judgments whose candidates are, for each user [`Split::judgments`] would judge under
    /// `options` (full catalog), its relevant items and `sampling.negatives` items drawn
    /// from its *eligible* ones: allowed, not known, not relevant. A test event that is not
    /// relevant (rated below the threshold) is eligible, as it is a negative of the full
    /// catalog. Users without a relevant item are not judged.
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
        let weights: Vec<f64> = match sampling.by {
            SampleBy::Uniform => Vec::new(),
            SampleBy::Popularity => self.train().item_counts().into_iter().map(f64::from).collect(),
        };
        let mut builder = Judgments::builder(self.n_users(), self.n_items());
        let (mut candidates, mut candidate_grades) = (Vec::new(), Vec::new());
        let (mut items, mut grades) = (Vec::new(), Vec::new());
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
            let relevant: Vec<(u32, f32)> = candidates
                .iter()
                .zip(&candidate_grades)
                .filter(|(_, g)| **g > 0.0)
                .map(|(&i, &g)| (i, g))
                .collect();
            if relevant.is_empty() {
                continue;
            }
            let eligible: Vec<u32> = candidates
                .iter()
                .zip(&candidate_grades)
                .filter(|(_, g)| **g <= 0.0)
                .map(|(&i, _)| i)
                .collect();
            let drawn = draw(&eligible, &weights, sampling, user);
            items.clear();
            grades.clear();
            let mut negatives = drawn.into_iter().peekable();
            for (item, grade) in relevant {
                while let Some(&n) = negatives.peek().filter(|&&n| n < item) {
                    items.push(n);
                    grades.push(0.0);
                    negatives.next();
                }
                items.push(item);
                grades.push(grade);
            }
            for n in negatives {
                items.push(n);
                grades.push(0.0);
            }
            builder.push_user(user, &items, &grades)?;
        }
        builder.build()
    }
}

/// `sampling.negatives` distinct items of `eligible` (sorted), in increasing order: a
/// partial Fisher–Yates shuffle for the uniform draw, successive weighted draws for the
/// popularity one (each next item in proportion to its weight among those left).
fn draw(eligible: &[u32], weights: &[f64], sampling: &NegativeSampling, user: u32) -> Vec<u32> {
    let mut rng = stream(sampling.seed, Purpose::SampledNegatives, &[u64::from(user)]);
    let mut chosen: Vec<u32> = match sampling.by {
        SampleBy::Uniform => {
            let mut pool = eligible.to_vec();
            let k = sampling.negatives.min(pool.len());
            for i in 0..k {
                let j = i + below(&mut rng, (pool.len() - i) as u64) as usize;
                pool.swap(i, j);
            }
            pool.truncate(k);
            pool
        }
        SampleBy::Popularity => {
            let mut pool: Vec<(u32, f64)> = eligible
                .iter()
                .map(|&i| (i, weights[i as usize]))
                .filter(|&(_, w)| w > 0.0)
                .collect();
            let mut out = Vec::with_capacity(sampling.negatives.min(pool.len()));
            let mut total: f64 = pool.iter().map(|p| p.1).sum();
            while out.len() < sampling.negatives && !pool.is_empty() {
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
                out.push(item);
            }
            out
        }
    };
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
}
