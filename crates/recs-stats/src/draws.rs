//! Random streams of the randomised statistics, identical at any thread count.
//!
//! Draws are split into blocks of [`BLOCK`] permutations or resamples; block `k` of seed
//! `s` draws from its own Xoshiro256++ generator, whose 256-bit state is
//! `(m(s), m(s ⊕ c₁), m(k), m(k ⊕ c₂))` with `m` recs-core's SplitMix64 finaliser (a bijection of
//! `u64`, so distinct `(s, k)` give distinct states). A statistic adds up integer counts
//! (or merges exact minima and maxima) over blocks, so the result depends on the seed
//! alone, whichever thread ran which block and in whatever order.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use recs_core::mix64;

/// Permutations or resamples per block.
pub(crate) const BLOCK: usize = 256;

/// Bounded integers and random bits from one block's generator.
pub(crate) struct Draws {
    rng: Xoshiro256PlusPlus,
    /// The unused upper half of the last 64-bit output, if any.
    spare: Option<u32>,
}

impl Draws {
    /// The generator of block `block` of `seed`.
    pub(crate) fn for_block(seed: u64, block: u64) -> Self {
        const C1: u64 = 0x9E37_79B9_7F4A_7C15;
        const C2: u64 = 0xD1B5_4A32_D192_ED03;
        let words = [mix64(seed), mix64(seed ^ C1), mix64(block), mix64(block ^ C2)];
        let mut state = [0u8; 32];
        for (chunk, word) in state.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        Self { rng: Xoshiro256PlusPlus::from_seed(state), spare: None }
    }

    /// 64 random bits.
    pub(crate) fn bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn next_u32(&mut self) -> u32 {
        match self.spare.take() {
            Some(x) => x,
            None => {
                let x = self.rng.next_u64();
                self.spare = Some((x >> 32) as u32);
                x as u32
            }
        }
    }

    /// A uniform integer in `0..range` (`range ≥ 1`), exactly uniform: Lemire's
    /// multiply-and-reject method on 32-bit draws (two per generator output), or on
    /// 64-bit draws when `range` does not fit 32 bits.
    pub(crate) fn below(&mut self, range: usize) -> usize {
        if let Ok(small) = u32::try_from(range) {
            let mut product = u64::from(self.next_u32()) * u64::from(small);
            if (product as u32) < small {
                let threshold = small.wrapping_neg() % small;
                while (product as u32) < threshold {
                    product = u64::from(self.next_u32()) * u64::from(small);
                }
            }
            (product >> 32) as usize
        } else {
            let range = range as u64;
            let mut product = u128::from(self.rng.next_u64()) * u128::from(range);
            if (product as u64) < range {
                let threshold = range.wrapping_neg() % range;
                while (product as u64) < threshold {
                    product = u128::from(self.rng.next_u64()) * u128::from(range);
                }
            }
            (product >> 64) as usize
        }
    }
}

/// Uniform permutations of `k` items drawn a few 64-bit outputs at a time.
///
/// Fisher–Yates needs one index in `0..i + 1` for `i = k − 1, …, 1`. Ranges are grouped
/// into batches whose product `P` is at most 2⁴⁰, and each batch is drawn from one
/// 64-bit output `x` by Lemire's method on the range `P`: the indices are the
/// mixed-radix digits of `⌊xP / 2⁶⁴⌋`, read off by successive 128-bit products, and `x`
/// is drawn again while `xP mod 2⁶⁴ < 2⁶⁴ mod P` (Brackett-Rozinsky & Lemire 2024,
/// "Batched ranged random integer generation"). Exactly uniform; 20 items need two
/// outputs instead of nineteen bounded draws.
pub(crate) struct ShufflePlan {
    /// Per batch: its ranges, in Fisher–Yates order, and their product.
    batches: Vec<(Vec<u64>, u64)>,
}

impl ShufflePlan {
    /// The plan for permutations of `k` items.
    pub(crate) fn new(k: usize) -> Self {
        const LIMIT: u64 = 1 << 40;
        let mut batches: Vec<(Vec<u64>, u64)> = Vec::new();
        for range in (2..=k as u64).rev() {
            match batches.last_mut() {
                Some((ranges, product)) if product.saturating_mul(range) <= LIMIT => {
                    ranges.push(range);
                    *product *= range;
                }
                _ => batches.push((vec![range], range)),
            }
        }
        Self { batches }
    }

    /// Shuffles `items` (of the plan's length) uniformly at random.
    pub(crate) fn shuffle(&self, items: &mut [f64], draws: &mut Draws) {
        let mut i = items.len();
        for (ranges, product) in &self.batches {
            let mut x = draws.bits();
            loop {
                let low = x.wrapping_mul(*product);
                if low >= *product || low >= product.wrapping_neg() % product {
                    break;
                }
                x = draws.bits();
            }
            let mut rest = x;
            let mut digits = [0usize; 64];
            for (digit, &range) in digits.iter_mut().zip(ranges) {
                let wide = u128::from(rest) * u128::from(range);
                rest = wide as u64;
                *digit = (wide >> 64) as usize;
            }
            for &digit in &digits[..ranges.len()] {
                i -= 1;
                items.swap(i, digit);
            }
        }
    }
}

/// Runs `draws` draws in blocks of [`BLOCK`], in parallel: `per_block(tally, draws,
/// count)` adds one block of `count` draws to a tally started by `identity`, and the
/// tallies of the threads are combined with `merge`, which must be associative and
/// commutative (integer counts, exact minima and maxima) so that the result does not
/// depend on the schedule. Tallies are per thread, not per block: memory does not grow
/// with `draws`.
pub(crate) fn over_blocks<T, I, F, M>(
    seed: u64,
    draws: usize,
    identity: I,
    per_block: F,
    merge: M,
) -> T
where
    T: Send,
    I: Fn() -> T + Sync + Send,
    F: Fn(&mut T, &mut Draws, usize) + Sync + Send,
    M: Fn(T, T) -> T + Sync + Send,
{
    let n_blocks = draws.div_ceil(BLOCK);
    (0..n_blocks)
        .into_par_iter()
        .fold(&identity, |mut tally, block| {
            let count = BLOCK.min(draws - block * BLOCK);
            per_block(&mut tally, &mut Draws::for_block(seed, block as u64), count);
            tally
        })
        .reduce(&identity, &merge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_seed_and_block_and_repeat() {
        let first = |seed, block| Draws::for_block(seed, block).bits();
        assert_eq!(first(7, 3), first(7, 3));
        assert_ne!(first(7, 3), first(7, 4));
        assert_ne!(first(7, 3), first(8, 3));
    }

    #[test]
    fn bounded_draws_are_in_range_and_roughly_uniform() {
        let mut draws = Draws::for_block(1, 0);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[draws.below(6)] += 1;
        }
        // Each count is Binomial(60000, 1/6): mean 10000, sd 91.
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
        assert_eq!(draws.below(1), 0);
        let big = 1usize << 40;
        assert!((0..100).all(|_| draws.below(big) < big));
    }

    #[test]
    fn shuffles_are_uniform_permutations() {
        let plan = ShufflePlan::new(20);
        assert_eq!(plan.batches.len(), 2, "20 × 19 × … × 2 = 20! fits two batches of 2⁴⁰");
        let mut draws = Draws::for_block(4, 0);
        let mut items: Vec<f64> = (0..20).map(f64::from).collect();
        plan.shuffle(&mut items, &mut draws);
        let mut sorted = items.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted, (0..20).map(f64::from).collect::<Vec<_>>());
        // All 6 orders of 3 items, each with probability 1/6.
        let plan = ShufflePlan::new(3);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..60_000 {
            let mut items = [0.0, 1.0, 2.0];
            plan.shuffle(&mut items, &mut draws);
            *counts.entry(items.map(|x| x as u8)).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), 6);
        assert!(counts.values().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
        // Where each item lands, for 20 items: uniform over the 20 places.
        let plan = ShufflePlan::new(20);
        let mut places = [[0usize; 20]; 20];
        for _ in 0..20_000 {
            let mut items: Vec<f64> = (0..20).map(f64::from).collect();
            plan.shuffle(&mut items, &mut draws);
            for (place, item) in items.iter().enumerate() {
                places[*item as usize][place] += 1;
            }
        }
        // Each count is Binomial(20000, 1/20): mean 1000, sd 31.
        assert!(places.iter().flatten().all(|&c| (850..1_150).contains(&c)));
    }

    #[test]
    fn blocks_cover_every_draw_once() {
        let total = over_blocks(5, 1_000, || 0, |t, _, count| *t += count, |a, b| a + b);
        assert_eq!(total, 1_000);
        let blocks = over_blocks(5, 1_000, || 0usize, |t, _, _| *t += 1, |a, b| a + b);
        assert_eq!(blocks, 4);
    }
}
