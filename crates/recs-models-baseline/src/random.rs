//! The seeded random recommender: the floor every model must clear.

use recs_core::{
    FoldInUser, NewItems, Recommender, Result, ScoreNewItems, Shape, TrainData, UserRow,
    check_items, check_score_args,
};

/// Stream constants: each purpose derives its own key from the seed, so the scores of
/// training items, of new items and of folded-in users never share random numbers.
const STREAM_TRAIN: u64 = 1;
const STREAM_NEW_ITEMS: u64 = 2;
const STREAM_FOLD_IN: u64 = 3;
const STREAM_FOLD_IN_USER: u64 = 4;

/// The splitmix64 finaliser (Steele, Lea & Flood 2014): a bijection of `u64` whose output
/// bits all depend on all input bits.
pub(crate) fn mix(z: u64) -> u64 {
    recs_core::splitmix64(&mut { z })
}

/// A uniform number in `[0, 1)` with 24 random bits (exactly representable in `f32`).
fn unit(hash: u64) -> f32 {
    (hash >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
}

fn stream_key(seed: u64, stream: u64) -> u64 {
    mix(mix(seed) ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93))
}

fn pair_score(key: u64, user: u64, item: u32) -> f32 {
    unit(mix(key ^ mix((user << 32) | u64::from(item))))
}

/// Parameters of [`Random`]. There is nothing to choose but the seed, which comes from
/// [`TrainData::seed`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RandomParams;

impl RandomParams {
    /// The random recommender (no parameters).
    pub fn new() -> Self {
        RandomParams
    }
}

impl recs_core::Fit for RandomParams {
    type Model = Random;

    fn fit(&self, data: &TrainData<'_>) -> Result<Random> {
        let interactions = data.interactions.require_events()?;
        Ok(Random {
            n_users: interactions.n_users(),
            n_items: interactions.n_items(),
            seed: data.seed,
        })
    }
}

/// Scores every (user, item) pair with an independent uniform number in `[0, 1)`.
///
/// The score is a hash of (seed, user, item) — a counter-based generator — rather than a
/// draw from a sequential stream, so it does not depend on which candidates are asked for,
/// in what order, or on how many threads ask: same seed ⇒ same scores. Scores have 24
/// random bits, so ties are rare but possible; tie-aware metrics handle them.
///
/// Capabilities: [`ScoreNewItems`] (random scores for items unseen in training, from a
/// separate stream; attributes are ignored) and [`FoldInUser`]: a folded-in user the
/// evaluation names ([`FoldInUser::score_history_of`]) gets independent random scores of
/// its own, as a random recommender gives every user; a bare history is keyed by its
/// items, so the same history gets the same scores. No rating prediction.
#[derive(Debug, Clone)]
pub struct Random {
    n_users: usize,
    n_items: usize,
    seed: u64,
}

impl Recommender for Random {
    fn shape(&self) -> Shape {
        Shape::new(self.n_users, self.n_items)
    }

    fn score(&self, user: u32, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_score_args(self.n_users, self.n_items, user, items, out)?;
        let key = stream_key(self.seed, STREAM_TRAIN);
        for (o, &item) in out.iter_mut().zip(items) {
            *o = pair_score(key, u64::from(user), item);
        }
        Ok(())
    }

    // Scores: uniform in `[0, 1)`, read as a probability: a random guess of it.
    recs_core::capabilities!(new_items, fold_in, scale(Probability));
}

impl ScoreNewItems for Random {
    fn score_new_items(&self, user: u32, items: NewItems<'_>, out: &mut [f32]) -> Result<()> {
        items.check_args(self.n_users, user, out)?;
        let key = stream_key(self.seed, STREAM_NEW_ITEMS);
        for (o, &item) in out.iter_mut().zip(items.rows()) {
            *o = pair_score(key, u64::from(user), item);
        }
        Ok(())
    }
}

impl FoldInUser for Random {
    fn score_history(&self, history: UserRow<'_>, items: &[u32], out: &mut [f32]) -> Result<()> {
        check_items(self.n_items, items, out)?;
        let key = stream_key(self.seed, STREAM_FOLD_IN);
        let user =
            history.items.iter().fold(mix(history.len() as u64), |h, &i| mix(h ^ u64::from(i)));
        for (o, &item) in out.iter_mut().zip(items) {
            *o = pair_score(key, user >> 32, item);
        }
        Ok(())
    }

    fn score_history_of(
        &self,
        user: u32,
        _history: UserRow<'_>,
        items: &[u32],
        out: &mut [f32],
    ) -> Result<()> {
        check_items(self.n_items, items, out)?;
        // Its own stream: a folded-in user never shares the numbers of the training user
        // with the same index, nor of a bare history.
        let key = stream_key(self.seed, STREAM_FOLD_IN_USER);
        for (o, &item) in out.iter_mut().zip(items) {
            *o = pair_score(key, u64::from(user), item);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use recs_core::{DuplicatePolicy, Event, Fit, Interactions, ItemAttributes};

    fn model(seed: u64) -> Random {
        let m = Interactions::from_events(3, 50, [Event::new(0, 0, 1.0)], DuplicatePolicy::Error)
            .unwrap();
        RandomParams::new().fit(&TrainData::new(&m, seed)).unwrap()
    }

    #[test]
    fn scores_are_uniform_in_unit_interval_and_seed_dependent() {
        let items: Vec<u32> = (0..50).collect();
        let (mut a, mut b) = (vec![0.0; 50], vec![0.0; 50]);
        model(1).score(2, &items, &mut a).unwrap();
        model(2).score(2, &items, &mut b).unwrap();
        assert!(a.iter().all(|&s| (0.0..1.0).contains(&s)));
        assert_ne!(a, b);
        let mean = a.iter().sum::<f32>() / 50.0;
        assert!((mean - 0.5).abs() < 0.15, "mean {mean}");
    }

    #[test]
    fn streams_differ_between_purposes() {
        let m = model(5);
        let items = [0u32, 1, 2];
        let mut train = [0.0; 3];
        m.score(0, &items, &mut train).unwrap();
        let vocabulary = recs_core::IdMap::from_ids_sorted(["x"]).unwrap();
        let attrs = ItemAttributes::from_pairs(3, vocabulary, []).unwrap();
        let mut new = [0.0; 3];
        m.score_new_items(0, NewItems::new(&attrs, &items).unwrap(), &mut new).unwrap();
        assert_ne!(train, new);
    }

    #[test]
    fn fold_in_depends_only_on_the_history() {
        let m = model(5);
        let history = UserRow { items: &[1, 4], values: &[1.0, 1.0], timestamps: None };
        let other = UserRow { items: &[1, 5], values: &[1.0, 1.0], timestamps: None };
        let (mut a, mut b, mut c) = ([0.0; 4], [0.0; 4], [0.0; 4]);
        m.score_history(history, &[0, 2, 3, 6], &mut a).unwrap();
        m.score_history(history, &[0, 2, 3, 6], &mut b).unwrap();
        m.score_history(other, &[0, 2, 3, 6], &mut c).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// Two named users with the same history get independent orders (the random
    /// recommender of a paper), and a user's scores do not change from call to call.
    #[test]
    fn named_folded_in_users_get_scores_of_their_own() {
        let m = model(5);
        let history = UserRow { items: &[1], values: &[1.0], timestamps: None };
        let items: Vec<u32> = (0..7).collect();
        let scores = |user: u32| {
            let mut out = [0.0f32; 7];
            m.score_history_of(user, history, &items, &mut out).unwrap();
            out
        };
        assert_eq!(scores(3), scores(3));
        assert_ne!(scores(3), scores(4));
        let mut bare = [0.0f32; 7];
        m.score_history(history, &items, &mut bare).unwrap();
        assert_ne!(scores(3), bare);
        let mut trained = [0.0f32; 7];
        m.score(2, &items, &mut trained).unwrap();
        assert_ne!(scores(2), trained, "its own stream");
        // Over many users with one history, the top item is spread evenly: 7 items, 7,000
        // users, about 1,000 each (a shared order would put all 7,000 on one item).
        let mut top = [0usize; 7];
        for user in 0..7000 {
            let s = scores(user);
            let best = (0..7).max_by(|&a, &b| s[a].total_cmp(&s[b])).unwrap();
            top[best] += 1;
        }
        assert!(top.iter().all(|&n| (850..1150).contains(&n)), "{top:?}");
    }
}
