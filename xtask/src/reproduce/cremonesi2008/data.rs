//! The three datasets and the statistics of §3.1 / §5.1 (`stats-groups`, Figure 4).

use anyhow::{Context, Result};
use recs_bench::report::{DatasetEntry, Table};
use recs_bench::{Figure, Line};
use recs_core::Interactions;
use recs_data::{PowerLaw, UserGroup, popularity_head, profile_groups};
use serde_json::json;

use crate::reproduce::Options;

/// The lower bounds of the NewMovies user groups, [2..9] / [10..19] / [20..] (§5.1).
pub(crate) const NM_GROUPS: [u32; 3] = [2, 10, 20];
/// The lower bounds of the MovieLens groups, [1..99] / [100..199] / [200..] (§5.1).
pub(crate) const ML_GROUPS: [u32; 3] = [1, 100, 200];
/// The name of the generated NewMovies substitute in the report.
pub(crate) const NEWMOVIES: &str = "newmovies-synthetic";
/// MS Web's name in the report.
pub(crate) const MSWEB: &str = "msweb";
/// The published NewMovies figures (§4.2, §5.1): users, items, ratings, the head (80
/// items hold 50% of the ratings) and the users of each group of [`NM_GROUPS`].
const NM_USERS: usize = 26_799;
const NM_ITEMS: usize = 771;
const NM_EVENTS: u64 = 186_459;
const NM_HEAD: usize = 80;
const NM_GROUP_USERS: [usize; 3] = [21_810, 3_400, 1_568];
/// The quick run generates the substitute at this fraction of the published size.
pub(crate) const QUICK_SCALE: f64 = 0.1;

/// A dataset as the experiments use it.
pub(crate) struct Data {
    /// Name in the report (`ml-100k`, `msweb`, [`NEWMOVIES`]).
    pub(crate) name: String,
    /// How figures and tables name it.
    pub(crate) label: &'static str,
    pub(crate) interactions: Interactions,
    /// The report's dataset entry (files with checksums for real data).
    pub(crate) entry: DatasetEntry,
    /// Lower bounds of its user groups.
    pub(crate) groups: [u32; 3],
}

impl Data {
    /// Every user's profile length (number of events).
    pub(crate) fn profile_lengths(&self) -> Vec<u32> {
        self.interactions.user_counts()
    }

    /// The group of a profile of `len` events: the index of the last bound at most `len`.
    pub(crate) fn group_of(&self, len: u32) -> Option<usize> {
        self.groups.iter().rposition(|&lo| len >= lo)
    }

    /// The head: the fewest most-popular items holding half of the events, as a mask.
    pub(crate) fn head_mask(&self) -> Result<Vec<bool>> {
        let head = popularity_head(&self.interactions, 0.5)?;
        let counts = self.interactions.item_counts();
        let mut order: Vec<u32> = (0..counts.len() as u32).collect();
        // Most popular first; equal counts by index, so the mask is deterministic.
        order.sort_by_key(|&i| (std::cmp::Reverse(counts[i as usize]), i));
        let mut mask = vec![false; counts.len()];
        for &i in &order[..head.n_items] {
            mask[i as usize] = true;
        }
        Ok(mask)
    }

    /// Labels of the groups, `[2..9]`, `[10..19]`, `[20..]`.
    pub(crate) fn group_labels(&self) -> [String; 3] {
        let g = self.groups;
        [
            format!("[{}..{}]", g[0], g[1] - 1),
            format!("[{}..{}]", g[1], g[2] - 1),
            format!("[{}..]", g[2]),
        ]
    }
}

/// MovieLens 100K (explicit ratings 1–5).
pub(crate) fn movielens(options: &Options) -> Result<Data> {
    real(options, "ml-100k", "MovieLens 100K", ML_GROUPS)
}

/// MS Web (binary: the visits of its training file).
pub(crate) fn msweb(options: &Options) -> Result<Data> {
    real(options, MSWEB, "MS Web", NM_GROUPS)
}

fn real(options: &Options, name: &str, label: &'static str, groups: [u32; 3]) -> Result<Data> {
    let dataset = recs_data::load_named(name, &options.resolver())
        .with_context(|| format!("loading {name}"))?;
    Ok(Data {
        entry: recs_bench::dataset_entry(&dataset),
        name: name.to_string(),
        label,
        interactions: dataset.interactions,
        groups,
    })
}

/// The NewMovies substitute: binary events generated to the published figures (users,
/// items, ratings, the three group sizes, 80 items holding half of the events), scaled by
/// `scale` (1 for the full run). NewMovies itself is not public.
pub(crate) fn newmovies(seed: u64, scale: f64) -> Result<Data> {
    let scaled = |n: usize| ((n as f64 * scale).round() as usize).max(1);
    let groups: Vec<UserGroup> = NM_GROUPS
        .iter()
        .zip(NM_GROUP_USERS)
        .map(|(&lo, n)| UserGroup { lo, n_users: scaled(n) })
        .collect();
    let law = PowerLaw {
        n_users: scaled(NM_USERS),
        n_items: NM_ITEMS,
        n_events: (NM_EVENTS as f64 * scale).round() as u64,
        // Users outside the three groups (21 of the 26,799) have one event.
        min_per_user: 1,
        ratings: false,
        seed,
        user_groups: groups,
        ..PowerLaw::default()
    }
    .calibrate_head(NM_HEAD, 0.5)?;
    let dataset = law.generate()?;
    let interactions = dataset.interactions;
    Ok(Data {
        entry: DatasetEntry {
            name: NEWMOVIES.to_string(),
            users: interactions.n_users() as u64,
            items: interactions.n_items() as u64,
            events: interactions.n_events() as u64,
            files: Vec::new(),
        },
        name: NEWMOVIES.to_string(),
        label: "NewMovies substitute",
        interactions,
        groups: NM_GROUPS,
    })
}

/// What `stats-groups` measured on one dataset.
pub(crate) struct GroupStats {
    pub(crate) dataset: String,
    /// `(label, users, share of events)` per group.
    pub(crate) groups: Vec<(String, usize, f64)>,
    /// Items in the 50% head.
    pub(crate) head_items: usize,
    /// `(k, share of events held by the k most popular items)` for each published head
    /// size `k` (210 for MovieLens, 80 for NewMovies).
    pub(crate) share_of_top: Vec<(usize, f64)>,
}

/// Groups and head of `data`, and the share of events held by the top `tops` items.
pub(crate) fn group_stats(data: &Data, tops: &[usize]) -> Result<GroupStats> {
    let groups = profile_groups(&data.interactions, &data.groups)?;
    let labels = data.group_labels();
    let head = popularity_head(&data.interactions, 0.5)?;
    let cumulative = cumulative_share(&data.interactions);
    Ok(GroupStats {
        dataset: data.name.clone(),
        groups: groups.iter().zip(labels).map(|(g, label)| (label, g.n_users, g.share)).collect(),
        head_items: head.n_items,
        share_of_top: tops.iter().map(|&k| (k, cumulative[k.min(cumulative.len()) - 1])).collect(),
    })
}

/// §3.1's first cut: the shortest profile length `ℓ` such that the users with at most `ℓ`
/// events hold at least half of the events (`None` without events).
pub(crate) fn half_cut_length(interactions: &Interactions) -> Option<u32> {
    let mut lengths = interactions.user_counts();
    lengths.sort_unstable();
    let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    let mut sum = 0u64;
    lengths.into_iter().find(|&l| {
        sum += u64::from(l);
        2 * sum >= total && total > 0
    })
}

/// The share of all events held by the `k` most popular items, for `k = 1..=n_items`.
pub(crate) fn cumulative_share(interactions: &Interactions) -> Vec<f64> {
    let mut counts = interactions.item_counts();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total = counts.iter().map(|&c| u64::from(c)).sum::<u64>().max(1) as f64;
    let mut sum = 0u64;
    counts
        .iter()
        .map(|&c| {
            sum += u64::from(c);
            sum as f64 / total
        })
        .collect()
}

/// The `stats-groups` table: one row per dataset and group.
pub(crate) fn stats_table(stats: &[GroupStats]) -> Table {
    let mut rows = Vec::new();
    for s in stats {
        for (label, users, share) in &s.groups {
            rows.push(vec![
                json!(s.dataset),
                json!(label),
                json!(users),
                json!(share),
                json!(s.head_items),
            ]);
        }
    }
    Table {
        name: "Profile-length groups and the 50% popularity head".into(),
        columns: ["dataset", "group", "users", "share of events", "head items (50%)"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// The `stats-groups` table of sizes: users, items, events and sparsity (the share of
/// user × item cells without an event) of each dataset, beside the sparsity §4.2 prints
/// (MovieLens 93.69%, NewMovies 99.34%; MS Web is not the paper's).
pub(crate) fn sparsity_table(datasets: &[&Data]) -> Table {
    let rows = datasets
        .iter()
        .map(|d| {
            let i = &d.interactions;
            let cells = i.n_users() as f64 * i.n_items() as f64;
            let published = match d.name.as_str() {
                "ml-100k" => json!(0.9369),
                NEWMOVIES => json!(0.9934),
                _ => json!(null),
            };
            vec![
                json!(d.name),
                json!(i.n_users()),
                json!(i.n_items()),
                json!(i.n_events()),
                json!(1.0 - i.n_events() as f64 / cells),
                published,
            ]
        })
        .collect();
    Table {
        name: "Sizes and sparsity (1 − events / (users × items))".into(),
        columns: ["dataset", "users", "items", "events", "sparsity", "paper's sparsity"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

/// Figure 4: cumulative share of events against item rank, one line per dataset. The
/// x axis is log10 of the rank (the paper's log axis, as values).
pub(crate) fn figure4(datasets: &[&Data]) -> Figure {
    let lines: Vec<Line> = datasets
        .iter()
        .map(|d| {
            let share = cumulative_share(&d.interactions);
            Line {
                label: d.label.to_string(),
                points: log_spaced(share.len())
                    .into_iter()
                    .map(|k| [(k as f64).log10(), share[k - 1]])
                    .collect(),
                band: Vec::new(),
                markers: Vec::new(),
            }
        })
        .collect();
    Figure::lines(
        "stats-groups",
        "fig4-popularity.svg",
        "Cumulative share of events against item rank (Figure 4)",
        ["log10 item rank (most popular first)", "share of all events"],
        &lines,
    )
}

/// About 40 ranks from 1 to `n`, evenly spaced in log scale, always ending at `n`.
fn log_spaced(n: usize) -> Vec<usize> {
    let mut ranks: Vec<usize> = (0..40)
        .map(|k| (10f64.powf(k as f64 / 39.0 * (n as f64).log10())).round() as usize)
        .map(|k| k.clamp(1, n))
        .collect();
    ranks.push(n);
    ranks.dedup();
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_substitute_keeps_the_published_shape() {
        let d = newmovies(3, QUICK_SCALE).unwrap();
        assert_eq!(d.interactions.n_items(), NM_ITEMS);
        assert_eq!(d.interactions.n_users(), 2_680);
        let stats = group_stats(&d, &[NM_HEAD]).unwrap();
        let users: Vec<usize> = stats.groups.iter().map(|g| g.1).collect();
        assert_eq!(users, [2_181, 340, 157]);
        assert!(stats.head_items.abs_diff(NM_HEAD) <= 4, "head {}", stats.head_items);
        let mask = d.head_mask().unwrap();
        assert_eq!(mask.iter().filter(|&&h| h).count(), stats.head_items);
    }

    #[test]
    fn the_half_cut_is_the_shortest_length_whose_users_hold_half_the_events() {
        // Profiles of 1, 2, 3 and 6 events (12 in all): lengths up to 3 hold 6 = half.
        let mut events = Vec::new();
        for (user, len) in [1u32, 2, 3, 6].into_iter().enumerate() {
            events.extend((0..len).map(|item| recs_core::Event::new(user as u32, item, 1.0)));
        }
        let events = Interactions::from_events(4, 6, events, recs_core::DuplicatePolicy::Error);
        assert_eq!(half_cut_length(&events.unwrap()), Some(3));
        // With profiles 1, 2 and 9, the first half is only reached at 9.
        let mut events = Vec::new();
        for (user, len) in [1u32, 2, 9].into_iter().enumerate() {
            events.extend((0..len).map(|item| recs_core::Event::new(user as u32, item, 1.0)));
        }
        let events = Interactions::from_events(3, 9, events, recs_core::DuplicatePolicy::Error);
        assert_eq!(half_cut_length(&events.unwrap()), Some(9));
        let empty = Interactions::from_events(2, 2, Vec::new(), recs_core::DuplicatePolicy::Error);
        assert_eq!(half_cut_length(&empty.unwrap()), None);
    }

    #[test]
    fn log_spaced_ranks_run_from_one_to_n_without_repeats() {
        let r = log_spaced(1682);
        assert_eq!((r[0], *r.last().unwrap()), (1, 1682));
        assert!(r.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(log_spaced(1), [1]);
    }
}
