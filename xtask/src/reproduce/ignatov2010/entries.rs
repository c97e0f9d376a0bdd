//! The report entries of the paper's experiments: each sweep's table of the paper's
//! measures and its figures, the similarity measures with the undefined Pearson pairs,
//! and the conventions set against the plain definitions.

use anyhow::Result;
use recs_bench::report::{Experiment, Table};
use recs_bench::{Figure, Results};
use recs_core::Interactions;
use serde_json::json;

use super::claims::{ITEM, USER};
use super::hidden::{self, Keys, WITHOUT_HIDDEN_EVENTS, WITHOUT_HIDDEN_LISTED};
use super::pearson;
use super::sweep::{self, Sweep, line};

/// A sweep's report entry, with its figures added to `figures`.
pub(super) fn sweep_experiment(sweep: &Sweep, figures: &mut Vec<Figure>) -> Experiment {
    let table = sweep_table(sweep, &format!("Recall and precision against {}", sweep.axis));
    sweep_figures(sweep, &sweep.id, figures);
    experiment(&sweep.id, &sweep.protocol, sweep.candidates, sweep.positives, vec![table])
}

/// The paper's recall and precision, with the usual precision (hits / n), at every point.
pub(super) fn sweep_table(sweep: &Sweep, name: &str) -> Table {
    let keys = sweep.keys();
    let usual = format!("p@{}", sweep.list_length);
    let name = format!(
        "{name} ({}; 95% intervals over repetitions)",
        repetitions_text(sweep.repetitions())
    );
    sweep.table(&name, &[&keys.recall, &keys.precision, &usual])
}

/// `10 repetitions of the cross-validation`, in words for table names.
pub(super) fn repetitions_text(repetitions: usize) -> String {
    match repetitions {
        1 => "one split, the quick run".to_string(),
        n => format!("{n} repetitions of the cross-validation"),
    }
}

/// Recall and precision figures of a sweep, shown under report experiment `experiment`.
pub(super) fn sweep_figures(sweep: &Sweep, experiment: &str, figures: &mut Vec<Figure>) {
    let keys = sweep.keys();
    for (key, word) in [(&keys.recall, "recall"), (&keys.precision, "precision")] {
        figures.push(sweep.figure(
            experiment,
            &format!("{}-{word}.svg", sweep.id),
            &format!("{} — {key} (95% band)", sweep.title),
            key,
        ));
    }
}

fn experiment(
    id: &str,
    protocol: &str,
    candidates: u64,
    positives: u64,
    tables: Vec<Table>,
) -> Experiment {
    Experiment {
        id: id.to_string(),
        protocol: protocol.to_string(),
        mode: "implicit".to_string(),
        candidates,
        positives,
        curves: Vec::new(),
        tables,
    }
}

/// Every similarity measure at 10 hidden columns, and how often trimmed Pearson is
/// undefined on MovieLens 100K as ratings and as binary data.
pub(super) fn similarities_experiment(
    run: &(Results, Experiment),
    keys: &Keys,
    ratings: &recs_core::Interactions,
) -> Result<Experiment> {
    let (results, first) = run;
    let mut rows = Vec::new();
    for model in results.models() {
        let label = model.label();
        let cell = |key: &str| sweep::estimate_of(results, label, key);
        let mut row = vec![json!(label)];
        for key in [&keys.recall, &keys.precision, &keys.recall_plain, &keys.precision_plain] {
            let e = cell(key);
            row.push(e.map_or(json!(null), |e| json!(e.mean)));
            row.push(e.and_then(|e| e.half_width).map_or(json!(null), |h| json!(h)));
        }
        rows.push(row);
    }
    let mut columns = vec!["model".to_string()];
    for key in [&keys.recall, &keys.precision, &keys.recall_plain, &keys.precision_plain] {
        columns.push(key.clone());
        columns.push(format!("{key} ±95%"));
    }
    let measures = Table {
        name: format!(
            "Every similarity measure at 10 hidden columns ({}; 95% intervals over repetitions)",
            repetitions_text(sweep::repetitions(results))
        ),
        columns,
        rows,
    };
    let users = pearson::user_pairs(ratings);
    let items = pearson::user_pairs(&pearson::transpose(ratings)?);
    let mut pair_rows = Vec::new();
    for (values, users, items) in
        [("ratings 1-5", users, items), ("binary", users.binary(), items.binary())]
    {
        for (axis, counts) in [("users", users), ("items", items)] {
            pair_rows.push(vec![
                json!(axis),
                json!(values),
                json!(counts.sharing),
                json!(counts.one_common),
                json!(counts.constant),
                json!(counts.undefined()),
                json!(counts.undefined() as f64 / counts.sharing.max(1) as f64),
            ]);
        }
    }
    let pairs = Table {
        name: "Pearson trimmed to co-rated entries on MovieLens 100K: pairs where it is undefined \
               (the models then use the correlation of the untrimmed vectors, missing = 0)"
            .to_string(),
        columns: [
            "pairs of",
            "values",
            "pairs sharing an entry",
            "one common entry",
            "constant on the common entries",
            "undefined",
            "share undefined",
        ]
        .map(String::from)
        .to_vec(),
        rows: pair_rows,
    };
    Ok(experiment(
        "similarities",
        &first.protocol,
        first.candidates,
        first.positives,
        vec![measures, pairs],
    ))
}

/// The share of test users without a hidden event, measured (mean over the splits of the
/// user-based runs) and its exact expectation over draws of the hidden columns.
fn expected_table(count: &Sweep, fraction: &Sweep, data: &Interactions) -> Table {
    let counts = data.item_counts();
    let n_items = counts.iter().filter(|&&c| c > 0).count();
    let lengths: Vec<usize> =
        (0..data.n_users() as u32).map(|u| data.user_items(u).len()).filter(|&d| d > 0).collect();
    let mut rows = Vec::new();
    for (sweep, percent) in [(count, false), (fraction, true)] {
        for (x, measured) in sweep.series(USER, WITHOUT_HIDDEN_EVENTS) {
            let hidden =
                if percent { (x / 100.0 * n_items as f64).round() as usize } else { x as usize };
            rows.push(vec![
                json!(sweep.axis),
                json!(x),
                json!(hidden),
                json!(measured.mean),
                json!(measured.half_width),
                json!(hidden::expected_without_hidden_events(&lengths, n_items, hidden)),
            ]);
        }
    }
    Table {
        name: "Test users without a hidden event: measured over the splits against the exact \
               expectation over draws of the hidden columns (the mean over users of \
               C(n − d, h) / C(n, h))"
            .into(),
        columns: [
            "sweep",
            "value",
            "hidden columns",
            "measured share",
            "measured ±95%",
            "expected share",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// The paper's conventions against the plain definitions on the MovieLens sweeps, and
/// the lists drawn from the hidden columns only; figures are added to `figures`.
pub(super) fn conventions_experiment(
    count: &Sweep,
    fraction: &Sweep,
    hidden_only: &Sweep,
    data: &Interactions,
    figures: &mut Vec<Figure>,
) -> Experiment {
    let keys = count.keys();
    let compared = [
        keys.recall.as_str(),
        &keys.recall_plain,
        &keys.precision,
        &keys.precision_plain,
        WITHOUT_HIDDEN_EVENTS,
        WITHOUT_HIDDEN_LISTED,
    ];
    let tables = vec![
        count.table(
            "Conventions against plain definitions, by hidden columns (the fig2-3 runs)",
            &compared,
        ),
        fraction.table(
            "Conventions against plain definitions, by hidden fraction (the hidden-fraction runs)",
            &compared,
        ),
        hidden_only.table(
            "Lists drawn from the hidden columns only (the other reading of §4), filled up to \
             the list length with zero-score items, and unpadded (only items with a positive \
             score)",
            &[
                &keys.recall,
                &keys.precision,
                &keys.recall_unpadded,
                &keys.precision_unpadded,
                WITHOUT_HIDDEN_EVENTS,
            ],
        ),
        expected_table(count, fraction, data),
    ];
    for (key, plain, word) in [
        (&keys.recall, &keys.recall_plain, "recall"),
        (&keys.precision, &keys.precision_plain, "precision"),
    ] {
        let mut drawn = Vec::new();
        for label in [USER, ITEM] {
            drawn.push(line(&format!("{label}, conventions"), &count.series(label, key)));
            drawn.push(line(&format!("{label}, plain"), &count.series(label, plain)));
        }
        drawn.push(line(&format!("{USER}, hidden columns only"), &hidden_only.series(USER, key)));
        figures.push(Figure::lines(
            "conventions",
            &format!("conventions-{word}.svg"),
            &format!("{key} with and without the conventions (95% band)"),
            [&count.axis, key],
            &drawn,
        ));
    }
    let protocol = format!(
        "the fig2-3-hidden-count and hidden-fraction runs; lists from the hidden columns only: {}",
        hidden_only.protocol
    );
    experiment("conventions", &protocol, count.candidates, count.positives, tables)
}
