//! `cargo xtask reproduce ignatov2010`: Ignatov, Poelmans, Dedene & Viaene (2010), "A New
//! Cross-Validation Technique to Evaluate Quality of Recommender Systems", end to end.
//!
//! The paper splits both axes: users into training and test folds, and item columns into
//! visible and hidden ones; a test user shows a model only its visible events, gets a
//! top-n list, and only hidden columns count (§4). Experiments (ids as in `report.json`),
//! each a runner configuration in `xtask/experiments/ignatov2010/` run at every value of
//! one setting (a *sweep*):
//! - `fig2-3-hidden-count` — MovieLens 100K as binary data, 10 folds, 10 neighbours,
//!   top 10: recall and precision against 1..10 hidden columns and beyond (§5, Figures
//!   2-3), user-based (Pearson, tie-extended neighbourhood) and item-based kNN;
//! - `hidden-fraction` — the same against 1%..20% of the columns hidden (§5);
//! - `fig4-5-synthetic-neighbours` — the 20 × 20 block data, against the number of
//!   neighbours (§5, Figures 4-5); `synthetic-test-size` — against the test-set size;
//! - `similarities` — every similarity measure of §3 at 10 hidden columns, with how often
//!   Pearson trimmed to co-rated entries is undefined (§3's `(5, 5)` vs `(4, 5)`);
//! - `conventions` — the paper's zero-denominator conventions against the plain
//!   definitions, and the reading in which lists are drawn from the hidden columns only.
//!
//! The measures themselves are in [`hidden`]; the claims, with the numeric meaning of
//! "slightly", "stable" and "fewer" fixed before any result, in [`claims`].

mod blocks;
mod check;
pub(crate) mod claims;
mod entries;
mod hamming;
mod hidden;
mod pearson;
pub(crate) mod sweep;

use anyhow::{Context, Result, bail};
use recs_bench::report::Experiment;
use recs_bench::{Config, ProtocolChoice, Results, Silent};
use recs_split::{Amount, Protocol};

pub(crate) use self::check::check;
use self::claims::{ITEM, USER};
use self::entries::{
    conventions_experiment, similarities_experiment, sweep_experiment, sweep_figures, sweep_table,
};
use self::hidden::{Keys, Length};
use self::sweep::{Point, Sweep};
use super::{Lines, Options, finish};

/// The paper's name, as `cargo xtask reproduce` takes it.
const PAPER: &str = "ignatov2010";

/// Hidden columns of Figures 2-3: the paper's 1..10, then beyond to show the trend.
const HIDDEN_COUNTS: &[f64] = &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 12., 15., 20., 30., 50.];
/// Hidden fractions, in percent of the item columns (§5: "from 1% to 20%").
const HIDDEN_PERCENTS: &[f64] =
    &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 16., 17., 18., 19., 20.];
/// Neighbours on the synthetic data.
const NEIGHBOURS: &[f64] = &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10.];
/// Test-set sizes on the synthetic data, in percent of the users (one fold of 10, 5, 4,
/// 3 and 2).
const TEST_PERCENTS: &[f64] = &[10., 20., 25., 100. / 3., 50.];
/// Hidden columns for the lists drawn from the hidden columns only.
const HIDDEN_ONLY_COUNTS: &[f64] = &[1., 5., 10., 20., 50.];

/// The experiment ids of the report, in order.
const EXPERIMENTS: [&str; 6] = [
    "fig2-3-hidden-count",
    "hidden-fraction",
    "fig4-5-synthetic-neighbours",
    "synthetic-test-size",
    "similarities",
    "conventions",
];
/// The claim ids of the report.
const CLAIMS: [&str; 11] = ["I1", "I2", "I3", "I4", "I5", "I6", "I7", "I8", "I9", "I10", "I11"];
/// The fractions of I7 ("at 6-7%"), run with more repetitions than the fraction sweep.
const SIX_TO_SEVEN: &[f64] = &[6., 7.];
/// §6's conclusion (I6), "for 10 hidden items", run with more repetitions than the count
/// sweep.
const CONCLUSION: &[f64] = &[10.];
/// The ends of the fraction sweep (I2), run with more repetitions than the sweep.
const FRACTION_ENDS: &[f64] = &[1., 20.];

pub(crate) fn run(options: &Options) -> Result<()> {
    let lines = Lines::new();
    let runner = Runner { options, session: options.session(), lines: &lines };
    let count = runner.sweep(
        "fig2-3-hidden-count",
        "hidden item columns",
        HIDDEN_COUNTS,
        Draws::Independent,
        set_hidden(false),
    )?;
    let conclusion = runner.sweep(
        "hidden-count-10",
        "hidden item columns",
        CONCLUSION,
        Draws::Independent,
        set_hidden(false),
    )?;
    let fraction = runner.sweep(
        "hidden-fraction",
        "hidden item columns (% of 1682)",
        HIDDEN_PERCENTS,
        Draws::Independent,
        set_hidden(true),
    )?;
    let fraction_ends = runner.sweep(
        "hidden-fraction-ends",
        "hidden item columns (% of 1682)",
        FRACTION_ENDS,
        Draws::Independent,
        set_hidden(true),
    )?;
    let six_to_seven = runner.sweep(
        "hidden-fraction-6-7",
        "hidden item columns (% of 1682)",
        SIX_TO_SEVEN,
        Draws::Independent,
        set_hidden(true),
    )?;
    let neighbours = runner.sweep(
        "fig4-5-synthetic-neighbours",
        "neighbours k",
        NEIGHBOURS,
        Draws::Shared,
        set_neighbours,
    )?;
    let neighbours_weak = runner.sweep(
        "fig4-5-synthetic-neighbours-weak",
        "neighbours k",
        NEIGHBOURS,
        Draws::Shared,
        set_neighbours,
    )?;
    let neighbours_overlapping = runner.sweep(
        "fig4-5-synthetic-neighbours-overlapping",
        "neighbours k",
        NEIGHBOURS,
        Draws::Shared,
        set_neighbours,
    )?;
    let test_size = runner.sweep(
        "synthetic-test-size",
        "test set (% of users)",
        TEST_PERCENTS,
        Draws::Shared,
        set_test_share,
    )?;
    let test_size_overlapping = runner.sweep(
        "synthetic-test-size-overlapping",
        "test set (% of users)",
        TEST_PERCENTS,
        Draws::Shared,
        set_test_share,
    )?;
    let similarities = runner.single("similarities")?;
    let hidden_only = runner.sweep(
        "hidden-only-candidates",
        "hidden item columns",
        HIDDEN_ONLY_COUNTS,
        Draws::Independent,
        set_hidden(false),
    )?;

    // Our recall is the metric crate's recall under `zero = "ignatov"`: check every split.
    // When lists are drawn from the hidden columns only, the crate's precision under that
    // policy is the paper's too (it divides by min(n, hidden columns)): check ours on it.
    for sweep in [
        &count,
        &conclusion,
        &fraction,
        &fraction_ends,
        &six_to_seven,
        &neighbours,
        &neighbours_weak,
        &neighbours_overlapping,
        &test_size,
        &test_size_overlapping,
        &hidden_only,
    ] {
        for &length in &sweep.list_lengths {
            if let Length::Top(n) = length {
                sweep::ensure_equal(sweep, &Keys::new(n).recall, &format!("r@{n}"))?;
            }
        }
    }
    let usual_precision = format!("p@{}", hidden_only.list_length);
    sweep::ensure_equal(&hidden_only, &hidden_only.keys().precision, &usual_precision)?;
    let (ml, synthetic) = (count.keys(), neighbours.keys());
    let claim_keys = claims::ClaimKeys { ml: &ml, synthetic: &synthetic };
    let sweeps = claims::ClaimSweeps {
        hidden_count: &count,
        conclusion: &conclusion,
        fraction_ends: &fraction_ends,
        six_to_seven: &six_to_seven,
        hidden_only: &hidden_only,
        neighbours: &neighbours,
        neighbours_overlapping: &neighbours_overlapping,
        neighbours_weak: &neighbours_weak,
        test_size: &test_size,
        test_size_overlapping: &test_size_overlapping,
    };
    let mut claims = claims::claims(&sweeps, &claim_keys)?;
    let hamming = hamming::curve(hamming::MAX_DISTANCE)?;
    claims.push(hamming::claim(&hamming)?);
    // In id order: I10 (Figure 1) comes from `hamming`, after the others were built.
    claims.sort_by_key(|c| c.id.trim_start_matches('I').parse::<u32>().unwrap_or(u32::MAX));

    let ratings = recs_data::load_named("ml-100k", &options.resolver())?.interactions;
    let mut experiments = Vec::new();
    let mut figures = Vec::new();
    for sweep in [&count, &fraction, &neighbours, &test_size] {
        experiments.push(sweep_experiment(sweep, &mut figures));
    }
    if let Some(entry) = experiments.iter_mut().find(|e| e.id == count.id) {
        let more = "Both models (the item model at its three readings) at 10 hidden columns, 100 repetitions (I6)";
        entry.tables.push(sweep_table(&conclusion, more));
    }
    if let Some(entry) = experiments.iter_mut().find(|e| e.id == neighbours.id) {
        let weak = "Test users' visible events in the training data (weak generalization)";
        entry.tables.push(sweep_table(&neighbours_weak, weak));
        sweep_figures(&neighbours_weak, &neighbours.id, &mut figures);
        let overlapping = "Overlapping blocks (neighbouring rectangles share two item columns)";
        entry.tables.push(sweep_table(&neighbours_overlapping, overlapping));
        sweep_figures(&neighbours_overlapping, &neighbours.id, &mut figures);
    }
    if let Some(entry) = experiments.iter_mut().find(|e| e.id == test_size.id) {
        let overlapping = "Overlapping blocks (neighbouring rectangles share two item columns)";
        entry.tables.push(sweep_table(&test_size_overlapping, overlapping));
        sweep_figures(&test_size_overlapping, &test_size.id, &mut figures);
    }
    if let Some(entry) = experiments.iter_mut().find(|e| e.id == fraction.id) {
        let ends = "Both models (the item model at its three readings) and a random placebo at 1% and 20%, 100 repetitions (I2)";
        entry.tables.push(sweep_table(&fraction_ends, ends));
        let more = "The user-based model and a random placebo at 6% and 7%, 100 repetitions (I7)";
        entry.tables.push(sweep_table(&six_to_seven, more));
    }
    let mut similarities = similarities_experiment(&similarities, &ml, &ratings)?;
    similarities.tables.push(hamming::table(&hamming));
    figures.push(hamming::figure(&hamming));
    experiments.push(similarities);
    experiments.push(conventions_experiment(
        &count,
        &fraction,
        &hidden_only,
        &ratings,
        &mut figures,
    ));

    let notes = notes(options, &lines, &count, &neighbours);
    let (mut report, mut extras) =
        runner.session.report(PAPER, options.seed, Vec::new(), claims, &notes)?;
    for sweep in [&count, &neighbours, &neighbours_overlapping] {
        report.datasets.push(sweep.dataset.clone());
    }
    report.experiments = experiments;
    extras.figures = figures;
    extras.intro = intro(&runner, options)?;
    finish(options, &report, &extras, &check(&report), &lines)
}

/// What every experiment of the paper shares while running.
struct Runner<'a> {
    options: &'a Options,
    session: recs_bench::Session,
    lines: &'a Lines,
}

/// How the points of a sweep draw their splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Draws {
    /// Every point runs the same splits (the swept value does not enter the split: the
    /// neighbours k, or the test share, which sets the folds itself).
    Shared,
    /// Each point draws its own splits from a seed of its own. The hidden columns are
    /// drawn by a shuffle whose first columns do not depend on how many are hidden, so
    /// with one seed the columns hidden at 1 would be among those hidden at 2, and so on:
    /// nested draws, not independent ones.
    Independent,
}

impl Runner<'_> {
    /// Runs experiment file `name` once per value of `xs`, `set` writing the value into
    /// the configuration; the paper's measures are added for the file's list length.
    fn sweep(
        &self,
        name: &str,
        axis: &str,
        xs: &[f64],
        draws: Draws,
        set: impl Fn(&mut Config, f64) -> Result<()>,
    ) -> Result<Sweep> {
        let (config, source) = self.options.config(PAPER, name)?;
        let n = list_length(&config)?;
        let lengths = list_lengths(&config);
        let keys = Keys::new(n);
        let mut points = Vec::with_capacity(xs.len());
        let mut first = None;
        for (index, &x) in xs.iter().enumerate() {
            let mut varied = config.clone();
            set(&mut varied, x)?;
            let mut plan = self.options.checked(&varied, &source)?;
            if draws == Draws::Independent {
                plan = plan.with_seed(recs_core::mix64(self.options.seed ^ (index as u64 + 1)));
            }
            for (index, &length) in lengths.iter().enumerate() {
                for measure in hidden::measures(length, index == 0) {
                    plan = plan.with_measure(measure)?;
                }
            }
            let run = self.session.run(&plan, &Silent)?;
            let show = |label: &str| {
                let at = |key: &str| {
                    run.results.mean(label, key).map_or("-".into(), |v| format!("{v:.4}"))
                };
                format!(
                    "{label} {} {}, {} {}",
                    keys.recall,
                    at(&keys.recall),
                    keys.precision,
                    at(&keys.precision)
                )
            };
            self.lines.say(format!("{name} at {x:.4}: {}; {}", show(USER), show(ITEM)));
            if first.is_none() {
                first = Some((run.experiment.clone(), run.dataset.clone()));
            }
            points.push(Point { x, results: run.results });
        }
        let Some((experiment, dataset)) = first else { bail!("{name}: no point to run") };
        let values: Vec<String> =
            xs.iter().map(|x| format!("{}", (x * 100.0).round() / 100.0)).collect();
        Ok(Sweep {
            id: name.to_string(),
            title: config.title.clone().unwrap_or_else(|| name.to_string()),
            axis: axis.to_string(),
            protocol: format!(
                "{}; {axis}: {}{}",
                experiment.protocol,
                values.join(", "),
                match draws {
                    Draws::Shared => "; every point on the same splits",
                    Draws::Independent => "; each point on splits of its own (independent draws)",
                }
            ),
            candidates: experiment.candidates,
            positives: experiment.positives,
            dataset,
            labels: config.models.iter().map(|m| m.label().to_string()).collect(),
            list_length: n,
            list_lengths: lengths,
            points,
        })
    }

    /// Runs experiment file `name` as written.
    fn single(&self, name: &str) -> Result<(Results, Experiment)> {
        let (config, source) = self.options.config(PAPER, name)?;
        let mut plan = self.options.checked(&config, &source)?;
        for measure in hidden::measures(Length::Top(list_length(&config)?), true) {
            plan = plan.with_measure(measure)?;
        }
        self.lines.say(format!("{name}: running"));
        let run = self.session.run(&plan, &Silent)?;
        Ok((run.results, run.experiment))
    }
}

/// The list length `n` of an experiment file: the `N` of its `r@N` metric.
fn list_length(config: &Config) -> Result<usize> {
    config
        .evaluation
        .metrics
        .iter()
        .find_map(|m| m.strip_prefix("r@")?.parse().ok())
        .context("the experiment needs an `r@N` metric (the list length of the paper's measures)")
}

/// Every list length of an experiment file: the `N` of each `r@N` metric in order, without
/// repeats, the first being [`list_length`]. The others are the ends of that choice, and a
/// file that names such ends runs lists as long as the hidden columns as one more end (no
/// `r@N` of the metric crate can name a length that changes with the split).
fn list_lengths(config: &Config) -> Vec<Length> {
    let mut lengths = Vec::new();
    for n in config.evaluation.metrics.iter().filter_map(|m| m.strip_prefix("r@")?.parse().ok()) {
        if !lengths.contains(&Length::Top(n)) {
            lengths.push(Length::Top(n));
        }
    }
    if lengths.len() > 1 {
        lengths.push(Length::Hidden);
    }
    lengths
}

/// The hidden-items protocol of `config`, for a sweep to change.
fn hidden_items(config: &mut Config) -> Result<&mut Protocol> {
    match &mut config.protocol {
        ProtocolChoice::Generated(p @ Protocol::HiddenItems { .. }) => Ok(p),
        _ => bail!("{}: expected the hidden-items protocol", config.name),
    }
}

/// Sets the hidden columns: a count, or with `percent` a percentage of the columns.
fn set_hidden(percent: bool) -> impl Fn(&mut Config, f64) -> Result<()> {
    move |config, x| {
        if let Protocol::HiddenItems { hidden, .. } = hidden_items(config)? {
            *hidden = if percent { Amount::Fraction(x / 100.0) } else { Amount::Count(x as usize) };
        }
        Ok(())
    }
}

/// Sets the test set to `x`% of the users: one fold of `100 / x`.
fn set_test_share(config: &mut Config, x: f64) -> Result<()> {
    if let Protocol::HiddenItems { folds, .. } = hidden_items(config)? {
        *folds = (100.0 / x).round() as usize;
    }
    Ok(())
}

/// Sets every model's neighbourhood size.
fn set_neighbours(config: &mut Config, k: f64) -> Result<()> {
    for model in &mut config.models {
        model.params.insert("k".into(), toml::Value::Integer(k as i64));
    }
    Ok(())
}

/// The Markdown under the report's title: each experiment's description.
fn intro(runner: &Runner<'_>, options: &Options) -> Result<String> {
    let mut intro = String::from(
        "Every point is a runner experiment; means are over the repetitions' fold means, \
         with 95% t intervals over repetitions (none in a `--quick` run, which runs one split \
         per point).\n\n",
    );
    for name in [
        "fig2-3-hidden-count",
        "hidden-count-10",
        "hidden-fraction",
        "fig4-5-synthetic-neighbours",
        "fig4-5-synthetic-neighbours-weak",
        "fig4-5-synthetic-neighbours-overlapping",
        "synthetic-test-size",
        "synthetic-test-size-overlapping",
        "hidden-fraction-ends",
        "hidden-fraction-6-7",
        "similarities",
        "hidden-only-candidates",
    ] {
        let (config, _) = runner.options.config(PAPER, name)?;
        let splits = if options.quick {
            "1 split".to_string()
        } else {
            format!("{} repetition(s)", config.repetitions)
        };
        intro.push_str(&format!("**{name}** ({splits}). {}\n\n", config.description.trim()));
    }
    Ok(intro.trim_end().to_string())
}

/// The run's wall time and scale, after the claims.
fn notes(options: &Options, lines: &Lines, count: &Sweep, neighbours: &Sweep) -> String {
    format!(
        "\n## Run\n\nWall time {:.1} s ({} run, seed {}); at each point {} on MovieLens, {} on the \
         synthetic data.\n",
        lines.seconds(),
        if options.quick { "quick" } else { "full" },
        options.seed,
        entries::repetitions_text(count.repetitions()),
        entries::repetitions_text(neighbours.repetitions())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_length_comes_from_the_recall_metric() {
        let mut config = Config::from_toml(
            "name = \"t\"\n[dataset]\nsynthetic = \"ignatov-blocks\"\n[protocol]\nprotocol = \"hidden-items\"\n\
             [evaluation]\nmetrics = [\"p@3\", \"r@7\"]\n[[models]]\nname = \"user-knn\"\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(list_length(&config).unwrap(), 7);
        assert_eq!(list_lengths(&config), vec![Length::Top(7)]);
        config.evaluation.metrics = vec!["r@10".into(), "p@10".into(), "r@5".into(), "r@10".into()];
        assert_eq!(list_lengths(&config), vec![Length::Top(10), Length::Top(5), Length::Hidden]);
        set_neighbours(&mut config, 4.0).unwrap();
        assert_eq!(config.models[0].params["k"], toml::Value::Integer(4));
        set_test_share(&mut config, 25.0).unwrap();
        set_hidden(true)(&mut config, 5.0).unwrap();
        match config.protocol {
            ProtocolChoice::Generated(Protocol::HiddenItems { folds, hidden, .. }) => {
                assert_eq!((folds, hidden), (4, Amount::Fraction(0.05)));
            }
            other => panic!("{other:?}"),
        }
        config.evaluation.metrics = vec!["p@3".into()];
        assert!(list_length(&config).is_err());
    }
}
