//! `recs split`: divide a dataset into training and test files with one protocol, and
//! optionally write the judgments (qrels) of a test mode for `recs eval`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use recs_core::{IdMap, Interactions, Judgments};
use recs_data::{Dataset, Resolver, load_delimited, load_named};
use recs_split::{GradeScale, JudgedUsers, JudgmentOptions, Protocol, Split, SplitId};
use serde_json::json;

/// Version of the `split.json` layout; bumped on any incompatible change.
const FORMAT_VERSION: u32 = 1;

/// Arguments of `recs split` (boxed: they are many, and the command enum stays small).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Writes to --out: train.tsv and test.tsv (user, item, rating[, timestamp] with the original \
ids), history.tsv for protocols that keep test users out of training (strong, given-l, \
--generalization strong), split.json (protocol, options, seed, counts), and with \
--judgments, qrels.tsv: one `user<TAB>item<TAB>grade` line per candidate (grade 0 = not \
relevant), the input of `recs eval --qrels`.

Amounts (--test-items, --test-users, --hidden, --k) are a count (`331`), a fraction \
(`0.2`) or a percentage (`20%`).")]
pub(crate) struct Args {
    #[command(flatten)]
    options: Box<Options>,
}

/// The options of `recs split`.
#[derive(Debug, clap::Args)]
struct Options {
    /// Registered dataset (`ml-100k`, `msweb`, ...), found through --data-dir,
    /// RECS_DATA_DIR or the cache.
    #[arg(long, required_unless_present = "file", conflicts_with = "file")]
    dataset: Option<String>,
    /// An interaction file instead: delimited text (`user item [rating [timestamp]]`), or
    /// Parquet / Arrow IPC with columns `user`, `item` [, `rating`] [, `timestamp`].
    #[arg(long)]
    file: Option<PathBuf>,
    /// With --file and `--protocol predefined`: the test file, in the same format.
    #[arg(long, requires = "file")]
    test_file: Option<PathBuf>,
    /// Layout of --file (and --test-file).
    #[command(flatten)]
    format: crate::format::FileFormat,
    /// Directory holding `<name>/` dataset folders, searched before RECS_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,

    /// holdout, leave-k-out, leave-one-out, kfold-events, kfold-users, hidden-items,
    /// cold-start-items, predefined, strong, given-l, temporal.
    #[arg(long)]
    protocol: String,
    /// Seed of every random choice.
    #[arg(long, default_value_t = recs_core::DEFAULT_SEED)]
    seed: u64,
    /// Repetition to write (each repetition draws anew).
    #[arg(long, default_value_t = 0)]
    repetition: u32,
    /// Fold to write, from 0 (kfold-events, kfold-users, hidden-items).
    #[arg(long, default_value_t = 0)]
    fold: u32,

    /// holdout: fraction of all events held out [default: 0.2].
    #[arg(long)]
    test_fraction: Option<String>,
    /// leave-k-out: events held out per user (amount) [default: 1].
    #[arg(long)]
    k: Option<String>,
    /// leave-k-out, temporal --last-n: events kept in training per user, at least
    /// [default: 1].
    #[arg(long)]
    min_train: Option<String>,
    /// kfold-events, kfold-users, hidden-items: number of folds [default: 5].
    #[arg(long)]
    folds: Option<String>,
    /// kfold-users, strong: events each test user keeps visible (given-n); a number below 1
    /// is a fraction of the user's events [default: 1].
    #[arg(long, conflicts_with = "all_but")]
    given: Option<String>,
    /// kfold-users, strong: every event visible but this many (all-but-n).
    #[arg(long)]
    all_but: Option<usize>,
    /// kfold-users, hidden-items: where visible events of test users go (weak: training;
    /// strong: history.tsv) [default: weak].
    #[arg(long)]
    generalization: Option<String>,
    /// hidden-items: hidden item columns (amount) [default: 10].
    #[arg(long)]
    hidden: Option<String>,
    /// cold-start-items: test items (amount) [default: 0.2].
    #[arg(long)]
    test_items: Option<String>,
    /// cold-start-items: minimum events for an item to be drawn [default: 0].
    #[arg(long)]
    min_item_events: Option<String>,
    /// strong, given-l: test users (amount) [default: 0.2].
    #[arg(long)]
    test_users: Option<String>,
    /// given-l: the history length L to write (1..=--max-l).
    #[arg(long, default_value_t = 1)]
    l: usize,
    /// given-l: the largest L of the series [default: 50].
    #[arg(long)]
    max_l: Option<String>,
    /// given-l: order in which events become history (random, timestamp) [default:
    /// random].
    #[arg(long)]
    order: Option<String>,
    /// temporal: events at or after this timestamp are test events.
    #[arg(long, conflicts_with_all = ["cut_fraction", "last_n"])]
    cut: Option<i64>,
    /// temporal: place the cut so that about this fraction of the latest events is test.
    #[arg(long, conflicts_with = "last_n")]
    cut_fraction: Option<f64>,
    /// temporal: each user's n latest events are test events (per-user last-n).
    #[arg(long)]
    last_n: Option<usize>,

    /// Also write qrels.tsv for this test mode: implicit, rating:T or conditional:T.
    #[arg(long)]
    judgments: Option<String>,
    /// Which users are judged when the protocol designates none: all (schein2005's
    /// person × item cross product) or test (users with test events).
    #[arg(long, default_value = "all")]
    judge_users: String,
    /// Judge only users with at least this many training (and history) events.
    #[arg(long, default_value_t = 0)]
    min_train_events: usize,
    /// Grade positives with their rating instead of 1.
    #[arg(long)]
    graded: bool,

    /// Output directory (created if missing).
    #[arg(long)]
    out: PathBuf,
}

/// Runs `recs split`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let args = *args.options;
    let (dataset, source) = load(&args)?;
    let options = match &args.judgments {
        Some(mode) => Some(judgment_options(&args, mode)?),
        None => None,
    };
    let (split, protocol_json, id) = if args.protocol == "predefined" {
        let test = dataset
            .test
            .clone()
            .with_context(|| format!("{source} has no predefined test part"))?;
        let split = Split::predefined(dataset.interactions.clone(), test)?;
        (split, json!({ "protocol": "predefined" }), SplitId::default())
    } else {
        let protocol = protocol(&args)?;
        let id = match protocol {
            Protocol::GivenL { max_l, .. } => {
                if !(1..=max_l).contains(&args.l) {
                    bail!("--l {} must be between 1 and --max-l ({max_l})", args.l);
                }
                SplitId::new(args.repetition, (args.l - 1) as u32)
            }
            _ => SplitId::new(args.repetition, args.fold),
        };
        let split = protocol
            .split(&dataset.interactions, args.seed, id)
            .with_context(|| format!("cannot split {source} with {}", args.protocol))?;
        (split, serde_json::to_value(&protocol)?, id)
    };

    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut files = vec!["train.tsv", "test.tsv"];
    write_events(&args.out.join("train.tsv"), split.train(), &dataset)?;
    write_events(&args.out.join("test.tsv"), split.test(), &dataset)?;
    if let Some(history) = split.history() {
        write_events(&args.out.join("history.tsv"), history, &dataset)?;
        files.push("history.tsv");
    }
    let judgments_json = match &options {
        Some(options) => {
            let judgments = split.judgments(options)?;
            write_qrels(&args.out.join("qrels.tsv"), &judgments, &dataset)?;
            files.push("qrels.tsv");
            json!({
                "mode": args.judgments,
                "options": options,
                "judged_users": judgments.n_judged_users(),
                "candidates": judgments.n_candidates(),
                "positives": judgments.iter().map(|u| u.grades.iter().filter(|&&g| g > 0.0).count()).sum::<usize>(),
            })
        }
        None => serde_json::Value::Null,
    };
    files.push("split.json");
    let summary = split.summary();
    let report = json!({
        "format_version": FORMAT_VERSION,
        "version": env!("CARGO_PKG_VERSION"),
        "dataset": source,
        "protocol": protocol_json,
        "seed": args.seed,
        "repetition": id.repetition,
        "fold": id.fold,
        "counts": {
            "users": split.n_users(),
            "items": split.n_items(),
            "train_events": summary.train_events,
            "test_events": summary.test_events,
            "history_events": summary.history_events,
            "test_users": split.test_users().map_or(summary.test_users, <[u32]>::len),
            "users_with_test_events": summary.test_users,
            "test_items": split.candidate_items().map_or(summary.test_items, <[u32]>::len),
            "items_with_test_events": summary.test_items,
            "overlapping_test_events": summary.overlapping_test_events,
        },
        "judgments": judgments_json,
        "files": files,
    });
    let path = args.out.join("split.json");
    let text = serde_json::to_string_pretty(&report)? + "\n";
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The dataset and a name for it in messages and `split.json`.
fn load(args: &Options) -> anyhow::Result<(Dataset, String)> {
    if let Some(name) = &args.dataset {
        let resolver = Resolver::from_env().with_data_dir(args.data_dir.clone());
        let dataset = load_named(name, &resolver)?;
        return Ok((dataset, name.clone()));
    }
    let Some(file) = &args.file else { bail!("give --dataset or --file") };
    let format = args.format.delimited()?;
    let train = load_delimited(file, &format)?;
    let source = file.display().to_string();
    match &args.test_file {
        None => Ok((train, source)),
        Some(test_file) => {
            let test = load_delimited(test_file, &format)?;
            Ok((recs_data::join_predefined(train, test)?, source))
        }
    }
}

/// The protocol of `--protocol` with the flags given; flags not given take the defaults
/// `recs-split` defines for every front end.
fn protocol(args: &Options) -> anyhow::Result<Protocol> {
    let mut name = args.protocol.as_str();
    let mut values: Vec<(String, String)> = Vec::new();
    let mut put = |key: &str, value: Option<String>| {
        if let Some(value) = value {
            values.push((key.to_string(), value));
        }
    };
    put("test_fraction", args.test_fraction.clone());
    put("k", args.k.clone());
    put("min_train", args.min_train.clone());
    put("folds", args.folds.clone());
    put("given", args.all_but.map(|n| format!("all-but:{n}")).or_else(|| args.given.clone()));
    put("generalization", args.generalization.clone());
    put("hidden", args.hidden.clone());
    put("test_items", args.test_items.clone());
    put("min_item_events", args.min_item_events.clone());
    put("test_users", args.test_users.clone());
    put("max_l", args.max_l.clone());
    put("order", args.order.clone());
    if name == "temporal" {
        match (args.cut, args.cut_fraction, args.last_n) {
            (Some(t), _, _) => put("cut", Some(format!("at:{t}"))),
            (_, Some(f), _) => put("cut", Some(format!("fraction:{f}"))),
            (_, _, Some(n)) => {
                name = "temporal-last-n";
                put("n", Some(n.to_string()));
            }
            _ => bail!("temporal needs --cut, --cut-fraction or --last-n"),
        }
    }
    // Flags are shared by several protocols: pass on only the keys this one reads.
    let keys = recs_split::protocol_keys(name).with_context(|| {
        format!("unknown protocol `{name}`: expected predefined, {}", recs_split::protocol_names())
    })?;
    values.retain(|(key, _)| keys.iter().any(|k| k.name == key));
    Protocol::from_keys(name, &values).with_context(|| format!("--protocol {name}"))
}

/// `implicit`, `rating:T` or `conditional:T`, plus the judging options.
fn judgment_options(args: &Options, mode: &str) -> anyhow::Result<JudgmentOptions> {
    let mut options =
        JudgmentOptions::from_mode(mode).with_context(|| format!("--judgments {mode}"))?;
    options =
        options.min_known_events(args.min_train_events).users(match args.judge_users.as_str() {
            "all" => JudgedUsers::All,
            "test" => JudgedUsers::WithTestEvents,
            other => bail!("--judge-users {other}: expected all or test"),
        });
    if args.graded {
        options = options.grade(GradeScale::Rating);
    }
    Ok(options)
}

fn create(path: &Path) -> anyhow::Result<BufWriter<File>> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(BufWriter::new(file))
}

fn external(map: &IdMap, index: u32) -> anyhow::Result<&str> {
    map.external(index).with_context(|| format!("index {index} has no external id"))
}

/// `user<TAB>item<TAB>rating[<TAB>timestamp]` with the original ids, user-major.
fn write_events(path: &Path, events: &Interactions, dataset: &Dataset) -> anyhow::Result<()> {
    let mut out = create(path)?;
    for e in events.events() {
        let user = external(&dataset.users, e.user)?;
        let item = external(&dataset.items, e.item)?;
        match e.timestamp {
            Some(t) => writeln!(out, "{user}\t{item}\t{}\t{t}", e.value)?,
            None => writeln!(out, "{user}\t{item}\t{}", e.value)?,
        }
    }
    out.flush().with_context(|| format!("cannot write {}", path.display()))
}

/// `user<TAB>item<TAB>grade`, one line per candidate, with the original ids.
fn write_qrels(path: &Path, judgments: &Judgments, dataset: &Dataset) -> anyhow::Result<()> {
    let mut out = create(path)?;
    recs_metrics::io::write_qrels(&mut out, judgments, &dataset.users, &dataset.items)
        .and_then(|()| out.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}
