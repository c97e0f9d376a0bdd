//! PureSVD's sparse solver against the dense SVD on MovieLens 100K (`RECS_DATA_DIR`), at
//! the ranks cremonesi2008 and fastml2015 use: the same singular values, orthonormal
//! singular vectors (no triplet found twice), and the same scores.
//!
//! A restarted solver that locks converged triplets can converge to one of them a second
//! time: faer's `partial_svd`, which PureSVD used before, returned a right singular vector
//! twice at rank 50 with seed 1 on this matrix (singular values off by up to 1.26), so the
//! model had rank 49 and the wrong subspace. This test fails on such a result.

use recs_core::{DuplicatePolicy, Event, Fit, Interactions, Recommender, TrainData};
use recs_models_latent::{PureSvd, PureSvdParams, SvdSolver};

fn load() -> Option<Interactions> {
    let path = recs_testkit::real_data_dir()?.join("ml-100k/u.data");
    let text = std::fs::read_to_string(&path).expect("u.data is readable");
    let events = text.lines().enumerate().map(|(n, line)| {
        let fields: Vec<&str> = line.split('\t').collect();
        let parse = |k: usize| -> u32 {
            fields[k].parse().unwrap_or_else(|_| panic!("{}:{}", path.display(), n + 1))
        };
        Event::new(parse(0) - 1, parse(1) - 1, parse(2) as f32)
    });
    Some(Interactions::from_events(943, 1682, events, DuplicatePolicy::Error).unwrap())
}

fn fit(train: &Interactions, rank: usize, solver: SvdSolver, seed: u64) -> PureSvd {
    let params = PureSvdParams::new(rank).unwrap().with_solver(solver);
    params.fit(&TrainData::new(train, seed)).unwrap()
}

#[test]
fn the_sparse_solver_finds_the_dense_solvers_triplets_on_movielens() {
    let Some(train) = load() else { return };
    let dense = fit(&train, 300, SvdSolver::Dense, 1);
    let reference = dense.singular_values();
    let items: Vec<u32> = (0..1682).collect();
    for (rank, seed) in [(15, 1), (20, 42), (50, 1), (50, 2), (100, 1), (200, 5), (300, 3)] {
        let model = fit(&train, rank, SvdSolver::Lanczos, seed);
        assert!(!model.report().dense, "rank {rank}: the sparse solver ran");
        assert_eq!(model.report().converged, rank);
        let s1 = reference[0];
        for (i, (s, r)) in model.singular_values().iter().zip(reference).enumerate() {
            assert!((s - r).abs() <= 1e-9 * s1, "rank {rank}, seed {seed}: s_{i} {s} vs {r}");
        }
        let v = model.right_singular_vectors();
        for i in 0..rank {
            for j in 0..=i {
                let dot: f64 = (0..1682).map(|r| v[r * rank + i] * v[r * rank + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((dot - want).abs() < 1e-10, "rank {rank}: v_{i} · v_{j} = {dot}");
            }
        }
        // Scores r_u V Vᵀ against the dense vectors cut to the same rank (distinct
        // singular values at these cuts, so the subspace is defined).
        let full = dense.right_singular_vectors();
        let mut scores = vec![0.0f32; 1682];
        for user in [0, 12, 405, 942] {
            model.score(user, &items, &mut scores).unwrap();
            let row = train.user_row(user);
            let projection: Vec<f64> = (0..rank)
                .map(|l| {
                    let pairs = row.items.iter().zip(row.values);
                    pairs.map(|(&i, &x)| f64::from(x) * full[i as usize * 300 + l]).sum()
                })
                .collect();
            for (item, score) in scores.iter().enumerate() {
                let expected: f64 = (0..rank).map(|l| projection[l] * full[item * 300 + l]).sum();
                let gap = (f64::from(*score) - expected).abs();
                assert!(
                    gap <= 1e-4,
                    "rank {rank}, user {user}, item {item}: {score} vs {expected}"
                );
            }
        }
    }
}
