//! The items' training popularity that `recs eval` and `recs compare` hand to the
//! popularity, novelty and exposure metrics (`arp@N`, `epc@N`, `gini@N`, ...), read from
//! `--train` and mapped onto the items of the qrels.

use std::path::Path;

use recs_metrics::io::Qrels;
use recs_metrics::{HeadRule, Metric, Popularity};

/// `--head-share` and `--head-items`: which items form the popularity head.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HeadArgs {
    /// The popularity head of aplt@N and aclt@N: the fewest most popular training items
    /// holding this share of the training events (cremonesi2008's half by default;
    /// equal popularity by item, in the qrels' item order).
    #[arg(long, value_name = "SHARE", conflicts_with = "head_items")]
    head_share: Option<f64>,
    /// The popularity head as this many most popular training items instead.
    #[arg(long, value_name = "N")]
    head_items: Option<usize>,
}

impl HeadArgs {
    /// The head rule asked for ([`HeadRule::default`] when neither option is given).
    pub(crate) fn rule(&self) -> HeadRule {
        match (self.head_share, self.head_items) {
            (_, Some(n)) => HeadRule::Items(n),
            (Some(share), None) => HeadRule::Share(share),
            (None, None) => HeadRule::default(),
        }
    }

    /// Whether either option was given (they need a metric that reads the head).
    pub(crate) fn given(&self) -> bool {
        self.head_share.is_some() || self.head_items.is_some()
    }
}

/// The training events read for the popularity metrics, when any of `metrics` needs
/// them: `Ok(None)` when none does.
///
/// # Errors
/// A popularity metric without `--train`, or a training file that cannot be read.
pub(crate) fn training(
    metrics: &[Metric],
    train: Option<&Path>,
    head: &HeadArgs,
) -> anyhow::Result<Option<recs_data::Dataset>> {
    let Some(metric) = metrics.iter().find(|m| m.needs_popularity()) else {
        if head.given() {
            anyhow::bail!(
                "--head-share and --head-items set the head of aplt@N and aclt@N; no \
                 popularity metric was asked for"
            );
        }
        return Ok(None);
    };
    let Some(path) = train else {
        anyhow::bail!(
            "{metric} needs the items' training popularity: give the training events with \
             --train FILE"
        );
    };
    Ok(Some(crate::format::read_train(path)?))
}

/// The popularity of `qrels`' items in `train` ([`Popularity::of_pairs`] of its events).
///
/// # Errors
/// [`Popularity::new`]'s: no training user, or a head rule out of its domain.
pub(crate) fn of_qrels(
    train: &recs_data::Dataset,
    qrels: &Qrels,
    rule: HeadRule,
) -> anyhow::Result<Popularity> {
    let pairs = train
        .interactions
        .events()
        .filter_map(|e| Some((train.users.external(e.user)?, train.items.external(e.item)?)));
    Ok(Popularity::of_pairs(qrels, pairs, rule)?)
}
