//! `recs data`: fetch registered datasets, print statistics, write synthetic data.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use recs_data::{
    Dataset, PowerLaw, Resolver, Stats, UserGroup, load_delimited, load_named, popularity_head,
    profile_groups, registry,
};

/// Arguments of `recs data`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// List the registered datasets.
    List,
    /// Find a registered dataset (--data-dir, RECS_DATA_DIR, cache) or download it; verify
    /// every file's sha256.
    Fetch {
        /// Dataset name (see `recs data list`).
        name: String,
        #[command(flatten)]
        location: Location,
    },
    /// Print statistics of a registered dataset or of a delimited file.
    Stats(StatsArgs),
    /// Write a synthetic dataset as a delimited file.
    Synth(SynthArgs),
}

#[derive(Debug, clap::Args)]
struct Location {
    /// Directory holding `<name>/` folders, searched before RECS_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Never download; fail when the files are not on disk.
    #[arg(long)]
    offline: bool,
}

impl Location {
    fn resolver(&self) -> Resolver {
        let r = Resolver::from_env()
            .with_data_dir(self.data_dir.clone())
            .with_progress(DownloadBar::on_terminal());
        if self.offline { r.with_download(false) } else { r }
    }
}

/// A download progress bar on standard error, drawn only when it is a terminal.
#[derive(Debug)]
pub(crate) struct DownloadBar(indicatif::ProgressBar);

impl DownloadBar {
    /// A bar for a resolver, or `None` when standard error is not a terminal.
    pub(crate) fn on_terminal() -> Option<std::sync::Arc<dyn recs_data::DownloadProgress>> {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Some(std::sync::Arc::new(DownloadBar(bar)))
    }
}

impl recs_data::DownloadProgress for DownloadBar {
    fn start(&self, name: &str, total_bytes: Option<u64>) {
        self.0.set_message(name.to_string());
        self.0.set_length(total_bytes.unwrap_or(0));
        self.0.set_position(0);
    }

    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

#[derive(Debug, clap::Args)]
struct StatsArgs {
    /// Registered dataset name.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    name: Option<String>,
    /// An interaction file instead of a registered dataset: delimited text, or Parquet /
    /// Arrow IPC with columns `user`, `item` [, `rating`] [, `timestamp`].
    #[arg(long)]
    file: Option<PathBuf>,
    /// Layout of --file.
    #[command(flatten)]
    format: crate::format::FileFormat,
    /// How --file treats a (user, item) pair seen twice: error, last, sum, max.
    #[arg(long, default_value = "error")]
    duplicates: String,
    /// Profile-length group bounds: `1,100,200` gives [1..99], [100..199], [200..].
    #[arg(long, value_delimiter = ',', default_value = "1,100,200")]
    group_bounds: Vec<u32>,
    /// Share of events held by the popularity head.
    #[arg(long, default_value_t = 0.5)]
    head_share: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    location: Location,
}

#[derive(Debug, clap::Args)]
struct SynthArgs {
    /// Which generator: `ignatov` (20 x 20, four 5 x 5 blocks of ones),
    /// `ignatov-overlapping` (the same rectangles at items 0, 3, 6, 9) or `power-law`.
    #[arg(long, default_value = "power-law")]
    kind: String,
    /// Output file.
    #[arg(long)]
    out: PathBuf,
    /// Field delimiter of the output (`\t` or `tab` for a tab).
    #[arg(long, default_value = "tab")]
    delimiter: String,
    /// Number of users (power-law).
    #[arg(long, default_value_t = PowerLaw::default().n_users)]
    users: usize,
    /// Number of items (power-law).
    #[arg(long, default_value_t = PowerLaw::default().n_items)]
    items: usize,
    /// Target number of events (power-law).
    #[arg(long, default_value_t = PowerLaw::default().n_events)]
    events: u64,
    /// Exponent of user activity (power-law).
    #[arg(long, default_value_t = PowerLaw::default().user_exponent)]
    user_exponent: f64,
    /// Exponent of item popularity (power-law).
    #[arg(long, default_value_t = PowerLaw::default().item_exponent)]
    item_exponent: f64,
    /// Smallest profile length (power-law).
    #[arg(long, default_value_t = PowerLaw::default().min_per_user)]
    min_per_user: u32,
    /// Number of latent clusters (power-law).
    #[arg(long, default_value_t = PowerLaw::default().n_clusters)]
    clusters: usize,
    /// Probability of an in-cluster pick (power-law).
    #[arg(long, default_value_t = PowerLaw::default().affinity)]
    affinity: f64,
    /// Write 1-5 ratings instead of 1.0 events (power-law).
    #[arg(long)]
    ratings: bool,
    /// Calibrate the item exponent so that the top N items of the generated data hold
    /// SHARE of its events (`N:SHARE`, e.g. `80:0.5`); measured on the rows of this seed.
    #[arg(long)]
    head: Option<String>,
    /// Calibrate the user exponent: users with at least L events make SHARE of users
    /// (`L:SHARE`). Not with --groups.
    #[arg(long, conflicts_with = "groups")]
    long_profiles: Option<String>,
    /// Profile-length groups to reproduce exactly, `LO:USERS` by increasing LO (e.g.
    /// `2:21810,10:3400,20:1568`): USERS users get lengths from LO to the next LO - 1 (the
    /// last group up to items / 2); lengths inside the groups follow a power law summing
    /// to --events, and --user-exponent is not used. Users left over get lengths from
    /// --min-per-user up to the first LO - 1.
    #[arg(long, value_delimiter = ',')]
    groups: Vec<String>,
    /// Random seed.
    #[arg(long, default_value_t = PowerLaw::default().seed)]
    seed: u64,
}

pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::List => {
            let mut out = std::io::stdout().lock();
            for spec in registry() {
                writeln!(out, "{:<16} {}", spec.name, spec.description)?;
            }
            Ok(())
        }
        Command::Fetch { name, location } => {
            let spec = recs_data::spec(&name)?;
            let resolved = location.resolver().resolve(spec)?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{} in {}", name, resolved.dir.display())?;
            for (file, pinned) in resolved.files.iter().zip(&spec.files) {
                let note = if pinned.sha256.is_some() { "verified" } else { "not pinned" };
                writeln!(out, "  {}  {}  ({note})", file.sha256, file.path.display())?;
            }
            Ok(())
        }
        Command::Stats(args) => stats(args),
        Command::Synth(args) => synth(args),
    }
}

fn stats(args: StatsArgs) -> anyhow::Result<()> {
    let dataset: Dataset = match (&args.name, &args.file) {
        (Some(name), _) => load_named(name, &args.location.resolver())?,
        (None, Some(file)) => {
            let policy = match args.duplicates.as_str() {
                "error" => recs_core::DuplicatePolicy::Error,
                "last" => recs_core::DuplicatePolicy::KeepLast,
                "sum" => recs_core::DuplicatePolicy::Sum,
                "max" => recs_core::DuplicatePolicy::Max,
                other => {
                    bail!("unknown duplicate policy `{other}` (expected error, last, sum or max)")
                }
            };
            let format = args.format.delimited()?.duplicates(policy);
            load_delimited(file, &format)?
        }
        (None, None) => bail!("give a dataset name or --file"),
    };
    let stats = Stats::of(&dataset.interactions);
    let groups = profile_groups(&dataset.interactions, &args.group_bounds)?;
    let head = popularity_head(&dataset.interactions, args.head_share)?;
    let test = dataset.test.as_ref().map(Stats::of);
    let mut out = std::io::stdout().lock();
    if args.json {
        let value = serde_json::json!({
            "name": dataset.name,
            "n_users": stats.n_users,
            "n_items": stats.n_items,
            "n_events": stats.n_events,
            "density": stats.density,
            "sparsity": 1.0 - stats.density,
            "users_without_events": stats.users_without_events,
            "items_without_events": stats.items_without_events,
            "value_histogram": stats.value_histogram,
            "profile_lengths": stats.profile_lengths,
            "item_popularity": stats.item_popularity,
            "gini_item_popularity": stats.gini_item_popularity,
            "groups": groups,
            "head_share": args.head_share,
            "head_items": head.n_items,
            "head": head,
            "test": test.map(|t| serde_json::json!({"n_events": t.n_events,
                "users_with_events": t.n_users - t.users_without_events})),
            "sources": dataset.sources.iter().map(|s| serde_json::json!({
                "path": s.path.display().to_string(), "sha256": s.sha256})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(());
    }
    writeln!(out, "dataset            {}", dataset.name)?;
    writeln!(out, "users              {}", stats.n_users)?;
    writeln!(out, "items              {}", stats.n_items)?;
    writeln!(out, "events             {}", stats.n_events)?;
    writeln!(
        out,
        "density            {:.6} (sparsity {:.4}%)",
        stats.density,
        100.0 * (1.0 - stats.density)
    )?;
    writeln!(out, "users w/o events   {}", stats.users_without_events)?;
    writeln!(out, "items w/o events   {}", stats.items_without_events)?;
    for (label, d) in
        [("profile length ", &stats.profile_lengths), ("item popularity", &stats.item_popularity)]
    {
        writeln!(
            out,
            "{label}    min {} / median {} / mean {:.2} / max {}",
            d.min, d.median, d.mean, d.max
        )?;
    }
    writeln!(out, "gini (items)       {:.4}", stats.gini_item_popularity)?;
    writeln!(
        out,
        "popularity head    {} items hold {:.2}% of events (target {:.0}%)",
        head.n_items,
        100.0 * head.share,
        100.0 * args.head_share
    )?;
    if stats.value_histogram.len() <= 20 {
        let parts: Vec<String> =
            stats.value_histogram.iter().map(|(v, c)| format!("{v}: {c}")).collect();
        writeln!(out, "values             {}", parts.join(", "))?;
    }
    writeln!(out, "\n{:<14} {:>9} {:>10} {:>8}", "profile length", "users", "events", "share")?;
    for g in &groups {
        let range = match g.hi {
            Some(hi) => format!("[{}..{}]", g.lo, hi),
            None => format!("[{}..]", g.lo),
        };
        writeln!(out, "{range:<14} {:>9} {:>10} {:>7.2}%", g.n_users, g.n_events, 100.0 * g.share)?;
    }
    if let Some(t) = test {
        writeln!(
            out,
            "\ntest part          {} events, {} users with events",
            t.n_events,
            t.n_users - t.users_without_events
        )?;
    }
    Ok(())
}

fn split_pair(text: &str, what: &str) -> anyhow::Result<(f64, f64)> {
    let (a, b) = text.split_once(':').with_context(|| format!("--{what} expects N:SHARE"))?;
    let (a, b) = (a.trim(), b.trim());
    Ok((
        a.parse().with_context(|| format!("--{what}: `{a}` is not a number"))?,
        b.parse().with_context(|| format!("--{what}: `{b}` is not a number"))?,
    ))
}

/// `LO:USERS` pieces of --groups.
fn user_groups(pieces: &[String]) -> anyhow::Result<Vec<UserGroup>> {
    pieces
        .iter()
        .map(|piece| {
            let (lo, n) = piece
                .split_once(':')
                .with_context(|| format!("--groups expects LO:USERS pieces, found `{piece}`"))?;
            Ok(UserGroup {
                lo: lo
                    .trim()
                    .parse()
                    .with_context(|| format!("--groups: `{lo}` is not a length"))?,
                n_users: n
                    .trim()
                    .parse()
                    .with_context(|| format!("--groups: `{n}` is not a number of users"))?,
            })
        })
        .collect()
}

/// The power-law parameters of the command line, calibrated as asked.
fn power_law(args: &SynthArgs) -> anyhow::Result<PowerLaw> {
    let mut p = PowerLaw {
        n_users: args.users,
        n_items: args.items,
        n_events: args.events,
        user_exponent: args.user_exponent,
        item_exponent: args.item_exponent,
        min_per_user: args.min_per_user,
        n_clusters: args.clusters,
        affinity: args.affinity,
        ratings: args.ratings,
        seed: args.seed,
        user_groups: user_groups(&args.groups)?,
    };
    // Every parameter error (including an event count the groups cannot reach) surfaces
    // here, before the output file exists.
    p.profile_lengths()?;
    // Lengths first: the head depends on them.
    if let Some(long) = &args.long_profiles {
        let (len, long_share) = split_pair(long, "long-profiles")?;
        if len.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&len) {
            bail!("--long-profiles: `{len}` is not a profile length");
        }
        p = p.calibrate_long_profiles(len as u32, long_share)?;
        eprintln!("calibrated user exponent {:.6}", p.user_exponent);
    }
    if let Some(head) = &args.head {
        let (n, share) = split_pair(head, "head")?;
        if n.fract() != 0.0 || n < 0.0 {
            bail!("--head: `{n}` is not a number of items");
        }
        p = p.calibrate_head(n as usize, share)?;
        eprintln!("calibrated item exponent {:.6}", p.item_exponent);
    }
    Ok(p)
}

/// What `recs data synth --kind` generates.
enum Generator {
    /// A fixed block matrix.
    Blocks(fn() -> recs_data::Result<recs_data::Dataset>),
    /// The power-law generator, its parameters checked and calibrated.
    PowerLaw(recs_data::PowerLaw),
}

fn synth(args: SynthArgs) -> anyhow::Result<()> {
    let label = args.out.display().to_string();
    let delimiter = recs_data::delimiter_from_name(&args.delimiter);
    // Parameters are checked and calibrated before the output file is created.
    let params = match args.kind.as_str() {
        "ignatov" => Generator::Blocks(recs_data::ignatov_blocks),
        "ignatov-overlapping" => Generator::Blocks(recs_data::ignatov_blocks_overlapping),
        "power-law" => Generator::PowerLaw(power_law(&args)?),
        other => bail!(
            "unknown generator `{other}` (expected ignatov, ignatov-overlapping or power-law)"
        ),
    };
    let file = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let written = match params {
        Generator::Blocks(blocks) => {
            let d = blocks()?;
            for e in d.interactions.events() {
                let user = d.users.external(e.user).unwrap_or_default();
                let item = d.items.external(e.item).unwrap_or_default();
                writeln!(out, "{user}{delimiter}{item}{delimiter}{}", e.value)?;
            }
            out.flush()?;
            d.n_events() as u64
        }
        Generator::PowerLaw(p) => p.write_delimited(&mut out, delimiter, &label)?,
    };
    eprintln!("wrote {written} events to {label}");
    Ok(())
}
