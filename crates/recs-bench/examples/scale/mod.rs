//! The data and helpers the `*_scale` examples share: synthetic events of a given shape,
//! 20% of each user's events held out, the full catalog judged, a PureSVD fitted.

use std::time::Instant;

use recs_core::{Fit, TrainData};
use recs_data::PowerLaw;
use recs_models_latent::{PureSvd, PureSvdParams};
use recs_split::{Amount, CatalogJudgments, JudgmentOptions, Protocol, Split, SplitId};

/// The split, its full-catalog judgments and a PureSVD of `rank` fitted to its training
/// part, each step timed on stdout. The events are `recs data synth --seed 1
/// --user-exponent 0.8` with these numbers and its other defaults.
pub(crate) fn fitted_split(
    n_users: usize,
    n_items: usize,
    n_events: usize,
    rank: usize,
) -> Result<(Split, CatalogJudgments, PureSvd), Box<dyn std::error::Error>> {
    let started = Instant::now();
    let data = PowerLaw {
        n_users,
        n_items,
        n_events: n_events as u64,
        seed: 1,
        user_exponent: 0.8,
        ..PowerLaw::default()
    }
    .generate()?;
    let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = protocol.split(&data.interactions, 1, SplitId::default())?;
    let catalog = split
        .catalog_judgments(&JudgmentOptions::implicit())?
        .ok_or("a leave-k-out split judges the full catalog")?;
    println!(
        "data: {n_users} users × {n_items} items, {} events, {} test events ({:.1} s)",
        data.interactions.n_events(),
        split.test().n_events(),
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let model = PureSvdParams::new(rank)?.fit(&TrainData::new(split.train(), 1))?;
    println!("fit PureSVD rank {rank}: {:.1} s", started.elapsed().as_secs_f64());
    Ok((split, catalog, model))
}

/// The process's peak resident memory (`VmHWM`), on Linux.
pub(crate) fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(format!("{:.2} GiB", kib / (1024.0 * 1024.0)))
}

/// A report's values, `key value` with four decimals (`-` for an undefined one).
pub(crate) fn shown(report: &recs_metrics::Report) -> String {
    let values: Vec<String> = report
        .values
        .iter()
        .map(|(k, v)| format!("{k} {}", v.map_or("-".into(), |v| format!("{v:.4}"))))
        .collect();
    values.join(", ")
}

/// Numbers given on the command line (`_` and `,` allowed as digit separators), and the
/// `i`-th of them or `default` through [`Numbers::get`].
pub(crate) struct Numbers(Vec<usize>);

impl Numbers {
    pub(crate) fn parse(
        args: impl IntoIterator<Item = String>,
    ) -> Result<Numbers, std::num::ParseIntError> {
        let parsed = args.into_iter().map(|a| a.replace(['_', ','], "").parse());
        Ok(Numbers(parsed.collect::<Result<_, _>>()?))
    }

    pub(crate) fn get(&self, i: usize, default: usize) -> usize {
        self.0.get(i).copied().unwrap_or(default)
    }
}
