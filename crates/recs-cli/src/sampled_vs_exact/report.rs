//! What `--sampled-vs-exact` prints: per run, metric and estimator, the exact value, the
//! estimated value of each seed with their mean and standard deviation and the error;
//! across runs, Kendall's τ and the reversed pairs. As JSON (`--json`) or a table.

use recs_sampled::versus::{RunValues, orders, spread};
use recs_sampled::{Correction, RankMetric};
use recs_split::SampleBy;
use serde_json::{Map, Value, json};

/// What was compared, and on what.
pub(crate) struct Setup {
    pub(crate) negatives: usize,
    pub(crate) by: SampleBy,
    pub(crate) seeds: Vec<u64>,
    pub(crate) metrics: Vec<RankMetric>,
    pub(crate) corrections: Vec<Correction>,
    pub(crate) n_users: usize,
    pub(crate) n_instances: usize,
    pub(crate) n_sizes: usize,
}

/// One run's numbers and how its file was read.
pub(crate) struct RunReport {
    pub(crate) name: String,
    pub(crate) n_missing: usize,
    pub(crate) n_ignored: usize,
    pub(crate) values: RunValues,
}

/// The values of each run, in order.
fn values_of(runs: &[RunReport]) -> Vec<&RunValues> {
    runs.iter().map(|r| &r.values).collect()
}

fn number(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!(x))
}

/// The report as JSON.
pub(crate) fn to_json(setup: &Setup, runs: &[RunReport], warnings: &[String]) -> Value {
    let names = |items: &[String]| json!(items);
    let metric_names: Vec<String> = setup.metrics.iter().map(ToString::to_string).collect();
    let correction_names: Vec<String> = setup.corrections.iter().map(ToString::to_string).collect();
    let mut out = Map::new();
    out.insert("mode".into(), json!("sampled-vs-exact"));
    out.insert("negatives".into(), json!(setup.negatives));
    out.insert("sampling".into(), json!(setup.by.name()));
    out.insert("seeds".into(), json!(setup.seeds));
    out.insert("metrics".into(), names(&metric_names));
    out.insert("corrections".into(), names(&correction_names));
    out.insert("n_users".into(), json!(setup.n_users));
    out.insert("n_instances".into(), json!(setup.n_instances));
    out.insert("n_catalog_sizes".into(), json!(setup.n_sizes));
    let run_values: Vec<Value> = runs
        .iter()
        .map(|run| {
            let mut metrics = Map::new();
            for (k, name) in metric_names.iter().enumerate() {
                let exact = run.values.exact[k];
                let mut entry = Map::new();
                entry.insert("exact".into(), json!(exact));
                for (c, correction) in correction_names.iter().enumerate() {
                    let per_seed = &run.values.estimated[c][k];
                    let s = spread(per_seed, exact);
                    entry.insert(
                        correction.clone(),
                        json!({
                            "per_seed": per_seed,
                            "mean": s.mean,
                            "sd": number(s.sd),
                            "error": s.error,
                            "rmse": s.rmse,
                        }),
                    );
                }
                metrics.insert(name.clone(), Value::Object(entry));
            }
            json!({
                "run": run.name,
                "n_missing": run.n_missing,
                "n_ignored": run.n_ignored,
                "metrics": Value::Object(metrics),
            })
        })
        .collect();
    out.insert("runs".into(), Value::Array(run_values));
    if runs.len() >= 2 {
        let mut by_metric = Map::new();
        for (k, name) in metric_names.iter().enumerate() {
            let mut by_correction = Map::new();
            for (c, correction) in correction_names.iter().enumerate() {
                let o = orders(&values_of(runs), c, k, setup.seeds.len());
                let reversed: Vec<Value> = o
                    .reversed
                    .iter()
                    .map(|&(a, b, share)| json!({"runs": [runs[a].name, runs[b].name], "share": number(share)}))
                    .collect();
                by_correction.insert(
                    correction.clone(),
                    json!({
                        "kendall_tau": o.tau.iter().map(|t| number(*t)).collect::<Vec<_>>(),
                        "kendall_tau_mean": number(o.tau_mean),
                        "reversed": reversed,
                    }),
                );
            }
            by_metric.insert(name.clone(), Value::Object(by_correction));
        }
        out.insert("orders".into(), Value::Object(by_metric));
    }
    out.insert("warnings".into(), json!(warnings));
    Value::Object(out)
}

fn signed(v: f64) -> String {
    format!("{v:+.6}")
}

fn fixed(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.6}"))
}

/// The report as a table.
pub(crate) fn to_table(setup: &Setup, runs: &[RunReport]) -> String {
    let mut out = String::new();
    let seeds = match setup.seeds.as_slice() {
        [one] => format!("seed {one}"),
        many => format!("seeds {}..={} ({})", many[0], many[many.len() - 1], many.len()),
    };
    out.push_str(&format!(
        "sampled vs exact: {} negatives per user drawn {}, {seeds}; {} instances (relevant \
         items) of {} users, {} catalog sizes\n",
        setup.negatives,
        setup.by.name(),
        setup.n_instances,
        setup.n_users,
        setup.n_sizes
    ));
    let width = setup
        .corrections
        .iter()
        .map(|c| c.to_string().len())
        .chain(setup.metrics.iter().map(|m| m.to_string().len()))
        .max()
        .unwrap_or(0)
        .max(9);
    for run in runs {
        out.push_str(&format!("\nrun {}\n", run.name));
        out.push_str(&format!(
            "{:<width$}  {:<width$}  {:>10}  {:>10}  {:>10}  {:>10}\n",
            "metric", "estimator", "value", "sd", "error", "rmse"
        ));
        for (k, metric) in setup.metrics.iter().enumerate() {
            let exact = run.values.exact[k];
            out.push_str(&format!(
                "{:<width$}  {:<width$}  {:>10}\n",
                metric.to_string(),
                "exact",
                format!("{exact:.6}")
            ));
            for (c, correction) in setup.corrections.iter().enumerate() {
                let s = spread(&run.values.estimated[c][k], exact);
                out.push_str(&format!(
                    "{:<width$}  {:<width$}  {:>10}  {:>10}  {:>10}  {:>10}\n",
                    "",
                    correction.to_string(),
                    format!("{:.6}", s.mean),
                    fixed(s.sd),
                    signed(s.error),
                    format!("{:.6}", s.rmse)
                ));
            }
        }
    }
    if runs.len() >= 2 {
        out.push_str(&format!(
            "\norders of the {} runs: Kendall's τ between each estimator's order and the exact \
             one (mean over seeds), and the share of seeds that reverse each pair's exact order\n",
            runs.len()
        ));
        out.push_str(&format!(
            "{:<width$}  {:<width$}  {:>7}  reversed\n",
            "metric", "estimator", "tau"
        ));
        for (k, metric) in setup.metrics.iter().enumerate() {
            for (c, correction) in setup.corrections.iter().enumerate() {
                let o = orders(&values_of(runs), c, k, setup.seeds.len());
                let pairs: Vec<String> = o
                    .reversed
                    .iter()
                    .map(|&(a, b, share)| {
                        let share = share.map_or_else(|| "tie".into(), |s| format!("{s:.2}"));
                        format!("{} vs {} {share}", runs[a].name, runs[b].name)
                    })
                    .collect();
                let tau = o.tau_mean.map_or_else(|| "-".into(), |t| format!("{t:+.3}"));
                let name = if c == 0 { metric.to_string() } else { String::new() };
                out.push_str(&format!(
                    "{name:<width$}  {:<width$}  {tau:>7}  {}\n",
                    correction.to_string(),
                    pairs.join(", ")
                ));
            }
        }
    }
    out
}
