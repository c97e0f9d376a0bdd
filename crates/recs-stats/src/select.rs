//! Exact order statistics of a stream of values that can be replayed, in memory that does
//! not grow with the stream's length.
//!
//! The bootstrap interval needs the order statistics of `B` resampled means, but keeping
//! all of them would make memory grow with `B`. The resamples come from seeded streams,
//! so they can be generated again, identically. Each pass over the stream sorts the values
//! still in question into [`BINS`] bins between bounds known to contain them (with each
//! bin's count, minimum and maximum) and keeps only the bin holding the wanted rank; once
//! that bin holds at most [`COLLECT`] values, one more pass collects and sorts them.
//! The bin index is a non-decreasing function of the value, so a bin is an interval of
//! values. From the second pass on, the histogram spans exactly the minimum and maximum
//! of the values in question, which land in the first and last bins, so the chosen bin
//! never holds both and every pass shrinks the set: the result is the order statistic a
//! full sort would give, in memory of `O(BINS)` per wanted rank. With `B ≤ COLLECT` one
//! pass suffices; larger streams took two in every case measured (up to a million
//! values).

/// Bins of a histogram pass.
pub(crate) const BINS: usize = 4_096;
/// The largest number of values collected and sorted in a final pass.
pub(crate) const COLLECT: usize = 4_096;

/// One narrowing of a search: the values whose bin in the histogram over `[lo, hi]` is
/// `bin`.
#[derive(Debug, Clone, Copy)]
struct Level {
    lo: f64,
    hi: f64,
    bin: usize,
}

/// The bin of `x` in a histogram of [`BINS`] bins over `[lo, hi]`: a non-decreasing
/// function of `x` (every step, subtraction, division by a positive number,
/// multiplication by a power of two and `floor`, is monotone), with `x ≤ lo` in bin 0
/// and `x ≥ hi` in the last bin.
fn bin_of(x: f64, lo: f64, hi: f64) -> usize {
    if x <= lo || hi <= lo {
        0
    } else if x >= hi {
        BINS - 1
    } else {
        let position = ((x - lo) / (hi - lo) * BINS as f64).floor();
        if position.is_nan() { 0 } else { (position as usize).min(BINS - 1) }
    }
}

/// The search for one rank (0-based, in ascending order).
#[derive(Debug, Clone)]
struct Search {
    rank: usize,
    /// Values ordered before every value still in question.
    below: usize,
    /// The narrowings so far: a value is in question when it passes all of them.
    levels: Vec<Level>,
    state: SearchState,
}

#[derive(Debug, Clone, Copy)]
enum SearchState {
    /// The next pass makes a histogram over `[lo, hi]`.
    Histogram { lo: f64, hi: f64 },
    /// The next pass collects the values in question.
    Collect,
    /// Found.
    Done(f64),
}

impl Search {
    fn in_question(&self, x: f64) -> bool {
        self.levels.iter().all(|l| bin_of(x, l.lo, l.hi) == l.bin)
    }
}

/// What one pass records for one search.
#[derive(Debug, Clone)]
pub(crate) enum Tally {
    /// Per bin: count, minimum, maximum.
    Histogram { lo: f64, hi: f64, count: Vec<usize>, min: Vec<f64>, max: Vec<f64> },
    /// The values in question.
    Values(Vec<f64>),
    /// Nothing to record (the search is over).
    Idle,
}

impl Tally {
    fn merge(self, other: Tally) -> Tally {
        match (self, other) {
            (
                Tally::Histogram { lo, hi, mut count, mut min, mut max },
                Tally::Histogram { count: c2, min: n2, max: x2, .. },
            ) => {
                for b in 0..BINS {
                    count[b] += c2[b];
                    min[b] = min[b].min(n2[b]);
                    max[b] = max[b].max(x2[b]);
                }
                Tally::Histogram { lo, hi, count, min, max }
            }
            (Tally::Values(mut v), Tally::Values(w)) => {
                v.extend(w);
                Tally::Values(v)
            }
            (t, _) => t,
        }
    }
}

/// The searches for several ranks of one stream of `total` values, advanced pass by pass.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    searches: Vec<Search>,
}

/// The tallies of one pass, one per search.
#[derive(Debug, Clone)]
pub(crate) struct PassTally(Vec<Tally>);

impl PassTally {
    /// Records one value of the stream.
    pub(crate) fn observe(&mut self, selection: &Selection, x: f64) {
        for (search, tally) in selection.searches.iter().zip(&mut self.0) {
            match tally {
                Tally::Idle => {}
                _ if !search.in_question(x) => {}
                Tally::Values(values) => values.push(x),
                Tally::Histogram { lo, hi, count, min, max } => {
                    let b = bin_of(x, *lo, *hi);
                    count[b] += 1;
                    min[b] = min[b].min(x);
                    max[b] = max[b].max(x);
                }
            }
        }
    }

    /// Combines the tallies of two parts of a pass (associative and commutative, up to
    /// the order of collected values, which are sorted before use).
    pub(crate) fn merge(self, other: PassTally) -> PassTally {
        PassTally(self.0.into_iter().zip(other.0).map(|(a, b)| a.merge(b)).collect())
    }
}

impl Selection {
    /// Searches for the values of rank `ranks` (0-based, each below `total`) among
    /// `total` values known to lie, up to rounding, in `[lo, hi]`.
    pub(crate) fn new(ranks: &[usize], total: usize, lo: f64, hi: f64) -> Self {
        let start =
            if total <= COLLECT { SearchState::Collect } else { SearchState::Histogram { lo, hi } };
        Self {
            searches: ranks
                .iter()
                .map(|&rank| Search { rank, below: 0, levels: Vec::new(), state: start })
                .collect(),
        }
    }

    /// Whether another pass is needed.
    pub(crate) fn pending(&self) -> bool {
        self.searches.iter().any(|s| !matches!(s.state, SearchState::Done(_)))
    }

    /// An empty tally for the next pass.
    pub(crate) fn tally(&self) -> PassTally {
        PassTally(
            self.searches
                .iter()
                .map(|s| match s.state {
                    SearchState::Histogram { lo, hi } => Tally::Histogram {
                        lo,
                        hi,
                        count: vec![0; BINS],
                        min: vec![f64::INFINITY; BINS],
                        max: vec![f64::NEG_INFINITY; BINS],
                    },
                    SearchState::Collect => Tally::Values(Vec::new()),
                    SearchState::Done(_) => Tally::Idle,
                })
                .collect(),
        )
    }

    /// Narrows every search with the tally of a complete pass.
    pub(crate) fn advance(&mut self, tally: PassTally) {
        for (search, tally) in self.searches.iter_mut().zip(tally.0) {
            match tally {
                Tally::Idle => {}
                Tally::Values(mut values) => {
                    values.sort_by(f64::total_cmp);
                    search.state = SearchState::Done(values[search.rank - search.below]);
                }
                Tally::Histogram { lo, hi, count, min, max } => {
                    let mut before = search.below;
                    let mut bin = 0;
                    while before + count[bin] <= search.rank {
                        before += count[bin];
                        bin += 1;
                    }
                    search.below = before;
                    search.state = if min[bin] == max[bin] {
                        SearchState::Done(min[bin])
                    } else {
                        search.levels.push(Level { lo, hi, bin });
                        if count[bin] <= COLLECT {
                            SearchState::Collect
                        } else {
                            SearchState::Histogram { lo: min[bin], hi: max[bin] }
                        }
                    };
                }
            }
        }
    }

    /// The values found, in the order of the ranks asked for.
    ///
    /// # Panics
    /// If a search is still pending (callers loop while [`Selection::pending`]).
    pub(crate) fn values(&self) -> Vec<f64> {
        self.searches
            .iter()
            .map(|s| match s.state {
                SearchState::Done(x) => x,
                _ => panic!("values() is called once no search is pending"),
            })
            .collect()
    }
}

/// The `q` quantile of sorted data by linear interpolation between order statistics:
/// with `h = (total − 1) q`, `x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌈h⌉₎ − x₍⌊h⌋₎)` (0-based ranks;
/// numpy's default). Returns the two ranks it needs and the weight of the upper one.
pub(crate) fn quantile_ranks(total: usize, q: f64) -> (usize, usize, f64) {
    let h = (total - 1) as f64 * q;
    let low = h.floor();
    (low as usize, h.ceil() as usize, h - low)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the selection on a replayable stream, as the bootstrap does.
    fn select(values: &[f64], ranks: &[usize]) -> (Vec<f64>, usize) {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut selection = Selection::new(ranks, values.len(), lo, hi);
        let mut passes = 0;
        while selection.pending() {
            // Two halves merged, as blocks are.
            let (left, right) = values.split_at(values.len() / 2);
            let mut a = selection.tally();
            left.iter().for_each(|&x| a.observe(&selection, x));
            let mut b = selection.tally();
            right.iter().for_each(|&x| b.observe(&selection, x));
            selection.advance(b.merge(a));
            passes += 1;
        }
        (selection.values(), passes)
    }

    fn sorted(values: &[f64]) -> Vec<f64> {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        v
    }

    #[test]
    fn finds_what_a_sort_finds() {
        // A skewed stream with ties: 50,000 values, far more than one collect pass.
        let values: Vec<f64> =
            (0..50_000u64).map(|i| ((i * 7_919) % 10_007) as f64 / 64.0).map(|x| x * x).collect();
        let ranks = [0, 1_249, 1_250, 25_000, 48_749, 48_750, 49_999];
        let (found, passes) = select(&values, &ranks);
        let reference = sorted(&values);
        assert_eq!(found, ranks.iter().map(|&r| reference[r]).collect::<Vec<_>>());
        assert!(passes >= 2, "{passes}");
    }

    #[test]
    fn handles_constant_and_outlying_streams() {
        let constant = vec![0.25; 10_000];
        assert_eq!(select(&constant, &[0, 9_999]).0, [0.25, 0.25]);
        // One huge outlier squeezes every other value into the first bin.
        let mut outlier: Vec<f64> = (0..20_000).map(|i| f64::from(i) * 1e-9).collect();
        outlier.push(1e300);
        let reference = sorted(&outlier);
        let ranks = [5, 19_999, 20_000];
        assert_eq!(select(&outlier, &ranks).0, ranks.map(|r| reference[r]));
    }

    #[test]
    fn small_streams_are_collected_in_one_pass() {
        let values = [3.0, 1.0, 2.0];
        assert_eq!(select(&values, &[0, 2]), (vec![1.0, 3.0], 1));
        assert_eq!(quantile_ranks(101, 0.025), (2, 3, 0.5));
        assert_eq!(quantile_ranks(5, 1.0), (4, 4, 0.0));
    }
}
