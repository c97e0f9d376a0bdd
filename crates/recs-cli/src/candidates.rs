//! The candidate policies of `recs eval`: the library's (`qrels`, `run`, `catalog`), a
//! sample of each user's negatives (`sampled:N`), and a fixed candidate set read from a
//! file (`file:FILE`, as `--write-candidates` writes it).
//!
//! A sampled or fixed candidate set becomes qrels that list every candidate, so the run
//! is read and ranked as under `--candidates qrels`: run lines for other pairs are
//! ignored, a candidate without a score ranks last, ties follow `--ties`.

use std::fmt;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::Context;
use recs_core::{IdMap, Judgments};
use recs_data::Dataset;
use recs_metrics::io::{Candidates, Qrels};
use recs_sampled::stream::full_catalog_row;
use recs_split::{NegativeSampling, SampleBy, SampledCandidates, SampledUser};

/// The header line of a candidate file.
const HEADER: &str = "user\titem";

/// Which pairs `recs eval` ranks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Policy {
    /// A policy of the library: `qrels`, `run` or `catalog`.
    Listed(Candidates),
    /// `sampled:N[:uniform|:popularity]`: each user's relevant items and N negatives
    /// drawn from its catalog items (needs `--train`).
    Sampled { negatives: usize, by: SampleBy },
    /// `file:FILE`: the pairs of a candidate file.
    File(PathBuf),
}

impl Policy {
    /// How the library reads a run under this policy: a sampled or fixed candidate set is
    /// a listed one, as `qrels`.
    pub(crate) fn reading(&self) -> Candidates {
        match self {
            Policy::Listed(policy) => *policy,
            Policy::Sampled { .. } | Policy::File(_) => Candidates::Qrels,
        }
    }

    /// Whether the policy reads `--train`.
    pub(crate) fn uses_train(&self) -> bool {
        matches!(self, Policy::Listed(Candidates::Catalog) | Policy::Sampled { .. })
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Listed(policy) => write!(f, "{policy}"),
            Policy::Sampled { negatives, by } => write!(f, "sampled:{negatives}:{by}"),
            Policy::File(path) => write!(f, "file:{}", path.display()),
        }
    }
}

impl FromStr for Policy {
    type Err = String;

    fn from_str(text: &str) -> Result<Policy, String> {
        let expected = "expected qrels, run, catalog, sampled:N, sampled:N:uniform, \
                        sampled:N:popularity or file:FILE";
        if let Some(path) = text.strip_prefix("file:") {
            if path.is_empty() {
                return Err(format!("{text:?}: file:FILE needs the path of a candidate file"));
            }
            return Ok(Policy::File(PathBuf::from(path)));
        }
        if let Some(rest) = text.strip_prefix("sampled:") {
            let (count, by) = rest.split_once(':').unwrap_or((rest, "uniform"));
            let negatives = match count.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("{text:?}: sampled:N needs a number of negatives N >= 1")),
            };
            let by = by.parse::<SampleBy>().map_err(|_| {
                format!("{text:?}: negatives are drawn by `uniform` or `popularity`, not {by:?}")
            })?;
            return Ok(Policy::Sampled { negatives, by });
        }
        match text.parse::<Candidates>() {
            Ok(policy) => Ok(Policy::Listed(policy)),
            Err(_) => Err(format!("unknown candidate policy {text:?}: {expected}")),
        }
    }
}

/// A candidate set built by this module, with what `recs eval` should warn about.
pub(crate) struct Built {
    /// Every candidate of every judged user, graded from the qrels; users numbered as
    /// the qrels number them, items in canonical id order.
    pub(crate) qrels: Qrels,
    /// Under `sampled:N`, `(user, n)` for each judged user, ascending: `n` is its number
    /// of full-catalog negatives (catalog items neither trained nor relevant), what a
    /// corrected metric estimates over.
    pub(crate) catalog_negatives: Option<Vec<(u32, u64)>>,
    pub(crate) warnings: Vec<String>,
}

/// Where each index of `from` is in `to`. Every caller's `to` holds all of `from`'s ids
/// (a catalog of them and more); `u32::MAX` would mark one it lacks.
fn index_map(from: &IdMap, to: &IdMap) -> Vec<u32> {
    from.iter().map(|id| to.get(id).unwrap_or(u32::MAX)).collect()
}

/// The graded items of qrels user `user` as (catalog item, grade), ascending.
fn graded_items(qrels: &Qrels, user: u32, to_catalog: &[u32]) -> Vec<(u32, f32)> {
    let Some(row) = qrels.judgments.get(user) else { return Vec::new() };
    let mut graded: Vec<(u32, f32)> =
        row.items.iter().zip(row.grades).map(|(&i, &g)| (to_catalog[i as usize], g)).collect();
    graded.sort_unstable_by_key(|g| g.0);
    graded
}

/// The external id of qrels user `user`.
pub(crate) fn user_id(qrels: &Qrels, user: u32) -> anyhow::Result<&str> {
    qrels.users.external(user).with_context(|| format!("qrels user index {user} has no id"))
}

/// The training data of `recs eval --train` seen from the catalog: the catalog (the
/// items of the qrels and of training, in canonical order), each catalog item's
/// training events, and each training user's items as catalog indices. The `sampled:N`
/// policy and `--sampled-vs-exact` both see users' candidates through it, so both draw
/// from the same lists.
pub(crate) struct Catalog<'a> {
    items: IdMap,
    popularity: Vec<u32>,
    train: &'a Dataset,
    train_to_catalog: Vec<u32>,
    qrels_to_catalog: Vec<u32>,
}

impl<'a> Catalog<'a> {
    pub(crate) fn new(qrels: &Qrels, train: &'a Dataset) -> anyhow::Result<Catalog<'a>> {
        let items = IdMap::from_ids_sorted(qrels.items.iter().chain(train.items.iter()))?;
        let train_to_catalog = index_map(&train.items, &items);
        let qrels_to_catalog = index_map(&qrels.items, &items);
        let mut popularity = vec![0u32; items.len()];
        for (train_item, count) in train.interactions.item_counts().into_iter().enumerate() {
            popularity[train_to_catalog[train_item] as usize] = count;
        }
        Ok(Catalog { items, popularity, train, train_to_catalog, qrels_to_catalog })
    }

    /// The catalog's items, in canonical id order.
    pub(crate) fn items(&self) -> &IdMap {
        &self.items
    }

    /// The catalog items the user of external id `user` has training events with,
    /// ascending.
    fn known_items(&self, user: &str) -> Vec<u32> {
        let Some(train_user) = self.train.users.get(user) else { return Vec::new() };
        let row = self.train.interactions.user_row(train_user);
        let mut known: Vec<u32> =
            row.items.iter().map(|&i| self.train_to_catalog[i as usize]).collect();
        known.sort_unstable();
        known
    }

    /// The full-catalog candidates of qrels user `user` (external id `id`) into `items`
    /// and `grades` (cleared first): every catalog item it has no training event with,
    /// ascending, graded from the qrels (0 when absent). Returns how many of its pairs
    /// the qrels grade above 0 are training events, and so not candidates.
    pub(crate) fn user_row(
        &self,
        qrels: &Qrels,
        user: u32,
        id: &str,
        items: &mut Vec<u32>,
        grades: &mut Vec<f32>,
    ) -> usize {
        let known = self.known_items(id);
        let graded = graded_items(qrels, user, &self.qrels_to_catalog);
        let n_graded_known =
            graded.iter().filter(|(i, g)| *g > 0.0 && known.binary_search(i).is_ok()).count();
        full_catalog_row(self.items.len() as u32, &known, graded, items, grades);
        n_graded_known
    }

    /// The draw of `sampling` for the user of external id `id` from its full-catalog
    /// candidates (`items`, `grades`, as [`Catalog::user_row`] gives them): its relevant
    /// items (grade at least `threshold`) and the drawn negatives, ascending.
    pub(crate) fn draw(
        &self,
        sampling: &NegativeSampling,
        id: &str,
        items: &[u32],
        grades: &[f32],
        threshold: f32,
    ) -> SampledCandidates {
        sampling.sample(SampledUser::Id(id), items, grades, |g| g >= threshold, &self.popularity)
    }
}

/// The warning about users with fewer eligible items than `sampling` asks for.
fn short_warning(n_short: usize, sampling: &NegativeSampling) -> String {
    let eligible = match sampling.by {
        SampleBy::Uniform => "eligible items",
        SampleBy::Popularity => "eligible items with training events",
    };
    format!(
        "{n_short} users have fewer than {} {eligible} (catalog items neither in their \
         training events nor relevant) and are judged on all they have",
        sampling.negatives
    )
}

/// The warning about graded pairs that are training events.
pub(crate) fn graded_known_warning(n: usize, qrels_name: &str, train_name: &str) -> String {
    format!(
        "{n} graded pairs of {qrels_name} are training events in {train_name} and are not \
         candidates"
    )
}

/// `--candidates sampled:N`: for every user of `qrels`, its full-catalog candidates
/// (every catalog item it has no training event with, graded from the qrels) cut down to
/// its relevant items (grade at least `threshold`) and `sampling.negatives` of the others,
/// drawn by [`NegativeSampling::sample`] from the user's id's stream.
pub(crate) fn sampled(
    qrels: &Qrels,
    train: &Dataset,
    sampling: &NegativeSampling,
    threshold: f32,
    qrels_name: &str,
    train_name: &str,
) -> anyhow::Result<Built> {
    let catalog = Catalog::new(qrels, train)?;
    let mut builder = Judgments::builder(qrels.users.len(), catalog.items.len());
    let (mut items, mut grades) = (Vec::new(), Vec::new());
    let (mut n_short, mut n_graded_known) = (0, 0);
    let mut catalog_negatives = Vec::with_capacity(qrels.judgments.iter().len());
    for row in qrels.judgments.iter() {
        let id = user_id(qrels, row.user)?;
        n_graded_known += catalog.user_row(qrels, row.user, id, &mut items, &mut grades);
        catalog_negatives
            .push((row.user, grades.iter().filter(|&&g| g < threshold).count() as u64));
        let drawn = catalog.draw(sampling, id, &items, &grades, threshold);
        n_short += usize::from(drawn.n_negatives < sampling.negatives);
        builder.push_user(row.user, &drawn.items, &drawn.grades)?;
    }
    let mut warnings = Vec::new();
    if n_short > 0 {
        warnings.push(short_warning(n_short, sampling));
    }
    if n_graded_known > 0 {
        warnings.push(graded_known_warning(n_graded_known, qrels_name, train_name));
    }
    let qrels =
        Qrels { users: qrels.users.clone(), items: catalog.items, judgments: builder.build()? };
    Ok(Built { qrels, catalog_negatives: Some(catalog_negatives), warnings })
}

/// Each index of `map` mapped to its rank in canonical id order.
fn canonical_ranks(map: &IdMap) -> anyhow::Result<Vec<u32>> {
    let canonical = IdMap::from_ids_sorted(map.iter())?;
    Ok(index_map(map, &canonical))
}

/// `--write-candidates FILE`: every candidate of `candidates` as `user<TAB>item` under a
/// header line, sorted by user, then item, each in canonical id order (by integer value
/// when every id is an integer, by bytes otherwise), written to a temporary file beside
/// `path` and renamed over it, so that a reader never sees half a file.
pub(crate) fn write(path: &Path, candidates: &Qrels) -> anyhow::Result<()> {
    let (user_rank, item_rank) =
        (canonical_ranks(&candidates.users)?, canonical_ranks(&candidates.items)?);
    let mut pairs: Vec<(u32, u32, u32, u32)> =
        Vec::with_capacity(candidates.judgments.n_candidates());
    for row in candidates.judgments.iter() {
        for &item in row.items {
            pairs.push((user_rank[row.user as usize], item_rank[item as usize], row.user, item));
        }
    }
    pairs.sort_unstable();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let writing = || format!("writing candidate file {}", path.display());
    let file = tempfile::NamedTempFile::new_in(dir).with_context(writing)?;
    let mut out = BufWriter::new(file);
    writeln!(out, "{HEADER}").with_context(writing)?;
    for &(_, _, user, item) in &pairs {
        let user = candidates.users.external(user).unwrap_or_default();
        let item = candidates.items.external(item).unwrap_or_default();
        writeln!(out, "{user}\t{item}").with_context(writing)?;
    }
    let file = out.into_inner().map_err(|e| e.into_error()).with_context(writing)?;
    file.as_file().sync_all().with_context(writing)?;
    file.persist(path).map_err(|e| e.error).with_context(writing)?;
    Ok(())
}

/// The lines of a candidate file: (user id, item id, line number), the header checked.
fn read_pairs(path: &Path) -> anyhow::Result<Vec<(String, String, usize)>> {
    let file = std::fs::File::open(path)
        .with_context(|| format!("opening candidate file {}", path.display()))?;
    let mut pairs = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let number = index + 1;
        let line = line.with_context(|| format!("{}:{number}: reading", path.display()))?;
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if number == 1 {
            if line != HEADER {
                anyhow::bail!(
                    "{}:1: expected the header `user<TAB>item` of a candidate file (as \
                     --write-candidates writes it), found {line:?}",
                    path.display()
                );
            }
            continue;
        }
        let mut fields = line.split('\t');
        match (fields.next(), fields.next(), fields.next()) {
            (Some(user), Some(item), None) if !user.is_empty() && !item.is_empty() => {
                pairs.push((user.to_string(), item.to_string(), number));
            }
            _ => anyhow::bail!(
                "{}:{number}: expected `user<TAB>item` (two non-empty fields), found {line:?}",
                path.display()
            ),
        }
    }
    if pairs.is_empty() {
        anyhow::bail!("{}: a candidate file with no candidate line", path.display());
    }
    Ok(pairs)
}

/// A pair listed twice is an error naming both lines (whether or not the qrels judge
/// its user: a repeated line means the file is not one `--write-candidates` wrote).
fn refuse_repeated_pairs(path: &Path, pairs: &[(String, String, usize)]) -> anyhow::Result<()> {
    let mut order: Vec<&(String, String, usize)> = pairs.iter().collect();
    order.sort_unstable();
    if let Some(twice) = order.windows(2).find(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1) {
        anyhow::bail!(
            "{}:{}: the pair of line {} again (user {}, item {}): each candidate is listed once",
            path.display(),
            twice[1].2,
            twice[0].2,
            twice[0].0,
            twice[0].1
        );
    }
    Ok(())
}

/// `--candidates file:FILE`: exactly the pairs of the candidate file at `path`, graded
/// from `qrels` (0 when not graded). A user of the file that the qrels do not judge is
/// not evaluated (a warning counts them), and so is a user of the qrels without a line
/// in the file that has no relevant item; a relevant item of the qrels (grade at least
/// `threshold`) that is not among its user's candidates is an error, since its rank
/// would silently be lost: the file was written for other qrels or another threshold.
pub(crate) fn from_file(
    path: &Path,
    qrels: &Qrels,
    threshold: f32,
    qrels_name: &str,
) -> anyhow::Result<Built> {
    let pairs = read_pairs(path)?;
    let items =
        IdMap::from_ids_sorted(qrels.items.iter().chain(pairs.iter().map(|p| p.1.as_str())))?;
    // (qrels user, item, line) of the users the qrels judge; `items` holds every item of
    // the file.
    let mut listed: Vec<(u32, u32, usize)> = Vec::with_capacity(pairs.len());
    let mut unjudged: Vec<&str> = Vec::new();
    for (user, item, line) in &pairs {
        match qrels.users.get(user).filter(|&u| qrels.judgments.get(u).is_some()) {
            Some(u) => listed.push((u, items.get(item).unwrap_or(u32::MAX), *line)),
            None => unjudged.push(user),
        }
    }
    listed.sort_unstable();
    refuse_repeated_pairs(path, &pairs)?;
    let qrels_to_items = index_map(&qrels.items, &items);
    let mut builder = Judgments::builder(qrels.users.len(), items.len());
    let (mut item_buf, mut grade_buf) = (Vec::new(), Vec::new());
    let mut n_without_lines = 0;
    let mut start = 0;
    for row in qrels.judgments.iter() {
        let end = start + listed[start..].partition_point(|l| l.0 == row.user);
        let own = &listed[start..end];
        start = end;
        let graded = graded_items(qrels, row.user, &qrels_to_items);
        let missing = graded
            .iter()
            .find(|(i, g)| *g >= threshold && own.binary_search_by_key(i, |l| l.1).is_err());
        if let Some((item, grade)) = missing {
            anyhow::bail!(
                "{}: user {} has the relevant item {} (grade {grade} in {qrels_name}) among no \
                 candidate of the file; a candidate file serves the qrels (and --rel-threshold) \
                 it was written with",
                path.display(),
                user_id(qrels, row.user)?,
                items.external(*item).unwrap_or_default()
            );
        }
        if own.is_empty() {
            n_without_lines += 1;
            continue;
        }
        item_buf.clear();
        grade_buf.clear();
        for &(_, item, _) in own {
            let grade = graded.binary_search_by_key(&item, |g| g.0).map_or(0.0, |k| graded[k].1);
            item_buf.push(item);
            grade_buf.push(grade);
        }
        builder.push_user(row.user, &item_buf, &grade_buf)?;
    }
    let mut warnings = Vec::new();
    unjudged.sort_unstable();
    unjudged.dedup();
    if !unjudged.is_empty() {
        warnings.push(format!(
            "{} users of {} are not judged in {qrels_name} and are not evaluated (the first: {})",
            unjudged.len(),
            path.display(),
            unjudged[0]
        ));
    }
    if n_without_lines > 0 {
        warnings.push(format!(
            "{n_without_lines} users of {qrels_name} without a relevant item have no line in {} \
             and are not evaluated",
            path.display()
        ));
    }
    let qrels = Qrels { users: qrels.users.clone(), items, judgments: builder.build()? };
    Ok(Built { qrels, catalog_negatives: None, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print_by_their_names() {
        let parse = |text: &str| text.parse::<Policy>();
        assert_eq!(parse("catalog"), Ok(Policy::Listed(Candidates::Catalog)));
        let uniform = Policy::Sampled { negatives: 99, by: SampleBy::Uniform };
        assert_eq!(parse("sampled:99"), Ok(uniform.clone()));
        assert_eq!(parse("sampled:99:uniform"), Ok(uniform.clone()));
        assert_eq!(uniform.to_string(), "sampled:99:uniform");
        let popular = parse("sampled:5:popularity").unwrap();
        assert_eq!(popular, Policy::Sampled { negatives: 5, by: SampleBy::Popularity });
        assert_eq!(parse("file:c.tsv"), Ok(Policy::File("c.tsv".into())));
        assert_eq!(parse("file:c.tsv").unwrap().to_string(), "file:c.tsv");
        for (bad, says) in [
            ("sampled:0", "N >= 1"),
            ("sampled:x", "N >= 1"),
            ("sampled:3:pop", "not \"pop\""),
            ("file:", "needs the path"),
            ("everything", "sampled:N:popularity"),
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
