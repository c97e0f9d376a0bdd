//! The paper's recall and precision (ignatov2010 §4), with its conventions for zero
//! denominators and without them, computed from a model's scores over every item a test
//! user has not shown, counting only the hidden columns.
//!
//! For a test user `u` with top-`n` list `r_n(u)`, events `u^I` and hidden columns
//! `I_hidden`:
//!
//! - recall = |r_n(u) ∩ u^I ∩ I_hidden| / |u^I ∩ I_hidden|; the paper sets it to 1 when
//!   the user has no hidden event;
//! - precision = |r_n(u) ∩ u^I ∩ I_hidden| / |r_n(u) ∩ I_hidden|; when no list item is
//!   hidden the paper sets it to 1 if the user has no hidden event either, else 0.
//!
//! The *plain* means leave out the users whose denominator is zero instead. The
//! *unpadded* lists hold only candidates with a positive score (an item some neighbour or
//! neighbouring item speaks for, as §2's "the n most frequently bought items by the k most
//! similar users"), so a list can be shorter than `n`; the usual lists are filled up to `n`
//! with tied zero-score candidates. Equal scores
//! are ordered at random: every number is its expectation over that order, so nothing
//! depends on item indices. Only the tie group at the cut matters; if it holds `g`
//! candidates of which `t` are hidden (`s` of those relevant) and the list takes `m` of
//! them, the hidden ones taken, `X`, follow the hypergeometric law `H(g, t, m)`, and given
//! `X = x` the relevant ones taken have mean `x·s/t`.

use recs_bench::Measure;
use recs_core::Judgments;
use recs_split::Split;

/// What one test user's list yields, in expectation over the order of tied scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UserOutcome {
    /// |u^I ∩ I_hidden|: the user's events on hidden columns.
    pub(crate) hidden_events: usize,
    /// E|r_n(u) ∩ u^I ∩ I_hidden|.
    pub(crate) hits: f64,
    /// P(|r_n(u) ∩ I_hidden| = 0).
    pub(crate) p_no_hidden_listed: f64,
    /// E[precision · 1{|r_n(u) ∩ I_hidden| > 0}]: the precision over the orders that list
    /// a hidden item, weighted by their probability.
    pub(crate) precision_listed: f64,
    /// The list length `n`.
    pub(crate) list_length: usize,
}

impl UserOutcome {
    /// Recall with the paper's convention (1 without hidden events).
    pub(crate) fn recall(&self) -> f64 {
        if self.hidden_events == 0 { 1.0 } else { self.hits / self.hidden_events as f64 }
    }

    /// Recall with the paper's convention of a perfect list, which holds the user's hidden
    /// events first: min(|u^I ∩ I_hidden|, n) / |u^I ∩ I_hidden|, and 1 without hidden
    /// events. No model does better; what it cannot do, no model can.
    pub(crate) fn perfect_recall(&self) -> f64 {
        if self.hidden_events == 0 {
            1.0
        } else {
            self.hidden_events.min(self.list_length) as f64 / self.hidden_events as f64
        }
    }

    /// Precision with the paper's convention.
    pub(crate) fn precision(&self) -> f64 {
        let convention = if self.hidden_events == 0 { 1.0 } else { 0.0 };
        self.precision_listed + self.p_no_hidden_listed * convention
    }
}

/// The split-level means of the paper's measures over the test users.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SplitMeans {
    /// Mean recall with the paper's convention.
    pub(crate) recall: f64,
    /// Mean precision with the paper's convention.
    pub(crate) precision: f64,
    /// Mean recall over the users with a hidden event (`None` without such users).
    pub(crate) recall_plain: Option<f64>,
    /// Mean precision over the users whose list holds a hidden item, each user weighted
    /// by the probability that it does (`None` when no list can).
    pub(crate) precision_plain: Option<f64>,
    /// Share of test users without a hidden event (recall set to 1).
    pub(crate) without_hidden_events: f64,
    /// Expected share of test users whose list holds no hidden item.
    pub(crate) without_hidden_listed: f64,
    /// Mean recall of a perfect list, with the paper's convention.
    pub(crate) recall_perfect: f64,
}

impl SplitMeans {
    /// The means of `outcomes`; `None` without users.
    pub(crate) fn of(outcomes: &[UserOutcome]) -> Option<SplitMeans> {
        if outcomes.is_empty() {
            return None;
        }
        let n = outcomes.len() as f64;
        let mean = |f: &dyn Fn(&UserOutcome) -> f64| outcomes.iter().map(f).sum::<f64>() / n;
        let with_events: Vec<&UserOutcome> =
            outcomes.iter().filter(|o| o.hidden_events > 0).collect();
        let recall_plain = (!with_events.is_empty()).then(|| {
            with_events.iter().map(|o| o.recall()).sum::<f64>() / with_events.len() as f64
        });
        let listed_weight: f64 = outcomes.iter().map(|o| 1.0 - o.p_no_hidden_listed).sum();
        let precision_plain = (listed_weight > 1e-12)
            .then(|| outcomes.iter().map(|o| o.precision_listed).sum::<f64>() / listed_weight);
        Some(SplitMeans {
            recall: mean(&UserOutcome::recall),
            precision: mean(&UserOutcome::precision),
            recall_plain,
            precision_plain,
            without_hidden_events: mean(&|o| f64::from(u8::from(o.hidden_events == 0))),
            without_hidden_listed: mean(&|o| o.p_no_hidden_listed),
            recall_perfect: mean(&UserOutcome::perfect_recall),
        })
    }
}

/// The expected share of users with no event on `hidden` columns drawn uniformly, without
/// replacement, from the `n_items` columns that have events: the mean over users of
/// `C(n − d_u, h) / C(n, h)`, where `d_u` is the user's number of events (`lengths`). Test
/// users are a uniform fold, so this is also their expected share.
pub(crate) fn expected_without_hidden_events(
    lengths: &[usize],
    n_items: usize,
    hidden: usize,
) -> f64 {
    let hidden = hidden.min(n_items);
    let each = |d: usize| -> f64 {
        (0..hidden).map(|j| n_items.saturating_sub(d + j) as f64 / (n_items - j) as f64).product()
    };
    lengths.iter().map(|&d| each(d)).sum::<f64>() / lengths.len() as f64
}

/// One test user's outcome for a top-`n` list: `hidden[i]` and `relevant[i]` describe
/// candidate `i`, `scores[i]` its score.
pub(crate) fn user_outcome(
    scores: &[f32],
    hidden: &[bool],
    relevant: &[bool],
    n: usize,
) -> UserOutcome {
    listed_outcome(hidden_events(hidden, relevant), scores, hidden, relevant, n)
}

/// |u^I ∩ I_hidden|: the candidates both hidden and relevant.
fn hidden_events(hidden: &[bool], relevant: &[bool]) -> usize {
    hidden.iter().zip(relevant).filter(|&(&h, &r)| h && r).count()
}

/// [`user_outcome`] of an unpadded list: only the candidates with a positive score can be
/// listed (the hidden events still count them all).
pub(crate) fn unpadded_outcome(
    scores: &[f32],
    hidden: &[bool],
    relevant: &[bool],
    n: usize,
) -> UserOutcome {
    let hidden_events = hidden_events(hidden, relevant);
    let kept: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    let pick = |v: &[bool]| kept.iter().map(|&i| v[i]).collect::<Vec<bool>>();
    let scores: Vec<f32> = kept.iter().map(|&i| scores[i]).collect();
    listed_outcome(hidden_events, &scores, &pick(hidden), &pick(relevant), n)
}

/// What a top-`n` list of the candidates `scores` yields, for a user with
/// `hidden_events` events on hidden columns.
fn listed_outcome(
    hidden_events: usize,
    scores: &[f32],
    hidden: &[bool],
    relevant: &[bool],
    n: usize,
) -> UserOutcome {
    // Counts of (candidates, hidden, hidden and relevant) above the cut and at the cut.
    let (mut above, mut at) = ([0usize; 3], [0usize; 3]);
    let cut = nth_largest(scores, n);
    for ((&score, &h), &r) in scores.iter().zip(hidden).zip(relevant) {
        let slot = match cut {
            Some(c) if score > c => &mut above,
            Some(c) if score == c => &mut at,
            Some(_) => continue,
            // Fewer than n candidates: every one is listed.
            None => &mut above,
        };
        slot[0] += 1;
        slot[1] += usize::from(h);
        slot[2] += usize::from(h && r);
    }
    let taken = n.saturating_sub(above[0]).min(at[0]);
    let [group, group_hidden, group_hits] = at;
    let (hidden_above, hits_above) = (above[1] as f64, above[2] as f64);
    let hits =
        hits_above + if group > 0 { taken as f64 * group_hits as f64 / group as f64 } else { 0.0 };
    let (mut p_no_hidden_listed, mut precision_listed) = (0.0, 0.0);
    for (x, p) in hypergeometric(group, group_hidden, taken) {
        let listed = hidden_above + x as f64;
        if listed == 0.0 {
            p_no_hidden_listed += p;
        } else {
            let group_share =
                if group_hidden > 0 { group_hits as f64 / group_hidden as f64 } else { 0.0 };
            precision_listed += p * (hits_above + x as f64 * group_share) / listed;
        }
    }
    UserOutcome { hidden_events, hits, p_no_hidden_listed, precision_listed, list_length: n }
}

/// The `n`-th largest score (the score at the cut of a top-`n` list); `None` when there
/// are fewer than `n` scores or `n = 0`.
fn nth_largest(scores: &[f32], n: usize) -> Option<f32> {
    if n == 0 || scores.len() < n {
        return None;
    }
    let mut copy = scores.to_vec();
    let (_, nth, _) = copy.select_nth_unstable_by(n - 1, |a, b| b.total_cmp(a));
    Some(*nth)
}

/// `(x, P(X = x))` for `X ~ H(population, successes, draws)`: the successes among `draws`
/// taken without replacement from `population` items of which `successes` succeed.
pub(super) fn hypergeometric(
    population: usize,
    successes: usize,
    draws: usize,
) -> Vec<(usize, f64)> {
    let failures = population - successes.min(population);
    let low = draws.saturating_sub(failures);
    let high = draws.min(successes);
    let total = ln_choose(population, draws);
    (low..=high)
        .map(|x| {
            let ln = ln_choose(successes, x) + ln_choose(failures, draws - x) - total;
            (x, ln.exp())
        })
        .collect()
}

/// `ln C(n, k)`, in `O(min(k, n − k))` steps (the draws here are at most a list length).
pub(super) fn ln_choose(n: usize, k: usize) -> f64 {
    let k = k.min(n - k.min(n));
    (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
}

/// How long a list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Length {
    /// `n` items.
    Top(usize),
    /// As many items as the split has hidden columns: §6 states its Top-10 for 10 hidden
    /// items only, which this reading extends to any number.
    Hidden,
}

impl Length {
    /// The number of items listed when `hidden_columns` columns are hidden.
    pub(crate) fn of(self, hidden_columns: usize) -> usize {
        match self {
            Length::Top(n) => n,
            Length::Hidden => hidden_columns,
        }
    }

    /// What follows `@` in a measure's key: `10`, or `hidden`.
    fn key(self) -> String {
        match self {
            Length::Top(n) => n.to_string(),
            Length::Hidden => "hidden".into(),
        }
    }

    /// The length in words, as a sensitivity's end names it.
    pub(crate) fn words(self) -> String {
        match self {
            Length::Top(n) => format!("top {n}"),
            Length::Hidden => "as many as the hidden columns (top |I_hidden|)".into(),
        }
    }
}

/// The outcome of every judged user of `split` for lists of `length` scored by `scores`.
///
/// # Errors
/// A split whose protocol designates no hidden columns.
pub(crate) fn outcomes(
    split: &Split,
    judgments: &Judgments,
    scores: &[f32],
    length: Length,
    lists: Lists,
) -> recs_bench::Result<Vec<UserOutcome>> {
    let hidden_items = split.candidate_items().ok_or_else(|| {
        recs_bench::BenchError::Experiment(
            "the ignatov2010 measures need a protocol with hidden columns (hidden-items)".into(),
        )
    })?;
    let n = length.of(hidden_items.len());
    let mut out = Vec::with_capacity(judgments.n_judged_users());
    let mut start = 0;
    let (mut hidden, mut relevant) = (Vec::new(), Vec::new());
    for user in judgments.iter() {
        let end = start + user.items.len();
        hidden.clear();
        hidden.extend(user.items.iter().map(|i| hidden_items.binary_search(i).is_ok()));
        relevant.clear();
        relevant.extend(user.grades.iter().map(|&g| g >= 1.0));
        let outcome = match lists {
            Lists::Padded => user_outcome,
            Lists::Unpadded => unpadded_outcome,
        };
        out.push(outcome(&scores[start..end], &hidden, &relevant, n));
        start = end;
    }
    Ok(out)
}

/// Which lists a measure reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lists {
    /// `n` items, filled with tied zero-score candidates when fewer have a positive score.
    Padded,
    /// Only the candidates with a positive score, at most `n`.
    Unpadded,
}

/// The report keys of the paper's measures for lists of `n`, in table order.
pub(crate) struct Keys {
    pub(crate) recall: String,
    pub(crate) precision: String,
    pub(crate) recall_plain: String,
    pub(crate) precision_plain: String,
    pub(crate) recall_unpadded: String,
    pub(crate) precision_unpadded: String,
    /// The recall of a perfect list (every hidden event first), with the conventions.
    pub(crate) recall_perfect: String,
}

/// The report key of the share of users without hidden events (whatever the list length).
pub(crate) const WITHOUT_HIDDEN_EVENTS: &str = "users without hidden events";
/// The report key of the expected share of lists without hidden items.
pub(crate) const WITHOUT_HIDDEN_LISTED: &str = "lists without hidden items";

impl Keys {
    /// The keys of top-`n` lists.
    pub(crate) fn new(n: usize) -> Keys {
        Keys::of(Length::Top(n))
    }

    /// The keys of lists of `length`.
    pub(crate) fn of(length: Length) -> Keys {
        let n = length.key();
        Keys {
            recall: format!("recall@{n}"),
            precision: format!("precision@{n}"),
            recall_plain: format!("recall@{n} plain"),
            precision_plain: format!("precision@{n} plain"),
            recall_unpadded: format!("recall@{n} unpadded"),
            precision_unpadded: format!("precision@{n} unpadded"),
            recall_perfect: format!("recall@{n} of a perfect list"),
        }
    }
}

/// Reads one of the split-level means.
type Field = fn(&SplitMeans) -> Option<f64>;

/// The paper's measures for lists of `length`, one [`Measure`] per key of [`Keys::of`],
/// and with `shares` the two shares that do not depend on the list length (an experiment
/// with several list lengths adds them once).
pub(crate) fn measures(length: Length, shares: bool) -> Vec<Measure> {
    let keys = Keys::of(length);
    let pick: [(String, Lists, Field); 9] = [
        (keys.recall, Lists::Padded, |m| Some(m.recall)),
        (keys.recall_perfect, Lists::Padded, |m| Some(m.recall_perfect)),
        (keys.precision, Lists::Padded, |m| Some(m.precision)),
        (keys.recall_plain, Lists::Padded, |m| m.recall_plain),
        (keys.precision_plain, Lists::Padded, |m| m.precision_plain),
        (keys.recall_unpadded, Lists::Unpadded, |m| Some(m.recall)),
        (keys.precision_unpadded, Lists::Unpadded, |m| Some(m.precision)),
        (WITHOUT_HIDDEN_EVENTS.into(), Lists::Padded, |m| Some(m.without_hidden_events)),
        (WITHOUT_HIDDEN_LISTED.into(), Lists::Padded, |m| Some(m.without_hidden_listed)),
    ];
    let shared = [WITHOUT_HIDDEN_EVENTS, WITHOUT_HIDDEN_LISTED];
    pick.into_iter()
        .filter(|(key, _, _)| shares || !shared.contains(&key.as_str()))
        .map(|(key, lists, field)| {
            Measure::with_split(key, false, move |split, judgments, scores| {
                let outcomes = outcomes(split, judgments, scores, length, lists)?;
                Ok(SplitMeans::of(&outcomes).and_then(|m| field(&m)))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// `user_outcome` with hidden and relevant candidates written as `1`/`0` strings.
    fn outcome(scores: &[f32], hidden: &str, relevant: &str, n: usize) -> UserOutcome {
        let bits = |s: &str| s.bytes().map(|b| b == b'1').collect::<Vec<_>>();
        user_outcome(scores, &bits(hidden), &bits(relevant), n)
    }

    #[test]
    fn a_list_without_ties_counts_its_hidden_items() {
        // Scores 5 > 4 > 3 > 2; hidden: items 0, 2, 3; relevant: 0, 3. Top 2 lists 0 and 1.
        let o = outcome(&[5.0, 4.0, 3.0, 2.0], "1011", "1001", 2);
        assert_eq!(o.hidden_events, 2);
        assert!(close(o.hits, 1.0));
        assert!(close(o.recall(), 0.5));
        // One hidden item listed, and it is relevant.
        assert!(close(o.p_no_hidden_listed, 0.0));
        assert!(close(o.precision(), 1.0));
    }

    #[test]
    fn an_unpadded_list_holds_only_positive_scores() {
        // Items 0 and 1 scored, 2 and 3 at zero; hidden: 1, 2, 3; relevant: 2. A padded top
        // 3 takes one of the two zero-score items (so item 2 half the time); unpadded, the
        // list is items 0 and 1 only.
        let bits = |s: &str| s.bytes().map(|b| b == b'1').collect::<Vec<_>>();
        let (scores, hidden, relevant) = ([2.0, 1.0, 0.0, 0.0], bits("0111"), bits("0010"));
        let padded = user_outcome(&scores, &hidden, &relevant, 3);
        assert!(close(padded.recall(), 0.5));
        let unpadded = unpadded_outcome(&scores, &hidden, &relevant, 3);
        assert_eq!(unpadded.hidden_events, 1);
        assert!(close(unpadded.recall(), 0.0));
        // Item 1 is hidden and listed but not relevant: precision 0.
        assert!(close(unpadded.precision(), 0.0));
        // Nothing scored: the list is empty; the convention gives precision 0 (a hidden
        // event exists) and recall 0.
        let empty = unpadded_outcome(&[0.0; 4], &hidden, &relevant, 3);
        assert!(close(empty.recall(), 0.0) && close(empty.precision(), 0.0));
    }

    #[test]
    fn the_expected_share_without_hidden_events_by_hand() {
        // Four columns; users with 1 and 2 events. One column hidden: 3/4 and 2/4.
        assert!(close(expected_without_hidden_events(&[1, 2], 4, 1), (0.75 + 0.5) / 2.0));
        // Two hidden: C(3,2)/C(4,2) = 1/2 and C(2,2)/C(4,2) = 1/6.
        assert!(close(expected_without_hidden_events(&[1, 2], 4, 2), (0.5 + 1.0 / 6.0) / 2.0));
        // Nothing hidden: nobody has a hidden event; everything hidden: everybody does.
        assert!(close(expected_without_hidden_events(&[1, 2], 4, 0), 1.0));
        assert!(close(expected_without_hidden_events(&[1, 2], 4, 4), 0.0));
    }

    #[test]
    fn conventions_apply_when_nothing_hidden_is_listed() {
        let scores = [5.0, 4.0, 1.0];
        // No hidden event, nothing hidden listed: recall 1, precision 1.
        let none = outcome(&scores, "001", "100", 2);
        assert!(close(none.recall(), 1.0) && close(none.precision(), 1.0));
        // A hidden event that is not listed: recall 0, precision 0 by convention.
        let missed = outcome(&scores, "001", "001", 2);
        assert!(close(missed.recall(), 0.0) && close(missed.precision(), 0.0));
        let means = SplitMeans::of(&[none, missed]).unwrap();
        assert!(close(means.recall, 0.5) && close(means.precision, 0.5));
        // Plain: only the user with a hidden event counts for recall; no list holds a
        // hidden item, so plain precision is undefined.
        assert_eq!(means.recall_plain, Some(0.0));
        assert_eq!(means.precision_plain, None);
        assert!(close(means.without_hidden_events, 0.5));
        // A perfect list lists the one hidden event: recall 1 for both users.
        assert!(close(means.recall_perfect, 1.0));
        assert!(close(means.without_hidden_listed, 1.0));
    }

    #[test]
    fn a_tie_at_the_cut_gives_expected_values() {
        // Item 0 above; items 1, 2, 3 tie at the cut and one of them is listed (n = 2).
        // Hidden: 2 and 3; relevant: 2. P(listed item is hidden) = 2/3.
        let o = outcome(&[9.0, 1.0, 1.0, 1.0], "0011", "0010", 2);
        assert!(close(o.hits, 1.0 / 3.0));
        assert!(close(o.p_no_hidden_listed, 1.0 / 3.0));
        // With a hidden item listed (p = 2/3) it is the relevant one half the time.
        assert!(close(o.precision_listed, 2.0 / 3.0 * 0.5));
        assert!(close(o.precision(), 1.0 / 3.0));
        // The same by enumerating the three equally likely choices: item 1 (precision 0
        // by convention, the user has a hidden event), item 2 (1), item 3 (0).
        assert!(close(o.precision(), (0.0 + 1.0 + 0.0) / 3.0));
    }

    #[test]
    fn the_order_of_candidates_does_not_matter() {
        let scores = [1.0, 3.0, 1.0, 2.0, 1.0, 3.0];
        let hidden = [true, false, true, true, false, true];
        let relevant = [true, false, false, true, false, false];
        let a = user_outcome(&scores, &hidden, &relevant, 3);
        let order = [5, 2, 0, 4, 1, 3];
        let pick = |v: &[bool]| order.iter().map(|&i| v[i]).collect::<Vec<_>>();
        let scores_b: Vec<f32> = order.iter().map(|&i| scores[i]).collect();
        let b = user_outcome(&scores_b, &pick(&hidden), &pick(&relevant), 3);
        assert!(close(a.hits, b.hits) && close(a.precision(), b.precision()));
        assert!(close(a.p_no_hidden_listed, b.p_no_hidden_listed));
    }

    #[test]
    fn a_perfect_list_holds_at_most_n_hidden_events() {
        // Three hidden events, lists of 2: a perfect list finds 2 of 3, whatever the scores.
        let o = outcome(&[0.0; 5], "11100", "11100", 2);
        assert!(close(o.perfect_recall(), 2.0 / 3.0));
        // No hidden event: 1 by the convention; one: 1.
        assert!(close(outcome(&[1.0, 2.0], "00", "11", 2).perfect_recall(), 1.0));
        assert!(close(outcome(&[1.0, 2.0], "10", "11", 2).perfect_recall(), 1.0));
    }

    #[test]
    fn a_list_as_long_as_the_hidden_columns_follows_the_split() {
        assert_eq!(Length::Top(10).of(101), 10);
        assert_eq!(Length::Hidden.of(101), 101);
        assert_eq!(Length::Hidden.of(1), 1);
        assert_eq!(Keys::of(Length::Hidden).recall, "recall@hidden");
        assert_eq!(Keys::of(Length::Top(5)).precision_plain, Keys::new(5).precision_plain);
        // At three hidden columns a top-|I_hidden| list is a top-3 list.
        let scores = [5.0, 4.0, 3.0, 2.0, 1.0];
        let (hidden, relevant) =
            ([true, false, true, true, false], [false, true, true, true, true]);
        let n = Length::Hidden.of(hidden.iter().filter(|&&h| h).count());
        let o = user_outcome(&scores, &hidden, &relevant, n);
        assert_eq!(o, user_outcome(&scores, &hidden, &relevant, 3));
        // Items 0, 1, 2 listed; hidden and relevant: item 2 of the two (2, 3).
        assert!(close(o.recall(), 0.5));
        assert!(close(o.precision(), 0.5));
    }

    #[test]
    fn short_candidate_lists_are_listed_whole() {
        let o = outcome(&[1.0, 2.0], "11", "10", 10);
        assert!(close(o.recall(), 1.0) && close(o.precision(), 0.5));
    }

    #[test]
    fn hypergeometric_probabilities_sum_to_one() {
        for (g, t, m) in [(10, 3, 4), (1600, 300, 10), (5, 5, 2), (7, 0, 3), (4, 2, 0)] {
            let p: f64 = hypergeometric(g, t, m).iter().map(|(_, p)| p).sum();
            assert!((p - 1.0).abs() < 1e-9, "{g} {t} {m}: {p}");
        }
        // H(4, 2, 2): P(X = 1) = C(2,1)·C(2,1)/C(4,2) = 4/6.
        assert!(close(hypergeometric(4, 2, 2)[1].1, 4.0 / 6.0));
    }
}
