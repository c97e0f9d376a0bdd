//! Seeded random streams and the few sampling primitives the protocols need.
//!
//! Every stream is a [`Xoshiro256PlusPlus`] whose 256-bit state is derived from the
//! caller's seed and a *purpose path* (a purpose tag, the repetition, and for per-user
//! draws the user index) through SplitMix64. Adding a random step to one purpose therefore
//! never shifts the numbers drawn for another, and a user's draw does not depend on how
//! many users come before it.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Purpose tags: one per kind of random choice, so that streams never collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum Purpose {
    /// Which events go to the test part (holdout, k-fold over events).
    Events = 1,
    /// Per-user choice of held-out events (leave-k-out, given-n, given-L orders).
    UserEvents = 2,
    /// Assignment of users to folds or to the test set.
    Users = 3,
    /// Choice of hidden item columns (ignatov2010).
    HiddenItems = 4,
    /// Choice of cold-start test items (schein2005).
    ColdItems = 5,
    /// A validation split drawn inside a training set.
    Validation = 6,
    /// Sampled negative candidates of a user named by its index
    /// (`Split::sampled_judgments`).
    SampledNegatives = 7,
    /// Sampled negative candidates of a user named by its external id (`recs eval
    /// --candidates sampled:N`): its own tag, so that no id's stream is an index's.
    SampledNegativesOfId = 8,
}

use recs_core::splitmix64;

/// Folds a purpose path into one 64-bit word, each component mixed before the next.
fn mix(seed: u64, path: &[u64]) -> u64 {
    let mut state = seed;
    let mut acc = splitmix64(&mut state);
    for &part in path {
        state = acc ^ part.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        acc = splitmix64(&mut state);
    }
    acc
}

/// The stream for `seed` and the purpose path `(purpose, path...)`.
pub(crate) fn stream(seed: u64, purpose: Purpose, path: &[u64]) -> Xoshiro256PlusPlus {
    let mut full = Vec::with_capacity(path.len() + 1);
    full.push(purpose as u64);
    full.extend_from_slice(path);
    let mut state = mix(seed, &full);
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// A seed for a nested use (a validation split inside a training set), derived from
/// `seed` so that the nested draws are independent of the outer ones.
pub(crate) fn derived_seed(seed: u64, purpose: Purpose, path: &[u64]) -> u64 {
    let mut full = Vec::with_capacity(path.len() + 1);
    full.push(purpose as u64);
    full.extend_from_slice(path);
    mix(seed, &full)
}

/// A uniform integer in `0..n` without modulo bias (Lemire 2019, multiply and reject).
/// Returns 0 when `n == 0`.
pub(crate) fn below<R: Rng>(rng: &mut R, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let threshold = n.wrapping_neg() % n;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(n);
        if (product as u64) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

/// Shuffles `values` uniformly (Fisher–Yates, from the back).
pub(crate) fn shuffle<T, R: Rng>(rng: &mut R, values: &mut [T]) {
    for i in (1..values.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        values.swap(i, j);
    }
}

/// Moves a uniformly drawn `k`-subset of `values` to its front (partial Fisher–Yates)
/// and returns that prefix. `k` is clamped to `values.len()`.
pub(crate) fn choose_front<'a, T, R: Rng>(rng: &mut R, values: &'a mut [T], k: usize) -> &'a [T] {
    let n = values.len();
    let k = k.min(n);
    for i in 0..k {
        let j = i + below(rng, (n - i) as u64) as usize;
        values.swap(i, j);
    }
    &values[..k]
}

/// Draws `k` of the item indices `items` (see [`choose_front`]): the chosen ones in
/// increasing order, and a mask over `0..n_items` marking them.
pub(crate) fn choose_items<R: Rng>(
    rng: &mut R,
    items: &mut [u32],
    k: usize,
    n_items: usize,
) -> (Vec<u32>, Vec<bool>) {
    let mut chosen = choose_front(rng, items, k).to_vec();
    chosen.sort_unstable();
    let mut mask = vec![false; n_items];
    for &i in &chosen {
        mask[i as usize] = true;
    }
    (chosen, mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_purpose_and_path() {
        let a = stream(7, Purpose::Events, &[0]).next_u64();
        let b = stream(7, Purpose::Users, &[0]).next_u64();
        let c = stream(7, Purpose::Events, &[1]).next_u64();
        let d = stream(8, Purpose::Events, &[0]).next_u64();
        let again = stream(7, Purpose::Events, &[0]).next_u64();
        assert_eq!(a, again);
        assert!(a != b && a != c && a != d && b != c);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut rng = stream(1, Purpose::Events, &[]);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[below(&mut rng, 6) as usize] += 1;
        }
        // Each face expects 10,000; 5 standard deviations is about 460.
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
        assert_eq!(below(&mut rng, 0), 0);
        assert_eq!(below(&mut rng, 1), 0);
    }

    #[test]
    fn choose_front_returns_distinct_elements() {
        let mut rng = stream(3, Purpose::Users, &[]);
        let mut values: Vec<u32> = (0..20).collect();
        let chosen = choose_front(&mut rng, &mut values, 7).to_vec();
        let mut sorted = chosen.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 7);
        let mut all = values.clone();
        all.sort_unstable();
        assert_eq!(all, (0..20).collect::<Vec<_>>());
        assert_eq!(choose_front(&mut rng, &mut values, 50).len(), 20);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = stream(5, Purpose::Events, &[]);
        let mut values: Vec<u32> = (0..100).collect();
        shuffle(&mut rng, &mut values);
        assert_ne!(values, (0..100).collect::<Vec<_>>());
        values.sort_unstable();
        assert_eq!(values, (0..100).collect::<Vec<_>>());
    }
}
