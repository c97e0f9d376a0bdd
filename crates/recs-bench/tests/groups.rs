//! `evaluation.group_gap` end to end on MovieLens 100K (through `RECS_DATA_DIR`): the
//! report's gap between user groups is, per model, the mean absolute difference of the
//! group means of each split, averaged over the splits, with the 95% t interval over them;
//! recomputed here from the group sums the run exposes. Grouped by a demographic field,
//! the groups are its values and together hold every judged user.

use recs_bench::{Config, RunOptions, Silent};
use recs_testkit::real_data_dir;
use serde_json::Value;

const CONFIG: &str = r#"
name = "groups"
seed = 5
repetitions = 3

[dataset]
name = "ml-100k"

[protocol]
protocol = "leave-k-out"
k = "20%"

[judgments]
mode = "rating:4"
users = "with-test-events"

[evaluation]
metrics = ["ndcg@10", "arp@10"]
user_groups = [1, 40, 120]
group_gap = true

[[models]]
name = "item-pop"

[[models]]
name = "random"
"#;

/// Student's t quantile 0.975 with 2 degrees of freedom (three splits).
const T_975_2: f64 = 4.302_652_729_911_275;

#[test]
fn the_gap_between_user_groups_is_the_mean_over_splits_of_each_splits_gap() {
    let Some(_) = real_data_dir() else { return };
    let plan = Config::from_toml(CONFIG, "groups.toml").unwrap().check("groups.toml").unwrap();
    let outcome = recs_bench::run(&plan, &RunOptions::default(), &Silent).unwrap();
    let table = outcome
        .report
        .experiments
        .iter()
        .flat_map(|e| &e.tables)
        .find(|t| t.name.starts_with("ndcg@10 gap between user groups"))
        .expect("a gap table");
    assert_eq!(table.columns, ["model", "splits", "gap", "ci95_lower", "ci95_upper"]);
    let models = outcome.results.models();
    assert_eq!(table.rows.len(), models.len());
    for (row, model) in table.rows.iter().zip(models) {
        assert_eq!(row[0], Value::from(model.label()));
        // Each split's group means, and the mean of |a − b| over every two of them.
        let gaps: Vec<f64> = model
            .groups()
            .iter()
            .map(|split| {
                let means: Vec<f64> =
                    split.iter().filter(|g| g.1 > 0).map(|g| g.0 / g.1 as f64).collect();
                assert_eq!(means.len(), 3, "every group has users in every split");
                let pairs = [(0, 1), (0, 2), (1, 2)];
                pairs.iter().map(|&(a, b)| (means[a] - means[b]).abs()).sum::<f64>() / 3.0
            })
            .collect();
        assert_eq!(row[1], Value::from(3));
        let mean = gaps.iter().sum::<f64>() / 3.0;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let half = T_975_2 * sd / 3f64.sqrt();
        let number = |v: &Value| v.as_f64().unwrap();
        assert!((number(&row[2]) - mean).abs() < 1e-12, "{}: {row:?} vs {mean}", model.label());
        assert!((number(&row[3]) - (mean - half)).abs() < 1e-9, "{row:?}");
        assert!((number(&row[4]) - (mean + half)).abs() < 1e-9, "{row:?}");
    }
    // Item popularity serves the light users' few test items worse than the heavy users'
    // many: its gap is well above the random model's.
    let gap = |r: usize| table.rows[r][2].as_f64().unwrap();
    assert!(gap(0) > gap(1), "item-pop {} vs random {}", gap(0), gap(1));
}

#[test]
fn a_gap_needs_two_groups() {
    let one = CONFIG.replace("user_groups = [1, 40, 120]", "user_groups = [1]");
    let e = Config::from_toml(&one, "groups.toml").unwrap().check("groups.toml").unwrap_err();
    assert!(e.to_string().contains("evaluation.group_gap"), "{e}");
}

/// By gender (MovieLens 100K's `u.user`): two groups, `F` and `M`, whose sums make up the
/// whole mean of every split (every user has a gender), with their gap.
#[test]
fn users_grouped_by_gender_make_up_the_whole() {
    let Some(_) = real_data_dir() else { return };
    let text = CONFIG.replace("user_groups = [1, 40, 120]", "group_by = \"gender\"");
    let plan = Config::from_toml(&text, "groups.toml").unwrap().check("groups.toml").unwrap();
    let outcome = recs_bench::run(&plan, &RunOptions::default(), &Silent).unwrap();
    let tables: Vec<_> = outcome.report.experiments.iter().flat_map(|e| &e.tables).collect();
    let by_group = tables.iter().find(|t| t.name.starts_with("ndcg@10 by user group")).unwrap();
    assert!(by_group.name.contains("(gender;"), "{}", by_group.name);
    let labels: Vec<&str> = by_group.rows.iter().map(|r| r[1].as_str().unwrap()).collect();
    assert_eq!(labels, ["F", "M", "F", "M"]);
    for model in outcome.results.models() {
        let whole = outcome.results.per_split(model.label(), "ndcg@10").unwrap();
        for (groups, whole) in model.groups().iter().zip(whole) {
            assert_eq!(groups.len(), 2);
            let (sum, n) = groups.iter().fold((0.0, 0), |(s, c), g| (s + g.0, c + g.1));
            assert!(groups.iter().all(|g| g.1 > 0));
            assert!((sum / n as f64 - whole.unwrap()).abs() < 1e-12, "{}", model.label());
        }
    }
    let gap = tables.iter().find(|t| t.name.starts_with("ndcg@10 gap between")).unwrap();
    assert!(gap.rows.iter().all(|r| r[1] == 3 && r[2].as_f64().unwrap() > 0.0));
}

#[test]
fn groups_by_a_field_are_checked() {
    let by = |group: &str| CONFIG.replace("user_groups = [1, 40, 120]", group);
    let check = |text: String| Config::from_toml(&text, "g.toml").unwrap().check("g.toml");
    let e = check(by("group_by = \"gender\"\nuser_groups = [1, 2]")).unwrap_err();
    assert!(e.to_string().contains("evaluation.user_groups"), "{e}");
    let e = check(by("group_by = \"age\"")).unwrap_err();
    assert!(e.to_string().contains("evaluation.group_by"), "{e}");
    assert!(check(by("group_by = \"age\"\nuser_groups = [1, 25, 45]")).is_ok());
    // MS Web records no demographics: an error before any split is run.
    let Some(_) = real_data_dir() else { return };
    let msweb = by("group_by = \"occupation\"").replace("name = \"ml-100k\"", "name = \"msweb\"");
    let msweb = msweb.replace("mode = \"rating:4\"", "mode = \"implicit\"");
    let plan = check(msweb).unwrap();
    let e = recs_bench::run(&plan, &RunOptions::default(), &Silent).unwrap_err();
    assert!(e.to_string().contains("records no occupation"), "{e}");
}
