//! One call that computes a list of metrics into named values: what `recs eval` prints.

use crate::beyond::ItemFacts;
use crate::croc::croc;
use crate::curve::Curve;
use crate::error::Result;
use crate::roc::{check_max_fpr, roc, roc_summary, user_averaged_auc};
use crate::scored::{Missing, Scored};
use crate::spec::Metric;
use crate::topn::{Options, PerUser, per_user_with};

/// Named metric values, counts and warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// `(key, value)` in the order the metrics were asked for; `None` when undefined
    /// (a warning says why). Keys: `roc_auc`, `roc_pauc@0.3`, `croc_auc`,
    /// `croc_pauc@0.3`, and each per-user metric's name (`p@10`, `map`, ...).
    pub values: Vec<(String, Option<f64>)>,
    /// Number of judged users.
    pub n_users: usize,
    /// Number of (user, candidate) pairs.
    pub n_candidates: usize,
    /// Number of relevant pairs.
    pub n_positives: usize,
    /// Number of users without a relevant candidate.
    pub n_users_without_relevant: usize,
    /// Number of candidates without a score (ranked lowest).
    pub n_missing: usize,
    /// Human-readable warnings.
    pub warnings: Vec<String>,
    /// The ROC curve, when asked for with `keep_curves`.
    pub roc: Option<Curve>,
    /// The CROC curve, when asked for with `keep_curves`.
    pub croc: Option<Curve>,
    /// The per-user values behind the per-user metrics (every metric but `roc`, `croc`
    /// and `user_auc`, in the order asked), for intervals, paired tests and group
    /// breakdowns without ranking again; `None` when no such metric was asked for.
    pub per_user: Option<PerUser>,
}

impl Report {
    /// The value under `key`, if present and defined.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.values.iter().find(|(k, _)| k == key).and_then(|(_, v)| *v)
    }
}

/// Computes `metrics` on `scored`. Partial AUCs are up to false-alarm rate `max_fpr`
/// (keys `roc_pauc@{max_fpr}`, not rescaled). With `keep_curves`, the ROC and CROC
/// curves are returned too.
///
/// ```
/// use recs_core::Judgments;
/// use recs_metrics::{Metric, Options, Scored, evaluate};
/// let mut builder = Judgments::builder(1, 3);
/// builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0])?;
/// let judgments = builder.build()?;
/// let scored = Scored::new(&judgments, &[0.2, 0.9, 0.1])?;
/// let metrics = Metric::parse_list("roc,p@1,mrr")?;
/// let report = evaluate(&scored, &metrics, &Options::default(), 0.3, false)?;
/// assert_eq!(report.get("roc_auc"), Some(0.5));
/// assert_eq!(report.get("p@1"), Some(0.0));
/// assert_eq!(report.get("mrr"), Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`crate::MetricsError::InvalidArgument`] for invalid options or `max_fpr`. Undefined values
/// are not errors: they are `None` with a warning.
pub fn evaluate(
    scored: &Scored<'_>,
    metrics: &[Metric],
    options: &Options,
    max_fpr: f64,
    keep_curves: bool,
) -> Result<Report> {
    evaluate_with(scored, metrics, options, max_fpr, keep_curves, ItemFacts::default())
}

/// [`evaluate`] with what is known of the items: their training popularity, for the
/// popularity, novelty and exposure metrics ([`Metric::needs_popularity`]), and their
/// attributes, for intra-list diversity ([`Metric::needs_attributes`]; see
/// [`crate::per_user_with`]).
///
/// # Errors
/// As [`evaluate`] and [`crate::per_user_with`].
pub fn evaluate_with(
    scored: &Scored<'_>,
    metrics: &[Metric],
    options: &Options,
    max_fpr: f64,
    keep_curves: bool,
    facts: ItemFacts<'_>,
) -> Result<Report> {
    options.check()?;
    check_max_fpr(max_fpr)?;
    let judgments = scored.judgments();
    let report = Report {
        values: Vec::new(),
        n_users: judgments.n_judged_users(),
        n_candidates: judgments.n_candidates(),
        n_positives: judgments.n_relevant(options.threshold),
        n_users_without_relevant: judgments
            .iter()
            .filter(|u| u.n_relevant(options.threshold) == 0)
            .count(),
        n_missing: scored.n_missing(),
        warnings: missing_warning(scored.n_missing(), judgments.n_candidates(), options.missing),
        roc: None,
        croc: None,
        per_user: None,
    };
    let per_user_metrics: Vec<Metric> = metrics
        .iter()
        .copied()
        .filter(|m| !matches!(m, Metric::Roc | Metric::Croc | Metric::UserAuc))
        .collect();
    let values = if per_user_metrics.is_empty() {
        None
    } else {
        Some(per_user_with(scored, &per_user_metrics, options, facts)?)
    };
    let threshold = options.threshold;
    // The areas always come from the summary (exact integers, rounded once), so keeping
    // the curve does not move them by a rounding.
    let pooled = |curve: bool| {
        let s = roc_summary(scored, threshold, max_fpr)?;
        let kept = if curve { Some(roc(scored, threshold)?) } else { None };
        Ok((s.auc, s.partial_auc, kept))
    };
    Ok(assemble(
        report,
        metrics,
        &per_user_metrics,
        values,
        max_fpr,
        keep_curves,
        pooled,
        || croc(scored, threshold),
        || user_averaged_auc(scored, threshold).map(|(v, _)| v),
    ))
}

/// The warning about candidates without a score, if any, under the `missing` policy.
pub(crate) fn missing_warning(
    n_missing: usize,
    n_candidates: usize,
    missing: Missing,
) -> Vec<String> {
    if n_missing == 0 {
        return Vec::new();
    }
    vec![match missing {
        Missing::Unranked => format!(
            "{n_missing} of {n_candidates} candidates have no score and are not ranked: \
             relevant ones still count in R and the ideal DCG (ROC and CROC place them last)"
        ),
        _ => format!("{n_missing} of {n_candidates} candidates have no score and rank lowest"),
    }]
}

/// Fills `report` (its counts set) with the values of `metrics` in the order asked: the
/// per-user means from `values` (computed for `per_user_metrics`), and the ROC family
/// from the three computations given, each called only when its metric is asked for.
/// `pooled(keep_curve)` gives the pooled AUC, partial AUC and, when asked, the curve.
#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    mut report: Report,
    metrics: &[Metric],
    per_user_metrics: &[Metric],
    values: Option<PerUser>,
    max_fpr: f64,
    keep_curves: bool,
    mut pooled: impl FnMut(bool) -> Result<(f64, f64, Option<Curve>)>,
    mut croc_curve: impl FnMut() -> Result<Curve>,
    mut user_auc: impl FnMut() -> Result<f64>,
) -> Report {
    let pauc_key = |name: &str| format!("{name}_pauc@{max_fpr}");
    let mut warn_excluded = false;
    for metric in metrics {
        match metric {
            Metric::Roc => {
                let result = pooled(keep_curves).map(|(auc, pauc, curve)| {
                    report.roc = curve;
                    (auc, pauc)
                });
                push_pair(&mut report, "roc_auc".into(), pauc_key("roc"), result);
            }
            Metric::Croc => {
                let result = croc_curve().map(|c| {
                    let v = (c.auc(), c.partial_auc(max_fpr));
                    if keep_curves {
                        report.croc = Some(c);
                    }
                    v
                });
                push_pair(&mut report, "croc_auc".into(), pauc_key("croc"), result);
            }
            Metric::UserAuc => match user_auc() {
                Ok(v) => report.values.push(("user_auc".into(), Some(v))),
                Err(e) => {
                    report.warnings.push(format!("user_auc: {e}"));
                    report.values.push(("user_auc".into(), None));
                }
            },
            other => {
                let column = per_user_metrics.iter().position(|m| m == other);
                let summary = values.as_ref().zip(column).map(|(v, c)| v.summary(c));
                warn_excluded |= summary.is_some_and(|s| s.n_excluded > 0);
                report.values.push((other.to_string(), summary.and_then(|s| s.value)));
            }
        }
    }
    report.per_user = values;
    if warn_excluded && report.n_users_without_relevant > 0 {
        report.warnings.push(format!(
            "{} users without a relevant candidate are left out of per-user means",
            report.n_users_without_relevant
        ));
    }
    report
}

fn push_pair(report: &mut Report, auc_key: String, pauc_key: String, result: Result<(f64, f64)>) {
    match result {
        Ok((auc, pauc)) => {
            report.values.push((auc_key, Some(auc)));
            report.values.push((pauc_key, Some(pauc)));
        }
        Err(e) => {
            report.warnings.push(e.to_string());
            report.values.push((auc_key, None));
            report.values.push((pauc_key, None));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topn::per_user;
    use recs_core::Judgments;

    #[test]
    fn the_per_user_values_are_those_of_per_user() {
        let mut builder = Judgments::builder(2, 3);
        builder.push_user(0, &[0, 1, 2], &[1.0, 0.0, 0.0]).unwrap();
        builder.push_user(1, &[0, 2], &[0.0, 1.0]).unwrap();
        let judgments = builder.build().unwrap();
        let scores = [0.2, 0.9, 0.1, 0.5, 0.7];
        let scored = Scored::new(&judgments, &scores).unwrap();
        let options = Options::default();
        let metrics = Metric::parse_list("roc,mrr,p@1").unwrap();
        let report = evaluate(&scored, &metrics, &options, 0.3, false).unwrap();
        let expected = per_user(&scored, &[Metric::Mrr, Metric::Precision(1)], &options).unwrap();
        assert_eq!(report.per_user.as_ref(), Some(&expected));
        assert_eq!(expected.column(0), vec![0.5, 1.0]);
        let pooled_only = evaluate(&scored, &[Metric::Roc], &options, 0.3, false).unwrap();
        assert!(pooled_only.per_user.is_none());
    }
}
