//! Bucketing and sorting of order-preserving `u32` score keys for the pooled ROC curve.
//!
//! Pairs (key, relevant) come from a [`Pairs`] source in parts. One parallel pass finds
//! the counts and the key range; the bucketing [`Digit`] is the highest bits in which keys
//! of that range differ; a second pass counts keys per part and bucket, and a third writes
//! every key straight to its final bucket in one array of positive and one of negative
//! keys. Buckets partition the key range in order, so each bucket — small enough to sit in
//! cache for all but very skewed inputs — is then summarised or sorted on its own, in
//! parallel. The bucketed arrays hold each bucket's keys in an order that depends on the
//! parts, but everything computed from them (sorted buckets, per-key counts) does not: no
//! result depends on the number of threads or on how the input was split.

use rayon::prelude::*;

/// Bits of the bucketing digit.
const DIGIT_BITS: u32 = 11;
/// Bits of each least-significant-digit pass when sorting a bucket.
const PASS_BITS: u32 = 11;
/// Below this many pairs everything goes into one bucket.
const SMALL: usize = 1 << 14;
/// Below this many keys a bucket is sorted by comparison.
const SMALL_SORT: usize = 192;

/// A digit of the keys, `(key >> shift) & mask`, non-decreasing in the key over the key
/// range it was made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Digit {
    shift: u32,
    mask: u32,
}

impl Digit {
    /// The single-bucket digit (every key in bucket 0).
    pub(crate) fn single() -> Digit {
        Digit { shift: 0, mask: 0 }
    }

    /// The digit made of the (at most [`DIGIT_BITS`]) highest bits in which keys between
    /// `min` and `max` can differ; the bits above are common to all such keys, so the
    /// digit is non-decreasing in the key.
    pub(crate) fn spanning(min: u32, max: u32) -> Digit {
        let varying = 32 - (min ^ max).leading_zeros();
        let bits = varying.min(DIGIT_BITS);
        Digit { shift: varying - bits, mask: (1u32 << bits) - 1 }
    }

    /// Number of buckets.
    pub(crate) fn n_buckets(self) -> usize {
        self.mask as usize + 1
    }

    /// The bucket of `key`.
    #[inline]
    pub(crate) fn of(self, key: u32) -> usize {
        ((key >> self.shift) & self.mask) as usize
    }
}

/// A source of (key, relevant) pairs in parts that can be visited in parallel. Visiting a
/// part must yield the same pairs every time.
pub(crate) trait Pairs: Sync {
    /// Number of parts.
    fn n_parts(&self) -> usize;
    /// Calls `f(key, relevant)` for every pair of part `part`.
    fn visit(&self, part: usize, f: impl FnMut(u32, bool));
}

/// How many parts `n` pairs are cut into: enough for every thread to get several, none
/// smaller than [`SMALL`] (the number never changes a result).
pub(crate) fn n_parts_for(n: usize) -> usize {
    (rayon::current_num_threads() * 4).clamp(1, (n / SMALL).max(1))
}

/// Positive and negative keys grouped by bucket: bucket `b` of the positives is
/// `positives[positive_bounds[b]..positive_bounds[b + 1]]`, and likewise for negatives;
/// every key of bucket `b` is below every key of bucket `b + 1`. Within a bucket the order
/// is unspecified until [`Bucketed::sort_buckets`].
#[derive(Debug)]
pub(crate) struct Bucketed {
    pub(crate) positives: Vec<u32>,
    pub(crate) negatives: Vec<u32>,
    positive_bounds: Vec<usize>,
    negative_bounds: Vec<usize>,
}

impl Bucketed {
    /// Mutable positives and negatives of every bucket, in bucket order.
    pub(crate) fn buckets_mut(&mut self) -> Vec<(&mut [u32], &mut [u32])> {
        let positives = split_by_bounds(&mut self.positives, &self.positive_bounds);
        let negatives = split_by_bounds(&mut self.negatives, &self.negative_bounds);
        positives.into_iter().zip(negatives).collect()
    }

    /// Mutable positives and negatives of bucket `b`.
    pub(crate) fn bucket_mut(&mut self, b: usize) -> (&mut [u32], &mut [u32]) {
        (
            &mut self.positives[self.positive_bounds[b]..self.positive_bounds[b + 1]],
            &mut self.negatives[self.negative_bounds[b]..self.negative_bounds[b + 1]],
        )
    }

    /// Sorts every bucket (in parallel), which sorts both arrays.
    pub(crate) fn sort_buckets(&mut self) {
        self.buckets_mut().into_par_iter().for_each_init(Vec::new, |scratch, (p, n)| {
            sort_keys(p, scratch);
            sort_keys(n, scratch);
        });
    }
}

fn split_by_bounds<'a>(mut values: &'a mut [u32], bounds: &[usize]) -> Vec<&'a mut [u32]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = values.split_at_mut(w[1] - w[0]);
        out.push(head);
        values = tail;
    }
    out
}

/// Per part: positives, negatives, smallest and largest key.
type PartSummary = (usize, usize, u32, u32);

/// Buckets the pairs of `pairs` (see the module documentation).
pub(crate) fn bucket_pairs(pairs: &impl Pairs) -> Bucketed {
    let parts = pairs.n_parts();
    let summaries: Vec<PartSummary> = (0..parts)
        .into_par_iter()
        .map(|i| {
            let (mut p, mut n, mut lo, mut hi) = (0, 0, u32::MAX, 0);
            pairs.visit(i, |key, relevant| {
                p += usize::from(relevant);
                n += usize::from(!relevant);
                lo = lo.min(key);
                hi = hi.max(key);
            });
            (p, n, lo, hi)
        })
        .collect();
    let n_pos: usize = summaries.iter().map(|s| s.0).sum();
    let n_neg: usize = summaries.iter().map(|s| s.1).sum();
    let lo = summaries.iter().map(|s| s.2).min().unwrap_or(u32::MAX);
    let hi = summaries.iter().map(|s| s.3).max().unwrap_or(0);
    let digit =
        if n_pos + n_neg < SMALL || lo > hi { Digit::single() } else { Digit::spanning(lo, hi) };
    let buckets = digit.n_buckets();
    // counts[part][relevant · buckets + bucket]
    let counts: Vec<Vec<usize>> = if buckets == 1 {
        summaries.iter().map(|s| vec![s.1, s.0]).collect()
    } else {
        (0..parts)
            .into_par_iter()
            .map(|i| {
                let mut count = vec![0usize; 2 * buckets];
                pairs.visit(i, |key, relevant| {
                    count[usize::from(relevant) * buckets + digit.of(key)] += 1;
                });
                count
            })
            .collect()
    };
    let bounds = |class: usize| {
        let mut bounds = vec![0usize; buckets + 1];
        for b in 0..buckets {
            bounds[b + 1] =
                bounds[b] + counts.iter().map(|c| c[class * buckets + b]).sum::<usize>();
        }
        bounds
    };
    let mut out = Bucketed {
        positives: vec![0u32; n_pos],
        negatives: vec![0u32; n_neg],
        positive_bounds: bounds(1),
        negative_bounds: bounds(0),
    };
    // Each part's slots: one slice per (class, bucket), disjoint across parts.
    let mut slots: Vec<Vec<&mut [u32]>> =
        (0..parts).map(|_| Vec::with_capacity(2 * buckets)).collect();
    for (class, array) in [&mut out.negatives, &mut out.positives].into_iter().enumerate() {
        let mut rest = array.as_mut_slice();
        for b in 0..buckets {
            for (part, count) in counts.iter().enumerate() {
                let (head, tail) = rest.split_at_mut(count[class * buckets + b]);
                slots[part].push(head);
                rest = tail;
            }
        }
    }
    slots.into_par_iter().enumerate().for_each(|(i, mut slots)| {
        let mut next = vec![0usize; 2 * buckets];
        pairs.visit(i, |key, relevant| {
            let slot = usize::from(relevant) * buckets + digit.of(key);
            slots[slot][next[slot]] = key;
            next[slot] += 1;
        });
    });
    out
}

/// Sorts `values` ascending: a least-significant-digit radix sort over the bits in which
/// the keys differ (a pass whose digit is constant is skipped); short slices by
/// comparison. `scratch` is reused storage.
pub(crate) fn sort_keys(values: &mut [u32], scratch: &mut Vec<u32>) {
    let n = values.len();
    if n < SMALL_SORT {
        values.sort_unstable();
        return;
    }
    let (lo, hi) = values.iter().fold((u32::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let bits = 32 - (lo ^ hi).leading_zeros();
    if bits == 0 {
        return;
    }
    let passes = bits.div_ceil(PASS_BITS);
    let width = bits.div_ceil(passes);
    let mask = (1u32 << width) - 1;
    scratch.clear();
    scratch.resize(n, 0);
    let mut count = vec![0usize; 1 << width];
    // `in_scratch`: the current order lives in `scratch` rather than `values`.
    let mut in_scratch = false;
    for pass in 0..passes {
        let shift = pass * width;
        let (src, dst): (&[u32], &mut [u32]) =
            if in_scratch { (scratch, values) } else { (values, scratch) };
        count.fill(0);
        for &v in src {
            count[((v >> shift) & mask) as usize] += 1;
        }
        if count[((src[0] >> shift) & mask) as usize] == n {
            continue;
        }
        let mut sum = 0;
        for c in count.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        for &v in src {
            let d = ((v >> shift) & mask) as usize;
            dst[count[d]] = v;
            count[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        values.copy_from_slice(scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    struct Flat(Vec<(u32, bool)>, usize);

    impl Pairs for Flat {
        fn n_parts(&self) -> usize {
            self.1
        }
        fn visit(&self, part: usize, mut f: impl FnMut(u32, bool)) {
            let len = self.0.len().div_ceil(self.1);
            for &(k, r) in self.0.iter().skip(part * len).take(len) {
                f(k, r);
            }
        }
    }

    #[test]
    fn digit_is_monotone_and_spans_the_range() {
        let d = Digit::spanning(0x8000_0000, 0xBF99_999A);
        assert_eq!(d.n_buckets(), 1 << DIGIT_BITS);
        assert_eq!(d.of(0x8000_0000), 0);
        assert_eq!(d.of(0xBFFF_FFFF), (1 << DIGIT_BITS) - 1);
        assert_eq!(Digit::spanning(7, 7).n_buckets(), 1);
        assert_eq!(Digit::spanning(4, 7), Digit { shift: 0, mask: 3 });
    }

    fn check(pairs: Vec<(u32, bool)>) {
        let mut positives: Vec<u32> = pairs.iter().filter(|p| p.1).map(|p| p.0).collect();
        let mut negatives: Vec<u32> = pairs.iter().filter(|p| !p.1).map(|p| p.0).collect();
        positives.sort_unstable();
        negatives.sort_unstable();
        let mut first = None;
        for parts in [1, 3, 8] {
            let mut b = bucket_pairs(&Flat(pairs.clone(), parts));
            // Buckets are ordered: the largest key of a bucket is below the smallest of the
            // next non-empty one.
            let mut last = None;
            for (p, n) in b.buckets_mut() {
                let lo = p.iter().chain(n.iter()).min().copied();
                let hi = p.iter().chain(n.iter()).max().copied();
                if let (Some(lo), Some(prev)) = (lo, last) {
                    assert!(prev < lo);
                }
                last = hi.or(last);
            }
            b.sort_buckets();
            assert_eq!(b.positives, positives);
            assert_eq!(b.negatives, negatives);
            let bounds = (b.positive_bounds.clone(), b.negative_bounds.clone());
            match &first {
                None => first = Some(bounds),
                Some(f) => assert_eq!(f, &bounds),
            }
        }
    }

    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn large_inputs_bucket_and_sort() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        // Full key range; a narrow range with one skewed bucket; many equal keys; the keys
        // of uniform scores in [0, 1).
        check((0..200_000).map(|_| (next() as u32, next().is_multiple_of(5))).collect());
        check(
            (0..200_000)
                .map(|_| (0x8000_0000 | (next() as u32 % 5000), next().is_multiple_of(2)))
                .collect(),
        );
        check(
            (0..100_000u32)
                .map(|i| {
                    (
                        if i.is_multiple_of(3) { 42 } else { 40 + (next() % 7) as u32 },
                        i.is_multiple_of(4),
                    )
                })
                .collect(),
        );
        check(
            (0..100_000)
                .map(|_| {
                    let score = (next() >> 40) as f32 / (1u64 << 24) as f32;
                    (crate::scored::score_key(score), next().is_multiple_of(3))
                })
                .collect(),
        );
        check((0..50_000).map(|_| (7, next().is_multiple_of(2))).collect());
    }

    proptest! {
        #[test]
        fn sort_keys_sorts(mut v in proptest::collection::vec(any::<u32>(), 0..2000)) {
            let mut expected = v.clone();
            expected.sort_unstable();
            sort_keys(&mut v, &mut Vec::new());
            prop_assert_eq!(v, expected);
        }

        #[test]
        fn small_pair_sets_bucket_and_sort(
            v in proptest::collection::vec((any::<u32>(), any::<bool>()), 0..600),
        ) {
            check(v);
        }
    }
}
