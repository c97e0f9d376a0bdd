//! The PureSVD fit at scale, alone: the training matrix of `tools/scaling.sh`'s `recs run`,
//! fitted at each thread count given, with the time of each fit and a checksum of its
//! factors (equal at every thread count).
//!
//! ```text
//! cargo run --release -p recs-bench --example fit_scale                 # 1 and 2 threads
//! cargo run --release -p recs-bench --example fit_scale -- 1,2,4,8,16   # more
//! cargo run --release -p recs-bench --example fit_scale -- 1,2 20000 6000 3000000 64
//! ```
//!
//! Arguments: the thread counts (comma-separated), then users, items, events and rank
//! (defaults 138,493 × 26,744, 20,000,263 events, rank 64: MovieLens-20M shape). The data
//! are synthetic events (`recs data synth --seed 1` with these numbers and its defaults)
//! with 20% of each user's events held out, the training matrix `recs run` fits in
//! `tools/scaling.sh` (15,999,702 events at the default shape). With `CHECK=1` set,
//! each fit's triplets are checked against the matrix: `‖A v − s u‖` and `‖Aᵀ u − s v‖`
//! per triplet, computed here by plain loops over the events.

use std::time::Instant;

use recs_core::{Fit, TrainData};
use recs_data::PowerLaw;
use recs_models_latent::PureSvdParams;
use recs_split::{Amount, Protocol, SplitId};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads: Vec<usize> = match args.first() {
        Some(list) => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![1, 2],
    };
    let sizes: Vec<usize> =
        args.iter().skip(1).map(|a| a.replace(['_', ','], "").parse()).collect::<Result<_, _>>()?;
    let arg = |i: usize, default: usize| sizes.get(i).copied().unwrap_or(default);
    let (n_users, n_items, n_events, rank) =
        (arg(0, 138_493), arg(1, 26_744), arg(2, 20_000_263), arg(3, 64));

    let started = Instant::now();
    let data =
        PowerLaw { n_users, n_items, n_events: n_events as u64, seed: 1, ..PowerLaw::default() }
            .generate()?;
    let protocol = Protocol::LeaveKOut { k: Amount::Fraction(0.2), min_train: 1 };
    let split = protocol.split(&data.interactions, 1, SplitId::default())?;
    println!(
        "data: {n_users} users × {n_items} items, {} training events ({:.1} s)",
        split.train().n_events(),
        started.elapsed().as_secs_f64()
    );

    let mut first: Option<u64> = None;
    for &t in &threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build()?;
        let started = Instant::now();
        let model = pool.install(|| {
            PureSvdParams::new(rank).and_then(|p| p.fit(&TrainData::new(split.train(), 1)))
        })?;
        let seconds = started.elapsed().as_secs_f64();
        let checksum = model
            .left_singular_vectors()
            .iter()
            .chain(model.right_singular_vectors())
            .chain(model.singular_values())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, x| (h ^ x.to_bits()).wrapping_mul(0x100_0000_01b3));
        let report = model.report();
        println!(
            "{t:>3} threads: fit PureSVD rank {rank} in {seconds:.2} s ({} restarts, {} of {} converged, s_1 = {:.6}), factors {checksum:016x}",
            report.restarts, report.converged, report.requested_rank, report.singular_values[0],
        );
        if std::env::var_os("CHECK").is_some() {
            let train = split.train();
            let (u, v, sv) = (
                model.left_singular_vectors(),
                model.right_singular_vectors(),
                model.singular_values(),
            );
            let r = sv.len();
            let (m, n) = (train.n_users(), train.n_items());
            let mut av = vec![0.0f64; m * r];
            let mut atu = vec![0.0f64; n * r];
            for user in 0..m {
                let row = train.user_row(user as u32);
                for (&i, &x) in row.items.iter().zip(row.values) {
                    for c in 0..r {
                        av[user * r + c] += f64::from(x) * v[i as usize * r + c];
                        atu[i as usize * r + c] += f64::from(x) * u[user * r + c];
                    }
                }
            }
            for c in 0..r {
                let e1: f64 = (0..m)
                    .map(|i| (av[i * r + c] - sv[c] * u[i * r + c]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let e2: f64 = (0..n)
                    .map(|i| (atu[i * r + c] - sv[c] * v[i * r + c]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                println!("{c} s={:.9} |Av-su|={e1:.3e} |Atu-sv|={e2:.3e}", sv[c]);
            }
        }
        if *first.get_or_insert(checksum) != checksum {
            return Err(format!("the factors at {t} threads differ from the first run's").into());
        }
    }
    Ok(())
}
