//! The error type of the crate: every way an input can be unfit for a statistic, each
//! naming the argument and the value at fault.

use thiserror::Error;

/// Why a statistic could not be computed from its input.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum StatsError {
    /// Two series that hold one value per user have different lengths.
    #[error(
        "{which} has {found} values but {reference} has {expected}: \
         paired values need one value per user in each"
    )]
    UnequalLengths {
        /// The series whose length disagrees (`"b"`, `"system 3"`).
        which: String,
        /// Its length.
        found: usize,
        /// The series it is compared with (`"a"`, `"system 0"`).
        reference: String,
        /// The length of `reference`.
        expected: usize,
    },
    /// Fewer than two users: no spread, and no test, can be computed.
    #[error("{what} needs at least 2 users, found {found}")]
    TooFewUsers {
        /// The statistic that was asked for.
        what: &'static str,
        /// The number of users given.
        found: usize,
    },
    /// A value is `NaN` or infinite.
    #[error("{which}[{index}] is {value}: every value must be a finite number")]
    NonFinite {
        /// The series holding it (`"a"`, `"b"`, `"system 2"`).
        which: String,
        /// Its position (the user's index).
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// The difference of two finite values overflows to infinity.
    #[error("a[{index}] − b[{index}] overflows: the difference is not a finite number")]
    DifferenceOverflow {
        /// The user's index.
        index: usize,
    },
    /// A randomised statistic was asked for with zero random draws.
    #[error("{what} needs at least 1 {draws}, got 0")]
    NoDraws {
        /// The statistic that was asked for.
        what: &'static str,
        /// What is drawn (`"permutation"`, `"resample"`).
        draws: &'static str,
    },
    /// The randomised Tukey HSD was given fewer than two systems.
    #[error("the randomised Tukey HSD compares at least 2 systems, found {found}")]
    TooFewSystems {
        /// The number of systems given.
        found: usize,
    },
    /// A p-value to adjust is `NaN` or outside `[0, 1]`.
    #[error("p-value {index} is {value}: p-values must lie in [0, 1]")]
    InvalidPValue {
        /// Its position in the family.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// A confidence level is not strictly between 0 and 1.
    #[error("the confidence level {level} is not strictly between 0 and 1")]
    InvalidLevel {
        /// The level given.
        level: f64,
    },
    /// The exact Wilcoxon distribution was asked for too many non-zero differences.
    #[error(
        "the exact Wilcoxon distribution of {n} non-zero differences is too costly \
         (at most {max}); use the normal approximation"
    )]
    ExactTooLarge {
        /// The number of non-zero differences.
        n: usize,
        /// The largest number the exact distribution is computed for.
        max: usize,
    },
    /// A name that is not one of those known (a test, an adjustment).
    #[error("unknown {what} `{name}` (allowed: {allowed})")]
    UnknownName {
        /// What was named (`"test"`, `"adjustment"`).
        what: &'static str,
        /// The name given.
        name: String,
        /// The names known.
        allowed: &'static str,
    },
    /// Settings or inputs of a family of comparisons that cannot be used
    /// ([`family::compare`](crate::family::compare)): no test, a test twice, no draws, a
    /// level of significance outside `(0, 1)`, fewer than two systems.
    #[error("{reason}")]
    InvalidFamily {
        /// What is wrong, naming the setting.
        reason: String,
    },
    /// A statistic of one comparison of a family failed; the source says why.
    #[error("{metric}, {a} − {b}")]
    InComparison {
        /// The metric compared.
        metric: String,
        /// The first system of the pair.
        a: String,
        /// The second system of the pair.
        b: String,
        /// The error of the statistic.
        #[source]
        source: Box<StatsError>,
    },
    /// The randomised Tukey HSD of one metric of a family failed; the source says why.
    #[error("{metric}: the randomised Tukey HSD")]
    InTukeyHsd {
        /// The metric.
        metric: String,
        /// The error of the Tukey HSD.
        #[source]
        source: Box<StatsError>,
    },
    /// The statistic is not defined for this input.
    #[error("{what} is undefined: {reason}")]
    Undefined {
        /// The statistic that was asked for.
        what: &'static str,
        /// Why it has no value.
        reason: &'static str,
    },
}

/// The result type of the crate.
pub type Result<T> = std::result::Result<T, StatsError>;
