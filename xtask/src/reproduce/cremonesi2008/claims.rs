//! The paper's claims under the verdict model: each with the paper's words, the rule fixed
//! before any result was seen, and its effects over the repetitions the experiments run
//! (the leave-25%-out splits of the ROC figures, the user folds of the recall tables).

use recs_bench::report::{Claim, Effect, Quote, Reading, Rule, Test};

use super::recall::{ByGroup, Cell};
use super::roc::{Averaged, MARKED_N};

/// G1: MovieLens 100K's users in the groups [1..99] / [100..199] / [200..] (§5.1).
pub(crate) const ML_GROUP_USERS: [usize; 3] = [579, 215, 149];
/// G2: the paper's head size and share: "the top 210 items account for 50%".
pub(crate) const PAPER_HEAD: (usize, f64) = (210, 0.5);
/// G2: "50%" read at the paper's precision, a whole percent: the share may differ from
/// one half by at most half a point.
pub(crate) const HALF_A_POINT: f64 = 0.005;
/// R1–R4's "best": at least every other curve's value, a tie counting as best (no margin,
/// as the rule was written before the verdict model).
pub(crate) const BEST_MARGIN: f64 = 0.0;
/// T1's "far above": head recall at least this many times tail recall.
pub(crate) const FAR_ABOVE: f64 = 2.0;
/// T2's "clearly improve": a gain in recall@20 of more than this (absolute) in some group.
pub(crate) const CLEAR_GAIN: f64 = 0.02;

fn quote(section: &str, words: &str) -> Quote {
    Quote { section: section.into(), words: words.into() }
}

/// G1: MovieLens 100K's groups [1..99] / [100..199] / [200..] hold exactly 579 / 215 /
/// 149 users: three exact counts on fixed data.
pub(crate) fn g1(users: &[usize]) -> Claim {
    let labels = ["[1..99]", "[100..199]", "[200..]"];
    let tests = labels
        .iter()
        .zip(ML_GROUP_USERS)
        .zip(users)
        .map(|((label, published), &ours)| {
            Test::new(
                format!("users in {label} − {published}"),
                Rule::within(0.0),
                Effect::exact(ours as f64 - published as f64),
            )
        })
        .collect();
    Claim::new(
        "G1",
        "MovieLens 100K's profile-length groups [1..99] / [100..199] / [200..] hold 579 / 215 / 149 users",
        quote(
            "§5.1",
            "[1 . . . 99] 579 users, ∼25% of all the ratings; [100 . . . 199] 215 users, ∼25% of \
             all the ratings; [200 . . . ∞] 149 users, ∼50% of all the ratings",
        ),
        format!("{users:?} users (counts on the whole dataset)"),
        vec![Reading::new("exact counts", tests).primary()],
    )
}

/// G2: "the top 210 items account for 50% of the ratings": the share of the 210 most
/// rated items is within [`HALF_A_POINT`] of one half; our exact head is reported beside
/// it.
pub(crate) fn g2(head_items: usize, share_of_210: f64) -> Claim {
    let (items, half) = PAPER_HEAD;
    Claim::new(
        "G2",
        "The 210 most rated MovieLens 100K items hold 50% of the ratings (to a whole percent)",
        quote("§5.1", "The top 210 items account for 50% of the ratings, as shown in Figure 4."),
        format!(
            "the top {items} items hold {:.2}%; the fewest items reaching 50% are {head_items}",
            100.0 * share_of_210
        ),
        vec![Reading::new(
            "50% to a whole percent",
            vec![Test::new(
                format!("share of the ratings in the top {items} items − {half}"),
                Rule::within(HALF_A_POINT),
                Effect::exact(share_of_210).minus(half),
            )],
        )],
    )
}

/// The label of the curve with the largest value (`none` when no value is defined).
fn best(values: &[(String, Option<f64>)]) -> String {
    values
        .iter()
        .filter_map(|(l, v)| v.map(|v| (l, v)))
        .fold(None::<(&String, f64)>, |acc, (l, v)| match acc {
            Some((_, w)) if w >= v => acc,
            _ => Some((l, v)),
        })
        .map_or_else(|| "none".to_string(), |(l, _)| l.clone())
}

fn listing(values: &[(String, Option<f64>)]) -> String {
    values
        .iter()
        .map(|(l, v)| format!("{l} {}", v.map_or("n/a".to_string(), |v| format!("{v:.4}"))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The number of repetitions behind averaged curves, in words.
fn repetitions_of(curves: &[Averaged]) -> String {
    let n = curves.first().and_then(|c| c.per_position.first()).map_or(0, |(_, p)| p.len());
    format!("{n} independent leave-25%-out splits")
}

/// "`expected` is best": one test per other curve, `expected`'s value minus the other's
/// paired by repetition (independent splits), not below −[`BEST_MARGIN`]. `what` names
/// the value in the tests' subjects; `per_repetition` gives a curve's value in each
/// repetition.
fn best_tests(
    curves: &[Averaged],
    expected: &str,
    what: &str,
    per_repetition: impl Fn(&Averaged) -> Vec<f64>,
) -> Vec<Test> {
    let rule = Rule::not_below(BEST_MARGIN);
    let Some(own) = curves.iter().find(|c| c.label == expected) else {
        return vec![Test::new(
            format!("{what}: no curve {expected}"),
            rule,
            Effect::mean_of(&[], true, false),
        )];
    };
    let own = per_repetition(own);
    curves
        .iter()
        .filter(|c| c.label != expected)
        .map(|other| {
            Test::new(
                format!("{what}, {expected} − {}", other.label),
                rule,
                Effect::paired(&own, &per_repetition(other), true, false),
            )
        })
        .collect()
}

/// R1: in ROC1 on MovieLens (users with at most 99 ratings), L = 15 is best: its area
/// (closed by (0, 0) and (1, 1)) is at least every other PureSVD rank's, paired by
/// repetition.
pub(crate) fn r1(svd: &[Averaged]) -> Claim {
    let values: Vec<(String, Option<f64>)> =
        svd.iter().map(|c| (c.label.clone(), Some(c.closed_area()))).collect();
    let tests = best_tests(svd, "PureSVD L=15", "ROC1 area", Averaged::closed_area_per_repetition);
    Claim::new(
        "R1",
        "ROC1 on MovieLens (users with at most 99 ratings): PureSVD with L = 15 has the largest area under the curve",
        quote("§5.2, Figure 5", "The best curve is obtained by setting the latent size L to 15."),
        format!(
            "areas under the mean curve: {}; best {}; the tests pair each repetition's own \
             curve over {}",
            listing(&values),
            best(&values),
            repetitions_of(svd)
        ),
        vec![Reading::new("largest area under the ROC1 curve", tests)],
    )
}

/// The measured text and the tests of "`expected` has the highest TPR at both marked
/// list lengths" on one set of curves; `prefix` starts every test's subject.
fn best_at_marks(curves: &[Averaged], expected: &str, prefix: &str) -> (String, Vec<Test>) {
    let mut texts = Vec::new();
    let mut tests = Vec::new();
    for n in MARKED_N {
        let values: Vec<(String, Option<f64>)> =
            curves.iter().map(|c| (c.label.clone(), c.at(n as f64).map(|p| p[1]))).collect();
        texts.push(format!("TPR@{n}: {}; best {}", listing(&values), best(&values)));
        tests.extend(best_tests(curves, expected, &format!("{prefix}TPR@{n}"), |c| {
            c.tpr_per_repetition(n as f64)
        }));
    }
    (texts.join(". "), tests)
}

/// [`best_at_marks`] on every dataset, with the curve each names.
fn best_at_marks_on_each(per_dataset: &[(&str, &[Averaged], &str)]) -> (String, Vec<Test>) {
    let mut texts = Vec::new();
    let mut tests = Vec::new();
    for (name, curves, expected) in per_dataset {
        let (text, more) = best_at_marks(curves, expected, &format!("{name}: "));
        texts.push(format!("{name}: {text}"));
        tests.extend(more);
    }
    let over = per_dataset.first().map_or_else(String::new, |(_, c, _)| repetitions_of(c));
    (format!("{}; the tests pair TPRs by repetition over {over}", texts.join(" | ")), tests)
}

/// R2: in ROC2 on binary data (users with 2–9 ratings), L = 15 has a TPR at N = 5 and at
/// N = 20 at least every other PureSVD rank's, on both binary datasets.
pub(crate) fn r2(per_dataset: &[(&str, &[Averaged])]) -> Claim {
    let named: Vec<(&str, &[Averaged], &str)> =
        per_dataset.iter().map(|&(name, curves)| (name, curves, "PureSVD L=15")).collect();
    let (text, tests) = best_at_marks_on_each(&named);
    Claim::new(
        "R2",
        "ROC2 on binary data, users with 2–9 ratings: PureSVD with L = 15 has the highest TPR at N = 5 and N = 20 (on both binary datasets)",
        quote("§5.2, Figure 6(a)", "The model with a latent size of 15 is the best one."),
        text,
        vec![Reading::new("highest TPR at N = 5 and N = 20, both binary datasets", tests)],
    )
}

/// R3: in ROC2 on MovieLens (users with at most 99 ratings), L = 15 has a TPR at N = 5
/// and at N = 20 at least every other PureSVD rank's.
pub(crate) fn r3(svd: &[Averaged]) -> Claim {
    let (text, tests) = best_at_marks_on_each(&[("ml-100k", svd, "PureSVD L=15")]);
    Claim::new(
        "R3",
        "ROC2 on MovieLens, users with at most 99 ratings: PureSVD with L = 15 has the highest TPR at N = 5 and N = 20",
        quote(
            "§5.2, Figure 6(b)",
            "Figure 6(b) shows that 15 is again the best value for parameter L.",
        ),
        text,
        vec![Reading::new("highest TPR at N = 5 and N = 20", tests)],
    )
}

/// R4: NBN predicts best for users with 2–9 ratings: that group's TPR at N = 5 and
/// N = 20 is at least each other group's, on both binary datasets.
pub(crate) fn r4(per_dataset: &[(&str, &[Averaged], &str)]) -> Claim {
    let (text, tests) = best_at_marks_on_each(per_dataset);
    Claim::new(
        "R4",
        "ROC2 of NBN by user group: the group with 2–9 ratings has the highest TPR at N = 5 and N = 20 (on both binary datasets)",
        quote(
            "§5.2, Figure 6(c)",
            "In any case, the best prediction is obtained for users having ratings into the \
             range of [2 . . . 9].",
        ),
        text,
        vec![Reading::new("highest TPR at N = 5 and N = 20, both binary datasets", tests)],
    )
}

/// One value per fold of the recall cells `pick` reads (`NaN` where a cell is undefined).
fn per_fold(recall: &ByGroup, pick: impl Fn(&[[Cell; 3]]) -> Option<f64>) -> Vec<f64> {
    recall.folds.iter().map(|cells| pick(cells).unwrap_or(f64::NAN)).collect()
}

/// The folds behind recall effects, in words.
fn folds_of(recall: Option<&ByGroup>) -> String {
    match recall.map_or(0, |r| r.folds.len()) {
        1 => "one user fold (one draw, no interval)".to_string(),
        n => format!("{n} folds of one user partition (dependent)"),
    }
}

/// T1: head recall is far above tail recall in every group: head recall@20 minus
/// [`FAR_ABOVE`] times tail recall@20 is not below zero, for every group, model and
/// dataset of Tables 1 and 2, over the user folds.
pub(crate) fn t1(blocks: &[(String, ByGroup)]) -> Claim {
    let mut texts = Vec::new();
    let mut tests = Vec::new();
    for (name, recall) in blocks {
        let mut ratios = Vec::new();
        for (g, label) in recall.labels.iter().enumerate().take(recall.pooled.len()) {
            let [head, tail, _] = recall.pooled[g];
            ratios.push(match (head.recall, tail.recall) {
                (Some(h), Some(t)) => format!("{:.1}%/{:.2}%", 100.0 * h, 100.0 * t),
                _ => "n/a".to_string(),
            });
            let values = per_fold(recall, |cells| {
                let [head, tail, _] = cells[g];
                Some(head.recall? - FAR_ABOVE * tail.recall?)
            });
            tests.push(Test::new(
                format!("{name}, users {label}: head recall@20 − {FAR_ABOVE} × tail recall@20"),
                Rule::not_below(0.0),
                Effect::mean_of(&values, false, false),
            ));
        }
        texts.push(format!("{name}: {}", ratios.join(", ")));
    }
    Claim::new(
        "T1",
        "Recall@20 on head items is at least twice recall@20 on tail items in every user group (Tables 1–2, every model and dataset)",
        quote(
            "Tables 1–2",
            "Popularity UPL First80 NoFirst80 2-9 22.2% 6.9% 10-19 24.1% 0.1% ≥ 20 25.7% 10.1% \
             (Table 1; Table 2 likewise, First80 20.7–31.6%, NoFirst80 0.01–0.19%)",
        ),
        format!(
            "head/tail recall@20 by group, pooled: {}; the tests' effects are over {}",
            texts.join(" | "),
            folds_of(blocks.first().map(|(_, r)| r))
        ),
        vec![Reading::new("head ≥ 2 × tail in every group, model and dataset", tests)],
    )
}

/// Table 2's recall on one dataset, for T2.
pub(crate) struct NbnRecall {
    /// The dataset's name.
    pub(crate) dataset: String,
    /// NBN trained on users with at least two ratings.
    pub(crate) base: ByGroup,
    /// The richer models: their minimum profile, and their recall (`None` when no
    /// training user is that rich).
    pub(crate) richer: [(u32, Option<ByGroup>); 2],
}

/// T2: training NBN only on richer profiles (≥ 10, ≥ 20 ratings) does not clearly
/// improve recall: in no group and dataset does recall@20 over all withheld items gain
/// more than [`CLEAR_GAIN`] over the model trained on users with ≥ 2 ratings, paired by
/// fold. A richer model that could not be trained (`None`: no user that rich) is listed
/// as `n/a` and not tested.
pub(crate) fn t2(per_dataset: &[NbnRecall]) -> Claim {
    let mut texts = Vec::new();
    let mut tests = Vec::new();
    for NbnRecall { dataset: name, base, richer } in per_dataset {
        let mut gains = Vec::new();
        for (min, model) in richer {
            let Some(model) = model else {
                gains.extend(base.labels.iter().map(|_| "n/a".to_string()));
                continue;
            };
            for (g, label) in base.labels.iter().enumerate().take(base.pooled.len()) {
                gains.push(match (base.pooled[g][2].recall, model.pooled[g][2].recall) {
                    (Some(b), Some(r)) => format!("{:+.2}", 100.0 * (r - b)),
                    _ => "n/a".to_string(),
                });
                let all = |cells: &[[Cell; 3]]| cells[g][2].recall;
                tests.push(Test::new(
                    format!("{name}, users {label}: recall@20 of NBN ≥ {min} − NBN ≥ 2"),
                    Rule::not_above(CLEAR_GAIN),
                    Effect::paired(&per_fold(model, all), &per_fold(base, all), false, false),
                ));
            }
        }
        texts
            .push(format!("{name}: gains in points (≥10 by group, then ≥20) {}", gains.join(", ")));
    }
    Claim::new(
        "T2",
        "Training NBN only on users with ≥ 10 or ≥ 20 ratings gains at most 2 points of recall@20 in every group",
        quote(
            "§5.3, Table 2",
            "In Table 1(b) and 1(c) we create the model using users with a more rich profile, \
             i.e., with at least 10 and 20 ratings, respectively. The test considers again all \
             the users. This allows to see if a more rich and compact model can improve \
             recommendations.",
        ),
        format!(
            "{}; the tests' effects are over {}",
            texts.join(" | "),
            folds_of(per_dataset.first().map(|d| &d.base))
        ),
        vec![Reading::new("a gain of at most 2 points in every group and dataset", tests)],
    )
}

#[cfg(test)]
mod tests {
    use recs_bench::report::{IntervalKind, Verdict};

    use super::*;

    #[test]
    fn best_names_the_largest_value_and_skips_missing_ones() {
        let v = |a: f64, b: f64| vec![("x".to_string(), Some(a)), ("y".to_string(), Some(b))];
        assert_eq!(best(&v(0.3, 0.2)), "x");
        assert_eq!(best(&v(0.2, 0.3)), "y");
        // A tie names the first.
        assert_eq!(best(&v(0.3, 0.3)), "x");
        let missing = vec![("x".to_string(), None), ("y".to_string(), Some(0.1))];
        assert_eq!(best(&missing), "y");
    }

    #[test]
    fn g1_and_g2_are_exact_and_read_the_published_numbers() {
        let holds = g1(&[579, 215, 149]);
        assert_eq!(holds.verdict, Verdict::Holds);
        assert!(holds.readings[0].primary);
        assert_eq!(holds.readings[0].tests[0].effect.interval, IntervalKind::Exact);
        assert_eq!(g1(&[579, 216, 148]).verdict, Verdict::Fails);
        assert_eq!(g2(211, 0.5004).verdict, Verdict::Holds);
        assert_eq!(g2(215, 0.4931).verdict, Verdict::Fails);
        assert_eq!(g2(190, 0.52).verdict, Verdict::Fails);
        for claim in [holds, g2(215, 0.4931)] {
            assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        }
    }

    /// A curve with a TPR per repetition at both marked list lengths (false-alarm rate
    /// 0.01 throughout).
    fn curve(label: &str, tprs: &[f64]) -> Averaged {
        let points: Vec<[f64; 2]> = tprs.iter().map(|&t| [0.01, t]).collect();
        Averaged {
            label: label.into(),
            per_position: MARKED_N.iter().map(|&n| (n as f64, points.clone())).collect(),
        }
    }

    #[test]
    fn r3_decides_on_the_interval_of_paired_repetitions() {
        let l15 = "PureSVD L=15";
        // L = 15 above L = 50 in every repetition, by a steady margin: holds.
        let clear = [curve(l15, &[0.30, 0.32, 0.31]), curve("PureSVD L=50", &[0.20, 0.21, 0.22])];
        let claim = r3(&clear);
        assert_eq!(claim.verdict, Verdict::Holds);
        let effect = claim.readings[0].tests[0].effect;
        assert_eq!((effect.interval, effect.repetitions), (IntervalKind::Independent, 3));
        assert!(claim.problems().is_empty(), "{:?}", claim.problems());
        // Below in every repetition: fails.
        let worse = [curve(l15, &[0.20, 0.21, 0.22]), curve("PureSVD L=50", &[0.30, 0.32, 0.31])];
        assert_eq!(r3(&worse).verdict, Verdict::Fails);
        // Above in two repetitions, below in one: the interval straddles zero.
        let mixed = [curve(l15, &[0.30, 0.32, 0.25]), curve("PureSVD L=50", &[0.28, 0.30, 0.29])];
        assert_eq!(r3(&mixed).verdict, Verdict::Inconclusive);
        // One repetition decides nothing.
        let one = [curve(l15, &[0.30]), curve("PureSVD L=50", &[0.20])];
        assert_eq!(r3(&one).verdict, Verdict::Inconclusive);
    }

    /// Recall cells of three groups per fold, `[head, tail, all]` each.
    fn recall(folds: &[[[f64; 3]; 3]]) -> ByGroup {
        let c = |r| Cell { withheld: 1, recall: Some(r) };
        let folds: Vec<Vec<[Cell; 3]>> =
            folds.iter().map(|f| f.iter().map(|g| g.map(c)).collect()).collect();
        ByGroup {
            labels: ["[2..9]", "[10..19]", "[20..]"].map(String::from),
            pooled: folds[0].clone(),
            folds,
        }
    }

    #[test]
    fn t1_needs_twice_the_tail_in_every_group_over_the_folds() {
        let good = [[0.2, 0.05, 0.1]; 3];
        let steady = recall(&[good, good.map(|[h, t, a]| [h + 0.01, t, a]), good]);
        let claim = t1(&[("m".into(), steady)]);
        assert_eq!(claim.verdict, Verdict::Holds);
        assert_eq!(claim.readings[0].tests.len(), 3);
        assert_eq!(claim.readings[0].tests[0].effect.interval, IntervalKind::Dependent);
        let mut bad = good;
        bad[1] = [0.2, 0.15, 0.18];
        assert_eq!(t1(&[("m".into(), recall(&[bad, bad, bad]))]).verdict, Verdict::Fails);
        // Head − 2 × tail of +0.05, −0.05, +0.05 in group 2 over three folds: straddles.
        let mut near = good;
        near[1] = [0.25, 0.10, 0.2];
        let mut under = good;
        under[1] = [0.15, 0.10, 0.2];
        let straddling = recall(&[near, under, near]);
        assert_eq!(t1(&[("m".into(), straddling)]).verdict, Verdict::Inconclusive);
        // The quick run's single fold is one draw.
        assert_eq!(t1(&[("m".into(), recall(&[good]))]).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn t2_allows_a_gain_of_two_points_and_skips_a_model_that_could_not_be_trained() {
        let base = recall(&[[[0.3, 0.1, 0.20]; 3], [[0.3, 0.1, 0.21]; 3]]);
        let same = recall(&[[[0.3, 0.1, 0.205]; 3], [[0.3, 0.1, 0.216]; 3]]);
        let input = |richer: ByGroup| {
            vec![NbnRecall {
                dataset: "d".into(),
                base: base.clone(),
                richer: [(10, Some(richer)), (20, None)],
            }]
        };
        let claim = t2(&input(same));
        assert_eq!(claim.verdict, Verdict::Holds);
        // Three groups of the ≥ 10 model; the ≥ 20 model is n/a.
        assert_eq!(claim.readings[0].tests.len(), 3);
        assert!(claim.measured.contains("n/a"));
        let better = recall(&[[[0.3, 0.1, 0.30]; 3], [[0.3, 0.1, 0.32]; 3]]);
        assert_eq!(t2(&input(better)).verdict, Verdict::Fails);
        // Gains of +1 and +4 points: the interval straddles the 2 points.
        let unsure = recall(&[[[0.3, 0.1, 0.21]; 3], [[0.3, 0.1, 0.25]; 3]]);
        assert_eq!(t2(&input(unsure)).verdict, Verdict::Inconclusive);
    }
}
