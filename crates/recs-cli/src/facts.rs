//! What `recs eval` and `recs compare` know of the items besides the scores, for the
//! metrics that read the lists' items: the training popularity of `arp@N`, `epc@N`,
//! `gini@N`, ... (`--train`), the attributes of `ild@N` (`--attributes`), and for
//! `miscal@N` both: the attributes of the listed items and of each user's training items,
//! each mapped onto the users and items of the qrels.

use std::path::{Path, PathBuf};

use anyhow::Context;
use recs_core::{IdMap, ItemAttributes};
use recs_metrics::io::Qrels;
use recs_metrics::{
    Calibration, DEFAULT_CALIBRATION_SMOOTHING, Diversity, HeadRule, KnownFacts, Metric,
    Popularity, Similarity,
};

/// `--head-share` and `--head-items`: which items form the popularity head.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct HeadArgs {
    /// The popularity head of aplt@N and aclt@N: the fewest most popular training items
    /// holding this share of the training events, and every item as popular as the last of
    /// them (cremonesi2008's half by default).
    #[arg(long, value_name = "SHARE", conflicts_with = "head_items")]
    head_share: Option<f64>,
    /// The popularity head as this many most popular training items instead.
    #[arg(long, value_name = "N")]
    head_items: Option<usize>,
    /// Item attributes for ild@N and ild_disc@N (intra-list diversity) and miscal@N (calibration):
    /// `item<TAB>rank<TAB>attribute` lines under a header, as `recs score --attributes`
    /// reads them (e.g. cast.tsv); items without a line have no attribute.
    #[arg(long, value_name = "FILE")]
    attributes: Option<PathBuf>,
    /// How ild@N compares two items' attributes: `cosine` or `jaccard`.
    #[arg(long, default_value_t)]
    similarity: Similarity,
    /// The smoothing α of miscal@N: the list's distribution is mixed with the history's,
    /// `(1 − α) q + α p` (Steck 2018 gives 0.01).
    #[arg(long, value_name = "ALPHA", default_value_t = DEFAULT_CALIBRATION_SMOOTHING)]
    calibration_alpha: f64,
}

impl HeadArgs {
    /// The head rule asked for ([`HeadRule::default`] when neither option is given).
    fn rule(&self) -> HeadRule {
        match (self.head_share, self.head_items) {
            (_, Some(n)) => HeadRule::Items(n),
            (Some(share), None) => HeadRule::Share(share),
            (None, None) => HeadRule::default(),
        }
    }
}

/// The training events and attribute file read for the metrics asked for.
pub(crate) struct Sources {
    train: Option<recs_data::Dataset>,
    head: HeadRule,
    /// The attribute file read once against its own items, and the similarity.
    attributes: Option<(IdMap, ItemAttributes, Similarity)>,
    /// Which facts the metrics asked for read.
    wants: Wants,
    calibration_alpha: f64,
}

/// Which of the facts the metrics asked for read.
#[derive(Debug, Clone, Copy)]
struct Wants {
    popularity: bool,
    diversity: bool,
    calibration: bool,
}

impl Sources {
    /// Reads what `metrics` need: the training events for a popularity metric, the
    /// attribute file's items for `ild@N`.
    ///
    /// # Errors
    /// A metric whose input is not given, an option given without a metric that reads
    /// it, or a file that cannot be read.
    pub(crate) fn read(
        metrics: &[Metric],
        train: Option<&Path>,
        args: &HeadArgs,
    ) -> anyhow::Result<Sources> {
        let popularity = metrics.iter().find(|m| m.needs_popularity());
        let diverse = metrics.iter().find(|m| m.needs_attributes());
        let history = metrics.iter().find(|m| m.needs_history());
        let wants = Wants {
            popularity: popularity.is_some(),
            diversity: metrics.iter().any(|m| m.is_diversity()),
            calibration: history.is_some(),
        };
        if history.is_none() && args.calibration_alpha != DEFAULT_CALIBRATION_SMOOTHING {
            anyhow::bail!(
                "--calibration-alpha sets miscal@N's smoothing; miscal@N is not asked for"
            );
        }
        if !(args.calibration_alpha > 0.0 && args.calibration_alpha <= 1.0) {
            anyhow::bail!(
                "--calibration-alpha must be in (0, 1] (Steck 2018 gives {DEFAULT_CALIBRATION_SMOOTHING}), not {}",
                args.calibration_alpha
            );
        }
        if popularity.is_none() && (args.head_share.is_some() || args.head_items.is_some()) {
            anyhow::bail!(
                "--head-share and --head-items set the head of aplt@N and aclt@N; no \
                 popularity metric was asked for"
            );
        }
        if diverse.is_none() && args.attributes.is_some() {
            anyhow::bail!(
                "--attributes is read by ild@N, ild_disc@N and miscal@N; none is asked for"
            );
        }
        let train = match (popularity, history, train) {
            (None, None, _) => None,
            (Some(metric), _, None) => anyhow::bail!(
                "{metric} needs the items' training popularity: give the training events \
                 with --train FILE"
            ),
            (None, Some(metric), None) => anyhow::bail!(
                "{metric} needs each user's training items: give the training events with \
                 --train FILE"
            ),
            (_, _, Some(path)) => Some(crate::format::read_train(path)?),
        };
        let attributes = match (diverse, &args.attributes) {
            (None, _) => None,
            (Some(metric), None) => anyhow::bail!(
                "{metric} needs the items' attributes: give them with --attributes FILE \
                 (item<TAB>rank<TAB>attribute)"
            ),
            (Some(_), Some(path)) => {
                let ids = crate::score::attribute_item_ids(path)?;
                let items = IdMap::from_ids_sorted(ids.iter().map(String::as_str))?;
                let filter = recs_data::AttributeFilter::default();
                let all = recs_data::load_item_attributes(path, &items, &filter)
                    .with_context(|| format!("reading attributes {}", path.display()))?;
                Some((items, all, args.similarity))
            }
        };
        Ok(Sources {
            train,
            head: args.rule(),
            attributes,
            wants,
            calibration_alpha: args.calibration_alpha,
        })
    }

    /// Whether the training events are read (for the popularity metrics and calibration).
    pub(crate) fn reads_train(&self) -> bool {
        self.train.is_some()
    }

    /// The training events, when read.
    pub(crate) fn train(&self) -> Option<&recs_data::Dataset> {
        self.train.as_ref()
    }

    /// The popularity and attributes of `qrels`' items.
    ///
    /// # Errors
    /// [`Popularity::new`]'s (no training user, a head rule out of its domain) and an
    /// attribute file that cannot be read.
    pub(crate) fn of_qrels(&self, qrels: &Qrels) -> anyhow::Result<KnownFacts> {
        let (n_users, n_items) = (qrels.judgments.n_users(), qrels.judgments.n_items());
        self.of_space(Space { users: (&qrels.users, n_users), items: (&qrels.items, n_items) })
    }

    /// The popularity and attributes of the first `n` items of `items`, for users
    /// numbered by `users` (a streamed catalog's columns and its qrels' users).
    ///
    /// # Errors
    /// As [`Sources::of_qrels`].
    pub(crate) fn of_space(&self, space: Space<'_>) -> anyhow::Result<KnownFacts> {
        let Space { users: (user_ids, n_users), items: (item_ids, n_items) } = space;
        let popularity = match &self.train {
            Some(train) if self.wants.popularity => {
                let pairs = train.interactions.events().filter_map(|e| {
                    Some((train.users.external(e.user)?, train.items.external(e.item)?))
                });
                Some(Popularity::of_item_pairs(item_ids, n_items, pairs, self.head)?)
            }
            _ => None,
        };
        let Some((items, all, similarity)) = &self.attributes else {
            return Ok(KnownFacts { popularity, diversity: None, calibration: None });
        };
        let attributes = attributes_of((item_ids, n_items), items, all)?;
        let diversity = self.wants.diversity.then(|| Diversity::new(&attributes, *similarity));
        let calibration = match &self.train {
            Some(train) if self.wants.calibration => {
                // Each training pair by id: its user among the qrels' users, its item
                // among the attribute file's (a training item without a line there has
                // no attribute, and pairs of users outside the qrels are not needed).
                let history = train.interactions.events().filter_map(|e| {
                    let user = user_ids.get(train.users.external(e.user)?)?;
                    let item = items.get(train.items.external(e.item)?)?;
                    Some((user, item))
                });
                let history: Vec<(u32, u32)> =
                    history.filter(|&(u, _)| (u as usize) < n_users).collect();
                Some(Calibration::new(&attributes, all, history, n_users, self.calibration_alpha)?)
            }
            _ => None,
        };
        Ok(KnownFacts { popularity, diversity, calibration })
    }
}

/// The users and items the facts are numbered by: each an id map and how many of its
/// first ids count.
pub(crate) struct Space<'a> {
    pub(crate) users: (&'a IdMap, usize),
    pub(crate) items: (&'a IdMap, usize),
}

/// The attributes of the first `n` items of `wanted`, taken by id from `all` (the file's
/// items, `items`); the file's other items are left out.
fn attributes_of(
    (wanted, n): (&IdMap, usize),
    items: &IdMap,
    all: &ItemAttributes,
) -> anyhow::Result<ItemAttributes> {
    let mut pairs = Vec::new();
    for (at, id) in items.iter().enumerate() {
        let Some(item) = wanted.get(id).filter(|&i| (i as usize) < n) else { continue };
        let (ids, weights) = (all.item_attributes(at as u32), all.item_weights(at as u32));
        pairs.extend(ids.iter().zip(weights).map(|(&a, &w)| (item, a, w)));
    }
    Ok(ItemAttributes::from_pairs(n, all.vocabulary().clone(), pairs)?)
}
