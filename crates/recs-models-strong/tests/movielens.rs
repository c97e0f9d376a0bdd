//! EASE and RP3β on MovieLens 100K (`RECS_DATA_DIR`) against numpy. Data are indexed as
//! `recs-data` loads them, every rating an event worth 1. Every value agrees to `1e-9`
//! relative.
//!
//! - EASE: `tools/ease_oracle.py` computed the weights with `np.linalg.inv` (an LU-based
//!   general inverse; the crate factorises with Cholesky) and wrote checksums, sampled
//!   weights and sampled scores to `tests/fixtures/ease-ml100k.txt` (the largest relative
//!   difference measured was 2e-13).
//! - RP3β: `tools/rp3beta_oracle.py` computed `W` with one dense matrix product (the
//!   crate walks each row through the sparse graph), cut and normalised its rows, and
//!   wrote, for the default setting and for `α = 0.8, β = 0.3`, 30 neighbours,
//!   unnormalised: checksums, the count and an index checksum of the kept entries,
//!   sampled weights and sampled scores to `tests/fixtures/rp3beta-ml100k.txt` (the
//!   largest relative difference measured was 3e-14). Rows whose last kept and first
//!   dropped weights tie (236 and 146 rows of 1,682) sum the same degrees over their
//!   common users and divide by the same popularity, so they are the same bits in both
//!   computations and the item index decides in both (the oracle checks this); every
//!   other cut has a relative gap above 2e-6, far from rounding.

use recs_core::{Fit, Recommender, TrainData};
use recs_data::load_movielens_100k;
use recs_models_strong::{Ease, EaseParams, Rp3Beta, Rp3BetaParams};

const FIXTURE: &str = include_str!("fixtures/ease-ml100k.txt");
const RP3BETA_FIXTURE: &str = include_str!("fixtures/rp3beta-ml100k.txt");
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

/// `Σ_i X_ui W_ij` in `f64`, from the kept weights, in the history's order as the crate
/// sums it.
fn rp3beta_score64(model: &Rp3Beta, history: &[u32], item: u32) -> f64 {
    history
        .iter()
        .map(|&i| {
            let (items, weights) = model.weights_of(i);
            items.binary_search(&item).map_or(0.0, |k| weights[k])
        })
        .sum()
}

#[test]
fn rp3beta_matches_numpy_on_movielens_100k() -> Result<(), Box<dyn std::error::Error>> {
    let Some(root) = recs_testkit::real_data_dir() else { return Ok(()) };
    let data = load_movielens_100k(&root.join("ml-100k"))?;
    let train = &data.interactions;
    let mut lines = RP3BETA_FIXTURE.lines().filter(|l| !l.starts_with('#'));
    let mut next = || lines.next().map(|l| l.split_whitespace().collect::<Vec<_>>());

    let shape = next().ok_or("fixture: no shape")?;
    assert_eq!(
        shape[1..],
        [train.n_users().to_string(), train.n_items().to_string(), train.n_events().to_string()]
    );
    let n = train.n_items();
    let (mut compared, mut settings, mut worst) = (0, 0, 0.0f64);
    let mut model: Option<Rp3Beta> = None;
    while let Some(fields) = next() {
        if fields[0] == "params" {
            let params = Rp3BetaParams::new(
                fields[1].parse()?,
                fields[2].parse()?,
                fields[3].parse()?,
                fields[4].parse()?,
            )?;
            model = Some(params.fit(&TrainData::new(train, 0))?);
            settings += 1;
            continue;
        }
        let model = model.as_ref().ok_or("fixture: a value before any params line")?;
        let all_weights = || (0..n as u32).flat_map(|i| model.weights_of(i).1.iter().copied());
        let index = |k: usize| -> Result<usize, std::num::ParseIntError> { fields[k].parse() };
        let value =
            || -> Result<f64, std::num::ParseFloatError> { fields[fields.len() - 1].parse() };
        let error = match fields[0] {
            "sum" => close("ΣW", all_weights().sum(), value()?),
            "sq_sum" => close("ΣW²", all_weights().map(|w| w * w).sum(), value()?),
            "kept" => {
                // The kept set itself, exactly: its size and Σ (i · n_items + j).
                let (count, index_sum) = (index(1)?, fields[2].parse::<u64>()?);
                let kept = (0..n as u32).flat_map(|i| {
                    model
                        .weights_of(i)
                        .0
                        .iter()
                        .map(move |&j| u64::from(i) * n as u64 + u64::from(j))
                });
                let (ours_count, ours_sum) = kept.fold((0, 0u64), |(c, s), k| (c + 1, s + k));
                assert_eq!((ours_count, ours_sum), (count, index_sum), "kept entries");
                0.0
            }
            "weight" => {
                let (i, j) = (index(1)?, index(2)?);
                let (items, weights) = model.weights_of(i as u32);
                let ours = items.binary_search(&(j as u32)).map_or(0.0, |k| weights[k]);
                close(&format!("W[{i}][{j}]"), ours, value()?)
            }
            "score" => {
                let (user, item) = (index(1)?, index(2)?);
                let history = train.user_row(user as u32).items;
                let ours = rp3beta_score64(model, history, item as u32);
                // The f32 score is that f64 sum rounded once.
                let mut out = [0.0f32];
                model.score(user as u32, &[item as u32], &mut out)?;
                assert_eq!(out[0], ours as f32, "user {user}, item {item}");
                close(&format!("score of user {user}, item {item}"), ours, value()?)
            }
            "user_sum" => {
                let user = index(1)?;
                let history = train.user_row(user as u32).items;
                let ours: f64 = (0..n as u32).map(|j| rp3beta_score64(model, history, j)).sum();
                close(&format!("scores of user {user}"), ours, value()?)
            }
            other => return Err(format!("fixture: unknown line {other:?}").into()),
        };
        worst = worst.max(error);
        compared += 1;
    }
    eprintln!("{compared} RP3β values compared with numpy, largest relative error {worst:e}");
    assert_eq!(settings, 2);
    assert_eq!(compared, 2 * (3 + 50 + 5 * 11), "every line of the fixture was compared");
    Ok(())
}
