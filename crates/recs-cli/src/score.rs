//! `recs score`: fit any catalogued model on a training file and write its scores, so
//! that every model is usable from any language and pairs with `recs eval`.
//!
//! Index spaces: users and items are the union of the ids of the training file, the qrels
//! (when given) and the attributes file (when given), in canonical order (numeric when
//! every id is an integer). A qrels user or item absent from the training file is scored
//! as a user or item without training events, and the number of such candidates is
//! reported on standard error.
//!
//! Output (version 1 of the score-file format): one `user<TAB>item<TAB>score` line per
//! scored pair, with the external ids; qrels candidates in the qrels' order (users, then
//! items, ascending), or each user's top N in rank order. Same inputs and seed ⇒
//! byte-identical output. The same rows go to a Parquet file (columns `user`, `item`,
//! `score`) when `--out` ends in `.parquet` or `--out-format parquet` says so. The output
//! appears whole or not at all: it is written to a temporary file beside it and renamed.

use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use recs_bench::registry::{self, ORACLE_NAME, Oracle, REFERENCES};
use recs_core::{
    DuplicatePolicy, Event, IdMap, Interactions, ItemAttributes, Judgments, ParamValues,
    Recommender, TrainData,
};
use recs_data::{AttributeFilter, load_delimited, load_item_attributes};
use recs_metrics::io::{ParquetRunWriter, Qrels, for_each_run_row, read_qrels};
use tempfile::NamedTempFile;

/// Fit a model on a training file and write `user<TAB>item<TAB>score` lines.
#[derive(Debug, clap::Args)]
#[command(after_help = "Model names and parameters: recs score --list")]
pub(crate) struct Args {
    /// List the models and their parameters, then exit.
    #[arg(long)]
    list: bool,
    /// Training events: `user<TAB>item[<TAB>rating[<TAB>...]]` (or Parquet / Arrow IPC with
    /// columns `user`, `item` [, `rating`] [, `timestamp`]), e.g. `train.tsv` of
    /// `recs split`.
    #[arg(long, required_unless_present = "list")]
    train: Option<PathBuf>,
    /// Layout of the training file.
    #[command(flatten)]
    format: crate::format::FileFormat,
    /// Model name (see --list).
    #[arg(long, required_unless_present = "list")]
    model: Option<String>,
    /// A model parameter, `key=value`; repeat for several.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// Item attributes: `item<TAB>rank<TAB>attribute` lines under a header (e.g. cast.tsv).
    #[arg(long)]
    attributes: Option<PathBuf>,
    /// Keep the attributes of the N smallest ranks per item (schein2005: 10 actors).
    #[arg(long, value_name = "N")]
    attributes_top: Option<usize>,
    /// Drop attributes held by fewer items than this (schein2005: 2).
    #[arg(long, value_name = "M", default_value_t = 1)]
    attributes_min_items: usize,
    /// Score the candidates of this qrels file (`user<TAB>item<TAB>grade`).
    #[arg(long, conflicts_with = "top", required_unless_present_any = ["top", "list"])]
    qrels: Option<PathBuf>,
    /// Instead, write each training user's top N items among those of the training file
    /// that the user has no training event with (ties: smaller item index first).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Seed of every random choice of the model (the same default as `recs split` and
    /// configuration files).
    #[arg(long, default_value_t = recs_core::DEFAULT_SEED)]
    seed: u64,
    /// Output file.
    #[arg(long, required_unless_present = "list")]
    out: Option<PathBuf>,
    /// Output format [default: parquet when --out ends in `.parquet`, else tsv].
    #[arg(long, value_enum)]
    out_format: Option<OutFormat>,
}

/// File formats of `recs score`'s output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OutFormat {
    /// `user<TAB>item<TAB>score` lines.
    Tsv,
    /// Parquet, columns `user`, `item`, `score`.
    Parquet,
}

impl OutFormat {
    /// The format `--out` asks for by its extension.
    fn of_path(path: &Path) -> OutFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("parquet") => OutFormat::Parquet,
            _ => OutFormat::Tsv,
        }
    }
}

/// Where score rows go: a temporary file beside the output, renamed over it once
/// complete.
enum Sink {
    Text(BufWriter<NamedTempFile>),
    Parquet(Box<ParquetRunWriter<BufWriter<NamedTempFile>>>),
}

impl Sink {
    fn create(out: &Path, format: OutFormat) -> anyhow::Result<Sink> {
        let dir = match out.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        // As `File::create` would: read-write for all, less the umask (not 0600).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder
            .tempfile_in(dir)
            .with_context(|| format!("creating a file in {}", dir.display()))?;
        let writer = BufWriter::new(tmp);
        Ok(match format {
            OutFormat::Tsv => Sink::Text(writer),
            OutFormat::Parquet => Sink::Parquet(Box::new(ParquetRunWriter::new(writer, out)?)),
        })
    }

    fn row(&mut self, user: &str, item: &str, score: f32) -> std::io::Result<()> {
        match self {
            Sink::Text(w) => writeln!(w, "{user}\t{item}\t{score}"),
            Sink::Parquet(w) => w.push(user, item, score).map_err(std::io::Error::other),
        }
    }

    /// Completes the file and moves it to `out`.
    fn finish(self, out: &Path) -> anyhow::Result<()> {
        let writer = match self {
            Sink::Text(w) => w,
            Sink::Parquet(w) => w.finish()?,
        };
        let tmp = writer.into_inner().map_err(|e| e.into_error())?;
        tmp.persist(out).map_err(|e| e.error)?;
        Ok(())
    }
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    if args.list {
        print_list();
        return Ok(());
    }
    let (Some(train_path), Some(model_name), Some(out)) = (&args.train, &args.model, &args.out)
    else {
        bail!("--train, --model and --out are required");
    };
    let seed = args.seed;
    let format = args.format.delimited()?;
    let train = load_delimited(train_path, &format)
        .with_context(|| format!("reading training file {}", train_path.display()))?;
    let qrels = args
        .qrels
        .as_ref()
        .map(|path| read_qrels(path).with_context(|| format!("reading {}", path.display())))
        .transpose()?;
    let attribute_ids = match &args.attributes {
        Some(path) => attribute_item_ids(path)?,
        None => Vec::new(),
    };
    let users = IdMap::from_ids_sorted(
        train.users.iter().chain(qrels.iter().flat_map(|q| q.users.iter())),
    )?;
    let items = IdMap::from_ids_sorted(
        train
            .items
            .iter()
            .chain(qrels.iter().flat_map(|q| q.items.iter()))
            .chain(attribute_ids.iter().map(String::as_str)),
    )?;
    let interactions = remap(&train.interactions, &train.users, &train.items, &users, &items)?;
    let attributes = match &args.attributes {
        Some(path) => {
            let filter = AttributeFilter {
                top_n: args.attributes_top,
                min_items: args.attributes_min_items,
            };
            Some(
                load_item_attributes(path, &items, &filter)
                    .with_context(|| format!("reading attributes {}", path.display()))?,
            )
        }
        None => None,
    };

    let model = build_model(model_name, &args.params, seed, &interactions, attributes.as_ref(), {
        qrels.as_ref().map(|q| (q, &users, &items))
    })?;

    let out_format = args.out_format.unwrap_or_else(|| OutFormat::of_path(out));
    let mut writer = Sink::create(out, out_format)?;
    let written = match (&qrels, args.top) {
        (Some(qrels), _) => {
            write_qrels_scores(&mut writer, model.as_ref(), qrels, &users, &items, &interactions)?
        }
        (None, Some(n)) => {
            let train_items: Vec<u32> = train.items.iter().filter_map(|id| items.get(id)).collect();
            let train_users: Vec<u32> = train.users.iter().filter_map(|id| users.get(id)).collect();
            write_top(
                &mut writer,
                model.as_ref(),
                n,
                &train_users,
                &train_items,
                &users,
                &items,
                &interactions,
            )?
        }
        (None, None) => bail!("give --qrels or --top"),
    };
    writer.finish(out).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {written} scores of {model_name} to {}", out.display());
    Ok(())
}

fn print_list() {
    for entry in registry::catalog() {
        let attributes = if entry.needs_attributes { " (needs --attributes)" } else { "" };
        println!("{}{attributes}\n    {}", entry.name, entry.summary);
        for p in entry.params {
            println!("    --param {}=<{}>  {}", p.name, p.default, p.help);
        }
    }
    for (name, summary) in REFERENCES {
        println!("{name} (needs --qrels)\n    {summary}");
    }
}

/// The item ids of an attribute file (first field of each line after the header).
pub(crate) fn attribute_item_ids(path: &Path) -> anyhow::Result<Vec<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut ids: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .map(|id| id.trim_matches([' ', '\r']).to_string())
        .filter(|id| !id.is_empty())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// The training events re-indexed into the union index spaces.
fn remap(
    interactions: &Interactions,
    from_users: &IdMap,
    from_items: &IdMap,
    users: &IdMap,
    items: &IdMap,
) -> anyhow::Result<Interactions> {
    let user_of: Vec<u32> = from_users.iter().map(|id| users.get(id).unwrap_or(u32::MAX)).collect();
    let item_of: Vec<u32> = from_items.iter().map(|id| items.get(id).unwrap_or(u32::MAX)).collect();
    let events = interactions.events().map(|e| Event {
        user: user_of[e.user as usize],
        item: item_of[e.item as usize],
        ..e
    });
    Ok(Interactions::from_events(users.len(), items.len(), events, DuplicatePolicy::Error)?)
}

/// The qrels' judgments re-indexed into the union index spaces.
fn remap_judgments(qrels: &Qrels, users: &IdMap, items: &IdMap) -> anyhow::Result<Judgments> {
    let mut builder = Judgments::builder(users.len(), items.len());
    for judged in qrels.judgments.iter() {
        let user = union_index(users, &qrels.users, judged.user)?;
        let row: Vec<u32> = judged
            .items
            .iter()
            .map(|&i| union_index(items, &qrels.items, i))
            .collect::<anyhow::Result<_>>()?;
        builder.push_user(user, &row, judged.grades)?;
    }
    Ok(builder.build()?)
}

fn union_index(union: &IdMap, from: &IdMap, index: u32) -> anyhow::Result<u32> {
    from.external(index)
        .and_then(|id| union.get(id))
        .with_context(|| format!("index {index} has no id in the union of the input files"))
}

fn build_model(
    name: &str,
    params: &[String],
    seed: u64,
    interactions: &Interactions,
    attributes: Option<&ItemAttributes>,
    qrels: Option<(&Qrels, &IdMap, &IdMap)>,
) -> anyhow::Result<Box<dyn Recommender>> {
    let values = ParamValues::parse(params)?;
    if values.raw("seed").is_some() {
        bail!("give the seed with --seed, not --param seed=...");
    }
    if name == ORACLE_NAME {
        let Some((qrels, users, items)) = qrels else {
            bail!("the {ORACLE_NAME} reads the test judgments: give --qrels");
        };
        if !params.is_empty() {
            bail!("the {ORACLE_NAME} takes no parameters");
        }
        return Ok(Box::new(Oracle::new(remap_judgments(qrels, users, items)?)));
    }
    let entry = registry::find(name)?;
    let fit = entry.build_checked(&values)?;
    let mut data = TrainData::new(interactions, seed);
    match attributes {
        Some(a) => data = data.with_attributes(a)?,
        None if entry.needs_attributes => bail!("model {name} needs --attributes"),
        None => {}
    }
    fit.fit_dyn(&data).with_context(|| format!("fitting {name}"))
}

/// Scores every qrels candidate and writes them as a run, in the qrels' order.
fn write_qrels_scores(
    writer: &mut Sink,
    model: &dyn Recommender,
    qrels: &Qrels,
    users: &IdMap,
    items: &IdMap,
    interactions: &Interactions,
) -> anyhow::Result<usize> {
    let item_counts = interactions.item_counts();
    let (mut new_items, mut new_users) = (0, 0);
    let mut row = Vec::new();
    let mut scores = Vec::with_capacity(qrels.judgments.n_candidates());
    for judged in qrels.judgments.iter() {
        let user = union_index(users, &qrels.users, judged.user)?;
        row.clear();
        for &i in judged.items {
            row.push(union_index(items, &qrels.items, i)?);
        }
        let start = scores.len();
        scores.resize(start + row.len(), 0.0f32);
        model.score(user, &row, &mut scores[start..])?;
        if interactions.user_items(user).is_empty() {
            new_users += row.len();
        }
        new_items += row.iter().filter(|&&item| item_counts[item as usize] == 0).count();
    }
    for_each_run_row(&qrels.judgments, &scores, &qrels.users, &qrels.items, |u, i, s| {
        writer.row(u, i, s)
    })?;
    if new_items > 0 {
        eprintln!(
            "warning: {new_items} candidates name items without training events; \
             they were scored as such"
        );
    }
    if new_users > 0 {
        eprintln!(
            "warning: {new_users} candidates belong to users without training events; \
             they were scored as such"
        );
    }
    // A missing (`NaN`) score is written as no line.
    Ok(scores.iter().filter(|s| !s.is_nan()).count())
}

#[allow(clippy::too_many_arguments)]
fn write_top(
    writer: &mut Sink,
    model: &dyn Recommender,
    n: usize,
    train_users: &[u32],
    train_items: &[u32],
    users: &IdMap,
    items: &IdMap,
    interactions: &Interactions,
) -> anyhow::Result<usize> {
    let mut written = 0;
    let mut candidates = Vec::with_capacity(train_items.len());
    let mut scores = Vec::with_capacity(train_items.len());
    let mut order: Vec<usize> = Vec::with_capacity(train_items.len());
    let mut sorted_items = train_items.to_vec();
    sorted_items.sort_unstable();
    for &user in train_users {
        let seen: HashSet<u32> = interactions.user_items(user).iter().copied().collect();
        candidates.clear();
        candidates.extend(sorted_items.iter().copied().filter(|i| !seen.contains(i)));
        scores.clear();
        scores.resize(candidates.len(), 0.0f32);
        model.score(user, &candidates, &mut scores)?;
        order.clear();
        order.extend(0..candidates.len());
        // Score descending, then item index ascending: a total, input-independent order.
        let by_rank = |&a: &usize, &b: &usize| {
            scores[b].total_cmp(&scores[a]).then(candidates[a].cmp(&candidates[b]))
        };
        let k = n.min(order.len());
        if k == 0 {
            continue;
        }
        if k < order.len() {
            order.select_nth_unstable_by(k - 1, by_rank);
            order.truncate(k);
        }
        order.sort_unstable_by(by_rank);
        let user_id = users.external(user).unwrap_or_default();
        for &k in &order {
            let item_id = items.external(candidates[k]).unwrap_or_default();
            writer.row(user_id, item_id, scores[k])?;
            written += 1;
        }
    }
    Ok(written)
}
