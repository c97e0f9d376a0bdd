//! The random recommender on CROC (§3.2, Theorem 1): its exact expected curve against a
//! Monte-Carlo simulation, on judgments where every user has the same number of
//! candidates (Theorem 1: the diagonal) and where they do not (the paper: "simulation is
//! needed").

use anyhow::Result;
use recs_bench::report::{CurveKind, Experiment, Table};
use recs_bench::{Figure, Line, ModelCurve};
use recs_core::Judgments;
use serde_json::json;

use crate::reproduce::{Lines, Options};

/// Seed stream of the simulations (mixed with the run's seed and the case's stream).
const SIMULATION_PURPOSE: u64 = 0x7468_6d31;

/// One set of judgments to check the random recommender on.
pub(super) struct Case {
    pub(super) id: &'static str,
    /// Figure file.
    pub(super) file: &'static str,
    pub(super) title: &'static str,
    pub(super) protocol: &'static str,
    pub(super) mode: &'static str,
    /// Mixed into the simulation seed so the cases draw independent runs.
    pub(super) stream: u64,
}

/// Theorem 1's case: the implicit cold-start judgments, 331 candidates for every user.
pub(super) const EVEN: Case = Case {
    id: "thm1-random",
    file: "thm1-random-croc.svg",
    title: "Theorem 1: random recommenders on the cold-start judgments (equal candidates) — CROC",
    protocol: "the fig4 judgments (every user has the same 331 candidates)",
    mode: "implicit",
    stream: 0,
};

/// The uneven case: the conditional judgments of Figure 5 (users' candidates are their
/// own test ratings, so their numbers differ).
pub(super) const UNEVEN: Case = Case {
    id: "thm1-random-uneven",
    file: "thm1-random-uneven-croc.svg",
    title: "Random recommenders on the conditional judgments (unequal candidates) — CROC",
    protocol: "the fig5 judgments (each user's candidates are its own test ratings)",
    mode: "conditional:4",
    stream: 1,
};

/// Report key: the exact expected CROC AUC of a random recommender on the split's
/// judgments (the same for every model; §3.2).
pub(super) const RANDOM_CROC: &str = "random_croc_auc_expected";
/// Report key: the Pearson correlation, over the judged users, of a user's number of
/// candidates and the share of them that are positives (§3.2: a negative correlation
/// lifts the random CROC above the diagonal).
pub(super) const LENGTH_AND_RATE: &str = "corr_candidates_positive_rate";

/// The two model-independent measures of §3.2's remark, for the conditional judgments.
pub(super) fn uneven_measures() -> [recs_bench::Measure; 2] {
    let random = recs_bench::Measure::new(RANDOM_CROC, false, |judgments, _| {
        Ok(recs_metrics::random_croc(judgments, 1.0).ok().map(|c| c.auc()))
    });
    let correlation = recs_bench::Measure::new(LENGTH_AND_RATE, false, |judgments, _| {
        Ok(length_and_rate(judgments))
    });
    [random, correlation]
}

/// The correlation of `n(p)` and `s(p)/n(p)` over the users of `judgments`; `None` when
/// either is constant.
fn length_and_rate(judgments: &Judgments) -> Option<f64> {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for user in judgments.iter() {
        let n = user.items.len();
        if n == 0 {
            continue;
        }
        let s = user.grades.iter().filter(|&&g| g >= 1.0).count();
        xs.push(n as f64);
        ys.push(s as f64 / n as f64);
    }
    let count = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / count, ys.iter().sum::<f64>() / count);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The exact expected random CROC curve of `judgments` against `runs` simulated random
/// recommenders (mean and pointwise 95% band) and one single run: the report entry, its
/// figure, and each simulated run's CROC AUC.
pub(super) fn check_case(
    options: &Options,
    lines: &Lines,
    case: &Case,
    judgments: &Judgments,
) -> Result<(Experiment, Figure, Vec<f64>)> {
    let exact = recs_metrics::random_croc(judgments, 1.0)?;
    let runs = if options.quick { 20 } else { 200 };
    let seed = recs_core::mix64(options.seed ^ SIMULATION_PURPOSE ^ (case.stream << 32));
    let simulated = recs_metrics::simulated_croc(judgments, 1.0, runs, seed)?;
    // A run the simulation did not draw: one more stream of the same generator.
    let single = recs_metrics::simulated_croc(judgments, 1.0, 1, recs_core::mix64(seed))?.mean;
    let exact_points = exact.points();
    let diagonal_gap = exact_points.iter().map(|p| (p[1] - p[0]).abs()).fold(0.0, f64::max);
    let simulation_gap = exact_points
        .iter()
        .zip(&simulated.mean)
        .map(|(e, s)| (e[0] - s[0]).abs().max((e[1] - s[1]).abs()))
        .fold(0.0, f64::max);
    let inside_band = exact_points
        .iter()
        .zip(simulated.lower.iter().zip(&simulated.upper))
        .all(|(e, (lo, hi))| lo[1] - 1e-12 <= e[1] && e[1] <= hi[1] + 1e-12);
    lines.say(format!(
        "{}: exact random CROC AUC {:.6}; max |TPR - FPR| {diagonal_gap:.2e}; max gap to the simulated mean {simulation_gap:.2e}",
        case.id,
        exact.auc()
    ));
    let run_range = recs_bench::verdict::Effect::range_of(&simulated.aucs);
    let exact_curve = ModelCurve::new(CurveKind::Croc, "random (exact expected)", &exact, 15.0);
    let simulated_curve =
        ModelCurve::from_points(CurveKind::Croc, "random (simulated mean)", simulated.mean.clone());
    let single_curve = ModelCurve::from_points(CurveKind::Croc, "random (one run)", single);
    let band: Vec<[f64; 3]> = simulated
        .mean
        .iter()
        .zip(simulated.lower.iter().zip(&simulated.upper))
        .map(|(m, (lo, hi))| [m[0], lo[1], hi[1]])
        .collect();
    let line = |label: String, points: Vec<[f64; 2]>, band: Vec<[f64; 3]>| {
        let ends = [points[0], points[points.len() - 1]].to_vec();
        Line { label, points, band, markers: ends }
    };
    let figure = Figure::lines(
        case.id,
        case.file,
        case.title,
        ["false-alarm rate (CROC)", "hit rate"],
        &[
            line(format!("simulated mean of {runs} runs, 95% band"), simulated.mean.clone(), band),
            line("exact expected curve".into(), exact_points.to_vec(), Vec::new()),
            line("one random run".into(), single_curve.report.points.clone(), Vec::new()),
            line("diagonal".into(), vec![[0.0, 0.0], [1.0, 1.0]], Vec::new()),
        ],
    );
    let experiment = Experiment {
        id: case.id.into(),
        protocol: case.protocol.into(),
        mode: case.mode.into(),
        candidates: judgments.n_candidates() as u64,
        positives: judgments.n_relevant(1.0) as u64,
        curves: vec![
            exact_curve.report.clone(),
            simulated_curve.report.clone(),
            single_curve.report.clone(),
        ],
        tables: vec![Table {
            name: format!("Exact expected vs simulated ({runs} runs) vs one run vs diagonal"),
            columns: [
                "exact AUC",
                "simulated-mean AUC",
                "one-run AUC",
                "max |TPR − FPR| (exact)",
                "max gap exact vs simulated mean",
                "exact inside the pointwise 95% band at every k",
                "one-run AUC, 2.5% of runs",
                "one-run AUC, 97.5% of runs",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![vec![
                json!(exact.auc()),
                json!(simulated_curve.exact_auc),
                json!(single_curve.exact_auc),
                json!(diagonal_gap),
                json!(simulation_gap),
                json!(inside_band),
                json!(run_range.low),
                json!(run_range.high),
            ]],
        }],
    };
    Ok((experiment, figure, simulated.aucs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewer_candidates_with_more_positives_correlate_negatively() {
        // Two candidates, both positive; four candidates, one positive.
        let mut b = Judgments::builder(2, 4);
        b.push_user(0, &[0, 1], &[1.0, 1.0]).unwrap();
        b.push_user(1, &[0, 1, 2, 3], &[1.0, 0.0, 0.0, 0.0]).unwrap();
        let judgments = b.build().unwrap();
        assert!((length_and_rate(&judgments).unwrap() + 1.0).abs() < 1e-12);
        // Then the exact random CROC lies above the diagonal.
        assert!(recs_metrics::random_croc(&judgments, 1.0).unwrap().auc() > 0.5);
        let mut even = Judgments::builder(2, 2);
        even.push_user(0, &[0, 1], &[1.0, 0.0]).unwrap();
        even.push_user(1, &[0, 1], &[0.0, 1.0]).unwrap();
        assert_eq!(length_and_rate(&even.build().unwrap()), None, "equal lengths");
    }
}
