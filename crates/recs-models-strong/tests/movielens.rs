//! EASE on MovieLens 100K (`RECS_DATA_DIR`) against numpy: `tools/ease_oracle.py` computed
//! the weights with `np.linalg.inv` (an LU-based general inverse; the crate factorises
//! with Cholesky) and wrote checksums, sampled weights and sampled scores to
//! `tests/fixtures/ease-ml100k.txt`. Data are indexed as `recs-data` loads them, every
//! rating an event worth 1. Every value agrees to `1e-9` relative (the largest relative
//! difference measured was 2e-13).

use recs_core::{Fit, Recommender, TrainData};
use recs_data::load_movielens_100k;
use recs_models_strong::{Ease, EaseParams};

const FIXTURE: &str = include_str!("fixtures/ease-ml100k.txt");
const RELATIVE: f64 = 1e-9;

/// Checks one value against numpy's and returns its relative difference.
fn close(what: &str, ours: f64, numpy: f64) -> f64 {
    let scale = numpy.abs();
    assert!(
        (ours - numpy).abs() <= RELATIVE * scale,
        "{what}: ours {ours:e}, numpy {numpy:e}, relative {:e}",
        (ours - numpy).abs() / scale
    );
    (ours - numpy).abs() / scale
}

/// `(x_u·B)_j` in `f64`, from the weights, for a training user.
fn score64(model: &Ease, history: &[u32], item: usize) -> f64 {
    let n = model.n_items();
    history.iter().map(|&i| model.weights()[i as usize * n + item]).sum()
}

#[test]
fn ease_matches_numpy_on_movielens_100k() -> Result<(), Box<dyn std::error::Error>> {
    let Some(root) = recs_testkit::real_data_dir() else { return Ok(()) };
    let data = load_movielens_100k(&root.join("ml-100k"))?;
    let train = &data.interactions;
    let mut lines = FIXTURE.lines().filter(|l| !l.starts_with('#'));
    let mut next = || lines.next().map(|l| l.split_whitespace().collect::<Vec<_>>());

    let shape = next().ok_or("fixture: no shape")?;
    assert_eq!(
        shape[1..],
        [train.n_users().to_string(), train.n_items().to_string(), train.n_events().to_string()]
    );
    let lambda: f64 = next().ok_or("fixture: no lambda")?[1].parse()?;
    let model = EaseParams::new(lambda)?.fit(&TrainData::new(train, 0))?;
    let weights = model.weights();
    let n = model.n_items();

    let (mut compared, mut worst) = (0, 0.0f64);
    while let Some(fields) = next() {
        let value: f64 = fields[fields.len() - 1].parse()?;
        let index = |k: usize| -> Result<usize, std::num::ParseIntError> { fields[k].parse() };
        let error = match fields[0] {
            "abs_sum" => close("Σ|B|", weights.iter().map(|w| w.abs()).sum(), value),
            "sq_sum" => close("ΣB²", weights.iter().map(|w| w * w).sum(), value),
            "weight" => {
                let (i, j) = (index(1)?, index(2)?);
                close(&format!("B[{i}][{j}]"), weights[i * n + j], value)
            }
            "score" => {
                let (user, item) = (index(1)?, index(2)?);
                let history = train.user_row(user as u32).items;
                let ours = score64(&model, history, item);
                // The f32 score is that f64 sum rounded once.
                let mut out = [0.0f32];
                model.score(user as u32, &[item as u32], &mut out)?;
                assert_eq!(out[0], ours as f32, "user {user}, item {item}");
                close(&format!("score of user {user}, item {item}"), ours, value)
            }
            "user_sum" => {
                let user = index(1)?;
                let history = train.user_row(user as u32).items;
                let ours: f64 = (0..n).map(|j| score64(&model, history, j)).sum();
                close(&format!("scores of user {user}"), ours, value)
            }
            other => return Err(format!("fixture: unknown line {other:?}").into()),
        };
        worst = worst.max(error);
        compared += 1;
    }
    eprintln!("{compared} values compared with numpy, largest relative error {worst:e}");
    assert_eq!(compared, 2 + 50 + 5 * 11, "every line of the fixture was compared");
    Ok(())
}
