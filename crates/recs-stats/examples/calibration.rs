//! Calibration of the tests and adjustments of `recs-stats` on real per-user values: how
//! often each one rejects when there is no difference (false-positive rate, family-wise
//! error rate) and when a known difference is planted (power), measured by resampling
//! users, as `docs/statistics.md` ("Calibration on real runs") reports.
//!
//! The per-user values are files that `calibration-data.sh` (beside this file) writes
//! from `recs` runs; this program only reads them:
//!
//! ```sh
//! sh crates/recs-stats/examples/calibration-data.sh /tmp/recs-calibration
//! RAYON_NUM_THREADS=2 cargo run --release -p recs-stats --example calibration -- \
//!     /tmp/recs-calibration
//! ```
//!
//! `DIR/<dataset>/per-user.tsv` has a header `user<TAB>RUN:METRIC...` and one line per
//! user; a user with a non-numeric value in any column is left out. Options after the
//! folder: `--replications N` (default 1,000), `--permutations P` (draws of Fisher's
//! test, the bootstrap and the Tukey HSD inside each replication; default 1,000),
//! `--seed S` (default 42), `--alpha A` (default 0.05), `--quick` (100 replications, to
//! check the plumbing). Every replication draws from its own stream, derived from the
//! seed, the setting and its index, so the tables are the same at any thread count.
//!
//! Settings, for each data set, metric and number of users `n` (drawn with replacement
//! from the real users in every replication):
//!
//! - `swap`: two runs of different models, each user's pair of values swapped with
//!   probability ½ — the sign-flip null, true by construction;
//! - `seeds, swapped`: the same with two runs of one model fitted with two different
//!   seeds (drawn among the seeded runs in each replication): a true null on values that
//!   are mostly tied;
//! - `seeds`: those two runs as they are — what "the same model" means in practice; the
//!   real users' mean difference between two seeds is not exactly 0, so this is the
//!   null about models, not about runs;
//! - `planted δ`: `swap`, then `δ` added to the first system's value for each user with
//!   probability 0.3 (the mean difference is `0.3 δ` in expectation);
//! - `planted δ, untied users only`: the same, on the users whose two values differ;
//! - families of five systems: `permuted` (five runs of different models, each user's five
//!   values permuted at random across the systems: the complete null), `seeds` (five
//!   seeds of one model as they are) and `partial` (`permuted`, then `δ = 0.05` planted on
//!   systems 0 and 1 for 30% of the users each, independently: 4 true nulls, 6 true
//!   differences).
//!
//! A rate is printed with its 95% Wilson score interval over the replications.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use recs_core::mix64;
use recs_stats::{
    Adjustment, WilcoxonMethod, adjust_p_values, fisher_randomisation, paired_bootstrap,
    paired_t_test, randomised_tukey_hsd, sign_test, wilcoxon_signed_rank,
};

/// The data sets, as folders of the data directory.
const DATASETS: [&str; 2] = ["ml-100k", "msweb"];
/// The per-user metrics.
const METRICS: [&str; 2] = ["ndcg@10", "r@10"];
/// Numbers of users drawn in each replication.
const SIZES: [usize; 3] = [50, 200, 1_000];
/// The two runs of different models in `swap` and `planted`: the two neighbourhood models
/// (close on MovieLens, far apart on MS Web).
const PAIR: [&str; 2] = ["user-knn", "item-knn"];
/// Runs of one randomised model fitted with different seeds.
const SEEDED: [&str; 5] = ["ials@1", "ials@2", "ials@3", "ials@4", "ials@5"];
/// Five runs of different models for the `permuted` family.
const FIVE: [&str; 5] = ["item-pop", "item-knn", "user-knn", "ials@1", "puresvd"];
/// Planted improvements of `planted δ`.
const DELTAS: [f64; 2] = [0.02, 0.05];
/// The improvement planted on untied users only (`a ≠ b`), to tell a change of the mean
/// from the breaking of ties.
const UNTIED_DELTA: f64 = 0.05;
/// The share of users whose value gets the planted improvement.
const SHARE: f64 = 0.3;
/// The improvement planted on two systems of the `partial` family.
const FAMILY_DELTA: f64 = 0.05;

/// The paired tests, in the order of the tables.
const TESTS: [&str; 5] = ["t", "Wilcoxon", "sign", "Fisher", "bootstrap"];
/// The family decisions, in the order of the tables.
const FAMILY: [&str; 9] = [
    "t raw",
    "t Bonferroni",
    "t Holm",
    "t BH",
    "Fisher raw",
    "Fisher Bonferroni",
    "Fisher Holm",
    "Fisher BH",
    "Tukey HSD",
];

struct Options {
    dir: PathBuf,
    replications: usize,
    permutations: usize,
    seed: u64,
    alpha: f64,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        dir: PathBuf::from("/tmp/recs-calibration"),
        replications: 1_000,
        permutations: 1_000,
        seed: 42,
        alpha: 0.05,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let bad = |name: &str, e: String| format!("{name}: {e}");
        match arg.as_str() {
            "--replications" => {
                o.replications = value(&arg)?.parse().map_err(|e| bad(&arg, format!("{e}")))?;
            }
            "--permutations" => {
                o.permutations = value(&arg)?.parse().map_err(|e| bad(&arg, format!("{e}")))?;
            }
            "--seed" => o.seed = value(&arg)?.parse().map_err(|e| bad(&arg, format!("{e}")))?,
            "--alpha" => o.alpha = value(&arg)?.parse().map_err(|e| bad(&arg, format!("{e}")))?,
            "--quick" => o.replications = 100,
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => o.dir = PathBuf::from(other),
        }
    }
    Ok(o)
}

/// Per-user values of one data set: `column name → values`, the users in file order.
struct PerUser {
    users: usize,
    dropped: usize,
    columns: BTreeMap<String, Vec<f64>>,
}

impl PerUser {
    fn read(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().ok_or("empty file")?.split('\t').collect();
        let names = &header[1..];
        let mut values = vec![Vec::new(); names.len()];
        let (mut users, mut dropped) = (0, 0);
        for (number, line) in lines.enumerate() {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != header.len() {
                return Err(format!(
                    "{} line {}: {} fields",
                    path.display(),
                    number + 2,
                    fields.len()
                ));
            }
            let row: Vec<f64> = fields[1..].iter().filter_map(|f| f.parse::<f64>().ok()).collect();
            if row.len() != names.len() || row.iter().any(|v| !v.is_finite()) {
                dropped += 1;
                continue;
            }
            users += 1;
            for (column, v) in values.iter_mut().zip(row) {
                column.push(v);
            }
        }
        let columns = names.iter().map(|n| n.to_string()).zip(values).collect();
        Ok(Self { users, dropped, columns })
    }

    fn column(&self, run: &str, metric: &str) -> Result<&[f64], String> {
        let name = format!("{run}:{metric}");
        self.columns.get(&name).map(Vec::as_slice).ok_or(format!("no column {name}"))
    }
}

/// A 64-bit name of a setting (FNV-1a of its description).
fn setting_id(description: &str) -> u64 {
    description
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// One replication's generator: the seed, the setting and the replication's index.
fn stream(seed: u64, setting: u64, replication: u64) -> Xoshiro256PlusPlus {
    let words = [mix64(seed), mix64(setting ^ 0x9E37_79B9_7F4A_7C15), mix64(replication), 1];
    let mut state = [0u8; 32];
    for (chunk, word) in state.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(state)
}

/// A uniform index below `n` (multiply-shift; the bias is below `n / 2⁶⁴`).
fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// A uniform number in `[0, 1)`.
fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The Wilson score interval of a proportion `x / trials` at 95%.
fn wilson(x: usize, trials: usize) -> (f64, f64) {
    let (x, n, z) = (x as f64, trials as f64, 1.959_963_984_540_054);
    let centre = (x + z * z / 2.0) / (n + z * z);
    let half = z / (n + z * z) * (x * (n - x) / n + z * z / 4.0).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn rate(x: usize, trials: usize) -> String {
    let (lo, hi) = wilson(x, trials);
    format!("{:.3} [{lo:.3}, {hi:.3}]", x as f64 / trials as f64)
}

/// How the two systems of a pair setting are made from the users drawn.
#[derive(Clone, Copy)]
enum PairSetting {
    Swap,
    SeedsSwap,
    Seeds,
    Planted(f64),
    PlantedUntied(f64),
}

impl PairSetting {
    fn name(self) -> String {
        match self {
            Self::Swap => "swap".into(),
            Self::SeedsSwap => "seeds, swapped".into(),
            Self::Seeds => "seeds".into(),
            Self::Planted(d) => format!("planted δ = {d}"),
            Self::PlantedUntied(d) => format!("planted δ = {d}, untied users only"),
        }
    }
}

/// The five tests' decisions (`p < alpha`) on one pair.
fn decide(a: &[f64], b: &[f64], o: &Options, seed: u64) -> [bool; 5] {
    let p = [
        paired_t_test(a, b).expect("t").p_value,
        wilcoxon_signed_rank(a, b, WilcoxonMethod::Auto).expect("wilcoxon").p_value,
        sign_test(a, b).expect("sign").p_value,
        fisher_randomisation(a, b, o.permutations, seed).expect("fisher").p_value,
        paired_bootstrap(a, b, o.permutations, 0.95, seed ^ 1).expect("bootstrap").p_value,
    ];
    p.map(|p| p < o.alpha)
}

/// Rejection counts of the five tests in `setting` over the replications.
fn pair_rates(
    dataset: &str,
    data: &PerUser,
    metric: &str,
    n: usize,
    setting: PairSetting,
    o: &Options,
) -> Result<[usize; 5], String> {
    let [first, second] = PAIR.map(|run| data.column(run, metric));
    let (first, second) = (first?, second?);
    let seeded: Vec<&[f64]> =
        SEEDED.iter().map(|run| data.column(run, metric)).collect::<Result<_, _>>()?;
    let id = setting_id(&format!("pair/{dataset}/{metric}/{n}/{}", setting.name()));
    let counts = (0..o.replications)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream(o.seed, id, r as u64);
            let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
            let (x, y) = match setting {
                PairSetting::Seeds | PairSetting::SeedsSwap => {
                    let i = below(&mut rng, SEEDED.len());
                    let j = below(&mut rng, SEEDED.len() - 1);
                    (seeded[i], seeded[if j >= i { j + 1 } else { j }])
                }
                _ => (first, second),
            };
            for _ in 0..n {
                let u = below(&mut rng, data.users);
                let (mut va, mut vb) = (x[u], y[u]);
                if !matches!(setting, PairSetting::Seeds) && rng.next_u64() >> 63 == 1 {
                    std::mem::swap(&mut va, &mut vb);
                }
                match setting {
                    PairSetting::Planted(delta) if uniform(&mut rng) < SHARE => va += delta,
                    PairSetting::PlantedUntied(delta) if va != vb && uniform(&mut rng) < SHARE => {
                        va += delta;
                    }
                    _ => {}
                }
                a.push(va);
                b.push(vb);
            }
            decide(&a, &b, o, rng.next_u64()).map(usize::from)
        })
        .reduce(|| [0; 5], |x, y| std::array::from_fn(|i| x[i] + y[i]));
    Ok(counts)
}

/// How the five systems of a family setting are made from the users drawn.
#[derive(Clone, Copy)]
enum FamilySetting {
    Permuted,
    Seeds,
    Partial,
}

impl FamilySetting {
    fn name(self) -> &'static str {
        match self {
            Self::Permuted => "permuted",
            Self::Seeds => "seeds",
            Self::Partial => "partial",
        }
    }
    /// Whether pair `(i, j)` (`i < j`) is a true null in this setting.
    fn null(self, i: usize, j: usize) -> bool {
        !matches!(self, Self::Partial) || (i < 2) == (j < 2)
    }
}

/// Per family decision: replications with a false rejection, and true differences
/// found (summed over replications and pairs).
#[derive(Clone, Copy, Default)]
struct FamilyCounts {
    errors: [usize; 9],
    found: [usize; 9],
}

fn family_rates(
    dataset: &str,
    data: &PerUser,
    metric: &str,
    n: usize,
    setting: FamilySetting,
    o: &Options,
) -> Result<FamilyCounts, String> {
    let runs = if matches!(setting, FamilySetting::Seeds) { SEEDED } else { FIVE };
    let columns: Vec<&[f64]> =
        runs.iter().map(|run| data.column(run, metric)).collect::<Result<_, _>>()?;
    let k = columns.len();
    let pairs: Vec<(usize, usize)> = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).collect();
    let id = setting_id(&format!("family/{dataset}/{metric}/{n}/{}", setting.name()));
    let counts = (0..o.replications)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream(o.seed, id, r as u64);
            let mut systems = vec![Vec::with_capacity(n); k];
            let mut order: Vec<usize> = (0..k).collect();
            for _ in 0..n {
                let u = below(&mut rng, data.users);
                if !matches!(setting, FamilySetting::Seeds) {
                    for i in (1..k).rev() {
                        order.swap(i, below(&mut rng, i + 1));
                    }
                }
                for (s, system) in systems.iter_mut().enumerate() {
                    let mut v = columns[order[s]][u];
                    if matches!(setting, FamilySetting::Partial)
                        && s < 2
                        && uniform(&mut rng) < SHARE
                    {
                        v += FAMILY_DELTA;
                    }
                    system.push(v);
                }
            }
            let seed = rng.next_u64();
            let t: Vec<f64> = pairs
                .iter()
                .map(|&(i, j)| paired_t_test(&systems[i], &systems[j]).expect("t").p_value)
                .collect();
            let fisher: Vec<f64> = pairs
                .iter()
                .map(|&(i, j)| {
                    fisher_randomisation(&systems[i], &systems[j], o.permutations, seed)
                        .expect("fisher")
                        .p_value
                })
                .collect();
            let tukey = randomised_tukey_hsd(&systems, o.permutations, seed ^ 1).expect("tukey");
            let tukey: Vec<f64> =
                pairs.iter().map(|&(i, j)| tukey.pair(i, j).unwrap().p_value).collect();
            let mut decisions: Vec<Vec<f64>> = Vec::with_capacity(9);
            for p in [&t, &fisher] {
                decisions.push(p.clone());
                for method in
                    [Adjustment::Bonferroni, Adjustment::Holm, Adjustment::BenjaminiHochberg]
                {
                    decisions.push(adjust_p_values(p, method).expect("adjust"));
                }
            }
            decisions.push(tukey);
            let mut c = FamilyCounts::default();
            for (m, p) in decisions.iter().enumerate() {
                let mut error = false;
                for (&(i, j), &p) in pairs.iter().zip(p) {
                    let reject = p < o.alpha;
                    if setting.null(i, j) {
                        error |= reject;
                    } else {
                        c.found[m] += usize::from(reject);
                    }
                }
                c.errors[m] = usize::from(error);
            }
            c
        })
        .reduce(FamilyCounts::default, |x, y| FamilyCounts {
            errors: std::array::from_fn(|i| x.errors[i] + y.errors[i]),
            found: std::array::from_fn(|i| x.found[i] + y.found[i]),
        });
    Ok(counts)
}

/// Mean and standard deviation of `values`.
fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// What the data look like: the means of every run, the share of zero differences of the
/// pair, and the full-data tests between seeds.
fn describe(name: &str, data: &PerUser, o: &Options) -> Result<String, String> {
    let mut out = String::new();
    writeln!(out, "\n### {name}: {} users ({} left out)\n", data.users, data.dropped).unwrap();
    writeln!(out, "| run | {} |", METRICS.join(" | ")).unwrap();
    writeln!(out, "|---|{}", "---:|".repeat(METRICS.len())).unwrap();
    let mut runs: Vec<&str> = FIVE.iter().chain(&SEEDED).copied().collect();
    runs.sort_unstable();
    runs.dedup();
    for run in runs {
        let cells: Vec<String> = METRICS
            .iter()
            .map(|m| data.column(run, m).map(|v| format!("{:.4}", mean_sd(v).0)))
            .collect::<Result<_, _>>()?;
        writeln!(out, "| {run} | {} |", cells.join(" | ")).unwrap();
    }
    writeln!(out).unwrap();
    for metric in METRICS {
        let a = data.column(PAIR[0], metric)?;
        let b = data.column(PAIR[1], metric)?;
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        let zeros = d.iter().filter(|&&x| x == 0.0).count();
        let (mean, sd) = mean_sd(&d);
        let rms = (d.iter().map(|x| x * x).sum::<f64>() / d.len() as f64).sqrt();
        writeln!(
            out,
            "- {metric}, {} − {}: mean difference {mean:+.4}, sd {sd:.4}, {:.1}% of users with \
             a zero difference; under `swap` the sd of the differences is {rms:.4}, so \
             `planted δ` has d_z ≈ {}",
            PAIR[0],
            PAIR[1],
            100.0 * zeros as f64 / d.len() as f64,
            DELTAS
                .iter()
                .map(|delta| {
                    let sd = (rms * rms + delta * delta * SHARE * (1.0 - SHARE)).sqrt();
                    format!("{:.3} (δ = {delta})", SHARE * delta / sd)
                })
                .chain(std::iter::once({
                    let untied = 1.0 - zeros as f64 / d.len() as f64;
                    let delta = UNTIED_DELTA;
                    let sd = (rms * rms + delta * delta * SHARE * untied * (1.0 - SHARE * untied))
                        .sqrt();
                    format!("{:.3} (δ = {delta}, untied users only)", SHARE * untied * delta / sd)
                }))
                .collect::<Vec<_>>()
                .join(", ")
        )
        .unwrap();
        let mut seeds = Vec::new();
        for (i, first) in SEEDED.iter().enumerate() {
            for second in &SEEDED[i + 1..] {
                let x = data.column(first, metric)?;
                let y = data.column(second, metric)?;
                let t = paired_t_test(x, y).map_err(|e| e.to_string())?;
                let f = fisher_randomisation(x, y, 10_000, o.seed).map_err(|e| e.to_string())?;
                let (mean, sd) = mean_sd(&x.iter().zip(y).map(|(p, q)| p - q).collect::<Vec<_>>());
                let zeros = x.iter().zip(y).filter(|(p, q)| p == q).count();
                seeds.push((mean, sd, t.p_value, f.p_value, zeros as f64 / x.len() as f64));
            }
        }
        let largest = seeds.iter().map(|s| s.0.abs()).fold(0.0, f64::max);
        let smallest_p = seeds.iter().map(|s| s.2).fold(1.0, f64::min);
        let below_alpha = seeds.iter().filter(|s| s.2 < o.alpha).count();
        let sd_range = seeds
            .iter()
            .map(|s| s.1)
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), s| (lo.min(s), hi.max(s)));
        let fisher_below = seeds.iter().filter(|s| s.3 < o.alpha).count();
        let tied = seeds.iter().map(|s| s.4).sum::<f64>() / seeds.len() as f64;
        writeln!(
            out,
            "- {metric}, the {} pairs of seeds on all users: |mean difference| up to \
             {largest:.4}, sd of the differences {:.4} to {:.4}, {:.1}% of users with a zero \
             difference (mean over pairs), smallest t p-value {smallest_p:.2e}, {below_alpha} \
             of {} with t p < {} ({fisher_below} with Fisher p < {}, 10,000 permutations)",
            seeds.len(),
            sd_range.0,
            sd_range.1,
            100.0 * tied,
            seeds.len(),
            o.alpha,
            o.alpha
        )
        .unwrap();
    }
    Ok(out)
}

fn run() -> Result<(), String> {
    let o = options()?;
    let start = Instant::now();
    println!(
        "# recs-stats calibration: {} replications, {} permutations / resamples, seed {}, \
         alpha {}\n",
        o.replications, o.permutations, o.seed, o.alpha
    );
    let mut data = Vec::new();
    for name in DATASETS {
        let d = PerUser::read(&o.dir.join(name).join("per-user.tsv"))?;
        print!("{}", describe(name, &d, &o)?);
        data.push((name, d));
    }
    let settings = [PairSetting::Swap, PairSetting::SeedsSwap, PairSetting::Seeds]
        .into_iter()
        .chain(DELTAS.map(PairSetting::Planted))
        .chain([PairSetting::PlantedUntied(UNTIED_DELTA)])
        .collect::<Vec<_>>();
    for setting in &settings {
        println!("\n## Pairs: {}\n", setting.name());
        println!("| data | metric | n | {} |", TESTS.join(" | "));
        println!("|---|---|---:|{}", "---|".repeat(TESTS.len()));
        for (name, d) in &data {
            for metric in METRICS {
                for n in SIZES {
                    let c = pair_rates(name, d, metric, n, *setting, &o)?;
                    let cells: Vec<String> = c.iter().map(|&x| rate(x, o.replications)).collect();
                    println!("| {name} | {metric} | {n} | {} |", cells.join(" | "));
                }
            }
        }
        eprintln!("{} done at {:.0} s", setting.name(), start.elapsed().as_secs_f64());
    }
    for setting in [FamilySetting::Permuted, FamilySetting::Seeds, FamilySetting::Partial] {
        println!("\n## Families of five: {}\n", setting.name());
        let what = if matches!(setting, FamilySetting::Partial) {
            "family-wise error rate over the 4 true nulls; mean share of the 6 true differences found"
        } else {
            "family-wise error rate over the 10 pairs"
        };
        println!("({what})\n");
        println!("| data | metric | n | {} |", FAMILY.join(" | "));
        println!("|---|---|---:|{}", "---|".repeat(FAMILY.len()));
        for (name, d) in &data {
            for metric in METRICS {
                for n in SIZES {
                    let c = family_rates(name, d, metric, n, setting, &o)?;
                    let cells: Vec<String> = (0..FAMILY.len())
                        .map(|m| {
                            let e = rate(c.errors[m], o.replications);
                            if matches!(setting, FamilySetting::Partial) {
                                let power = c.found[m] as f64 / (6 * o.replications) as f64;
                                format!("{e}; {power:.3}")
                            } else {
                                e
                            }
                        })
                        .collect();
                    println!("| {name} | {metric} | {n} | {} |", cells.join(" | "));
                }
            }
        }
        eprintln!("family {} done at {:.0} s", setting.name(), start.elapsed().as_secs_f64());
    }
    println!("\n{:.0} s", start.elapsed().as_secs_f64());
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("calibration: {e}");
        std::process::exit(1);
    }
}
