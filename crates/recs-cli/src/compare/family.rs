//! The options of `recs compare` that shape the family of comparisons, as clap reads
//! them, mapped onto `recs_stats::family`, which computes the family: which pairs, the
//! tests, the adjustment over the family and which run is better all live there, shared
//! with the Python package's `recs.compare`.

use recs_stats::Adjustment;
use recs_stats::family;

/// A paired test, as `--tests` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Test {
    /// Student's paired t-test.
    #[value(alias = "student")]
    T,
    /// The Wilcoxon signed-rank test (scipy's `method="auto"`).
    Wilcoxon,
    /// The sign test (exact binomial).
    Sign,
    /// Fisher's randomisation test (sign-flip permutations, --permutations).
    #[value(alias = "randomisation", alias = "permutation")]
    Fisher,
    /// The paired bootstrap (shift-method p-value, percentile interval, --resamples).
    Bootstrap,
}

impl From<Test> for family::Test {
    fn from(test: Test) -> Self {
        match test {
            Test::T => family::Test::T,
            Test::Wilcoxon => family::Test::Wilcoxon,
            Test::Sign => family::Test::Sign,
            Test::Fisher => family::Test::Fisher,
            Test::Bootstrap => family::Test::Bootstrap,
        }
    }
}

/// A multiple-comparison adjustment, as `--adjust` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Adjust {
    /// Holm's step-down method (family-wise error rate).
    Holm,
    /// Bonferroni (family-wise error rate).
    Bonferroni,
    /// Benjamini–Hochberg (false discovery rate).
    Bh,
    /// No adjustment.
    None,
}

impl Adjust {
    /// The adjustment `recs-stats` applies (`None`: the p-values as they are).
    pub(crate) fn adjustment(self) -> Option<Adjustment> {
        match self {
            Adjust::Holm => Some(Adjustment::Holm),
            Adjust::Bonferroni => Some(Adjustment::Bonferroni),
            Adjust::Bh => Some(Adjustment::BenjaminiHochberg),
            Adjust::None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn flags_name_what_recs_stats_names() {
        for test in Test::value_variants() {
            let flag = test.to_possible_value().unwrap();
            assert_eq!(flag.get_name(), family::Test::from(*test).key());
        }
        for adjust in Adjust::value_variants() {
            let flag = adjust.to_possible_value().unwrap();
            assert_eq!(flag.get_name(), family::adjustment_key(adjust.adjustment()));
        }
    }
}
