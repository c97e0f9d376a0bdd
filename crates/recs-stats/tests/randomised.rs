//! The randomised statistics against exact references: the same seed gives the same
//! result at any thread count, and the paired bootstrap agrees with the exact bootstrap
//! distribution of a small sample, enumerated here.

use recs_stats::{fisher_randomisation, paired_bootstrap, randomised_tukey_hsd};

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

fn synthetic(systems: usize, users: usize) -> Vec<Vec<f64>> {
    (0..systems)
        .map(|s| (0..users).map(|u| ((u * 31 + s * 17 + u * s) % 23) as f64 / 22.0).collect())
        .collect()
}

#[test]
fn same_seed_same_result_at_any_thread_count() {
    let systems = synthetic(5, 700);
    let (a, b) = (&systems[0], &systems[1]);
    // More than one block of draws, so that threads really split the work.
    let run = || {
        (
            fisher_randomisation(a, b, 3_001, 17).unwrap(),
            paired_bootstrap(a, b, 5_003, 0.95, 17).unwrap(),
            randomised_tukey_hsd(&systems, 2_999, 17).unwrap(),
        )
    };
    let one = in_pool(1, run);
    for threads in [2, 3, 8] {
        assert_eq!(in_pool(threads, run), one, "{threads} threads");
    }
    // The seed, and only the seed, decides: another seed gives another interval.
    let other = in_pool(2, || paired_bootstrap(a, b, 5_003, 0.95, 18).unwrap());
    assert_ne!((other.lower, other.upper), (one.1.lower, one.1.upper));
}

/// The exact bootstrap distribution of the resampled mean of `d`: all `nⁿ` index tuples,
/// equally likely.
fn exact_bootstrap(d: &[f64]) -> Vec<f64> {
    let n = d.len();
    let mut means = Vec::with_capacity(n.pow(n as u32));
    for code in 0..n.pow(n as u32) {
        let (mut c, mut sum) = (code, 0.0);
        for _ in 0..n {
            sum += d[c % n];
            c /= n;
        }
        means.push(sum / n as f64);
    }
    means
}

#[test]
fn bootstrap_agrees_with_the_exact_bootstrap_distribution() {
    let a = [0.9, 0.4, 0.75, 0.8, 0.3, 0.65];
    let b = [0.5, 0.45, 0.4, 0.6, 0.2, 0.5];
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    let exact = exact_bootstrap(&d);
    let share = |f: &dyn Fn(f64) -> bool| {
        exact.iter().filter(|&&x| f(x)).count() as f64 / exact.len() as f64
    };
    let resamples = 40_000;
    let boot = paired_bootstrap(&a, &b, resamples, 0.95, 23).unwrap();
    let tolerance =
        |p: f64| 4.0 * (p * (1.0 - p) / resamples as f64).sqrt() + 2.0 / resamples as f64;

    // p-value: the exact P(|d̄* − d̄| ≥ |d̄|).
    let p = share(&|x| (x - mean).abs() >= mean.abs() - 1e-12);
    assert!((boot.p_value - p).abs() <= tolerance(p), "p {} exact {p}", boot.p_value);

    // Interval ends: the exact distribution function crosses 2.5% (97.5%) at them, up to
    // the Monte Carlo error of a quantile's rank.
    for (end, q) in [(boot.lower, 0.025), (boot.upper, 0.975)] {
        let below = share(&|x| x < end - 1e-12);
        let at_most = share(&|x| x <= end + 1e-12);
        assert!(below <= q + tolerance(q), "{end}: P(X < end) = {below}");
        assert!(at_most >= q - tolerance(q), "{end}: P(X ≤ end) = {at_most}");
    }
}
