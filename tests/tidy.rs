//! Conventions enforced as an ordinary test: the dependency direction of
//! `docs/architecture.md`, workspace lints and metadata in every manifest, crate
//! documentation at the top of every crate root, and the contract of a model crate that
//! `docs/adding-a-model.md` states — checked on every `crates/recs-models-*` folder and
//! on a crate built from the page itself.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use toml::{Table, Value};

/// The library crates below the runner that are not model crates.
const FOUNDATION: &[&str] =
    &["recs-core", "recs-data", "recs-split", "recs-metrics", "recs-sampled", "recs-stats"];

/// Which `recs` crates a member may depend on, given the model crates of the tree: the
/// allowed normal dependencies and the extra ones allowed as dev-dependencies only. Model
/// crates enter through `recs-bench` alone, so nothing above it names one.
fn allowed(member: &str, models: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (core, testkit) = (names(&["recs-core"]), names(&["recs-testkit"]));
    Some(match member {
        "recs-core" => (Vec::new(), Vec::new()),
        // Mathematics on ranks alone by default; its `stream` feature places ranks over a
        // streamed catalog with the candidate policies' draws (optional edges, checked).
        "recs-sampled" => (names(&["recs-metrics", "recs-split"]), Vec::new()),
        "recs-testkit" | "recs-stats" => (core, Vec::new()),
        "recs-data" => (core, testkit),
        "recs-metrics" => (names(&["recs-core", "recs-stats"]), testkit),
        "recs-split" => (core, names(&["recs-testkit", "recs-data"])),
        m if m.starts_with("recs-models-") => (core, names(&["recs-testkit", "recs-data"])),
        "recs-bench" => {
            let gpu = ["recs-cuda".to_string()];
            (
                names(FOUNDATION).into_iter().chain(models.iter().cloned()).chain(gpu).collect(),
                testkit,
            )
        }
        "recs-datafusion" => (names(&["recs-core", "recs-metrics"]), testkit),
        "recs-cuda" => (names(&["recs-metrics"]), names(&["recs-testkit", "recs-core"])),
        "recs-cli" => {
            let above = ["recs-bench", "recs-datafusion", "recs-cuda"].map(String::from);
            (names(FOUNDATION).into_iter().chain(above).collect(), testkit)
        }
        "xtask" | "recs-eval" => {
            (names(FOUNDATION).into_iter().chain(["recs-bench".to_string()]).collect(), testkit)
        }
        _ => return None,
    })
}

/// `table[key]` as a table, if it is one.
fn table<'a>(table: &'a Table, key: &str) -> Option<&'a Table> {
    table.get(key).and_then(Value::as_table)
}

/// Whether `table[key]` is `{ workspace = true }`, the form of `key.workspace = true`.
fn inherited(table: &Table, key: &str) -> bool {
    self::table(table, key).and_then(|t| t.get("workspace")).and_then(Value::as_bool) == Some(true)
}

/// Every problem found in one manifest. `crate_root_text` is the text of its `lib.rs`
/// or `main.rs`; `models` are the model crates of the tree.
fn check_manifest(manifest: &str, crate_root_text: &str, models: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let manifest: Table = match manifest.parse() {
        Ok(t) => t,
        Err(e) => return vec![format!("manifest does not parse: {e}")],
    };
    let Some(package) = table(&manifest, "package") else {
        return vec!["no [package] table".to_string()];
    };
    let name = package.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
    let Some((normal, dev_extra)) = allowed(&name, models) else {
        return vec![format!(
            "`{name}` is not a known member: add it to the layering in tests/tidy.rs"
        )];
    };
    for field in ["version", "edition", "license"] {
        if !inherited(package, field) {
            problems.push(format!("{name}: `package.{field}` must be `{field}.workspace = true`"));
        }
    }
    if !inherited(&manifest, "lints") {
        problems.push(format!("{name}: missing `[lints] workspace = true`"));
    }
    let with_dev: Vec<String> = normal.iter().chain(&dev_extra).cloned().collect();
    for (section, allowed_here) in [("dependencies", &normal), ("dev-dependencies", &with_dev)] {
        let Some(deps) = table(&manifest, section) else { continue };
        for dep in deps.keys().filter(|d| d.starts_with("recs-")) {
            if !allowed_here.contains(dep) {
                problems.push(format!("{name}: forbidden edge to `{dep}` in [{section}]"));
            }
            let optional =
                table(deps, dep).and_then(|d| d.get("optional")).and_then(Value::as_bool);
            if name == "recs-sampled" && section == "dependencies" && optional != Some(true) {
                problems.push(format!("{name}: the edge to `{dep}` must be optional (a feature)"));
            }
        }
    }
    if !crate_root_text.trim_start().starts_with("//!") {
        problems.push(format!("{name}: crate root must open with `//!` documentation"));
    }
    problems
}

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn crate_root(dir: &Path) -> String {
    ["src/lib.rs", "src/main.rs"]
        .iter()
        .find_map(|f| fs::read_to_string(dir.join(f)).ok())
        .unwrap_or_default()
}

/// The parsed root manifest of the workspace.
fn root_manifest() -> Table {
    read(&workspace_root().join("Cargo.toml")).parse().expect("the root manifest parses")
}

/// The strings of `[workspace] key` (`members`, `exclude`).
fn workspace_list(root_manifest: &Table, key: &str) -> Vec<String> {
    table(root_manifest, "workspace")
        .and_then(|w| w.get(key))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Whether the folder `relative` (`crates/recs-core`) is matched by a member pattern:
/// a path, or a folder followed by `/*`, the only glob the workspace uses.
fn is_member(patterns: &[String], relative: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix("/*") {
        Some(parent) => relative
            .strip_prefix(parent)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('/')),
        None => p == relative,
    })
}

/// The member folders of the workspace at `root`, as cargo expands `patterns`.
fn member_dirs(root: &Path, patterns: &[String]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for pattern in patterns {
        match pattern.strip_suffix("/*") {
            Some(parent) => {
                let mut found: Vec<PathBuf> = fs::read_dir(root.join(parent))
                    .unwrap_or_else(|e| panic!("reading {parent}: {e}"))
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect();
                found.sort();
                dirs.extend(found);
            }
            None => {
                assert!(!pattern.contains(['*', '?', '[']), "unsupported member glob {pattern}");
                dirs.push(root.join(pattern));
            }
        }
    }
    dirs
}

/// The module of a model crate under `recs_eval::models`: `recs-models-foo-bar` → `foo_bar`.
fn module_of(package: &str) -> String {
    package.trim_start_matches("recs-models-").replace('-', "_")
}

/// The model crates of the tree at `root`: every `crates/recs-models-*` folder, by name.
fn model_crates(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join("crates"))
        .expect("a crates folder")
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("recs-models-"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_member_follows_the_layering_and_conventions() {
    let root = workspace_root();
    let patterns = workspace_list(&root_manifest(), "members");
    let members = member_dirs(&root, &patterns);
    assert!(members.len() >= 12, "expected every crate and xtask as members: {members:?}");
    let models = model_crates(&root);
    let mut problems = check_manifest(&read(&root.join("Cargo.toml")), &crate_root(&root), &models);
    for dir in &members {
        match fs::read_to_string(dir.join("Cargo.toml")) {
            Ok(text) => problems.extend(check_manifest(&text, &crate_root(dir), &models)),
            Err(e) => problems.push(format!("member {} has no Cargo.toml: {e}", dir.display())),
        }
    }
    assert!(problems.is_empty(), "tidy problems:\n  {}", problems.join("\n  "));
}

#[test]
fn every_crate_folder_is_a_member_and_fuzz_is_not() {
    let manifest = root_manifest();
    let patterns = workspace_list(&manifest, "members");
    let root = workspace_root();
    for dir in member_dirs(&root, &["crates/*".to_string()]) {
        let relative = dir.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        assert!(is_member(&patterns, &relative), "{relative} is not a workspace member");
    }
    assert!(!is_member(&patterns, "fuzz"));
    assert_eq!(
        workspace_list(&manifest, "exclude"),
        ["fuzz", "tests/consumers"],
        "fuzz needs nightly; each consumer is a workspace of its own"
    );
}

/// What every package ships (`include`): its sources, README and licences.
const PACKAGE_INCLUDE: &[&str] = &["/src", "/README.md", "/LICENSE-APACHE", "/LICENSE-MIT"];

/// The text that runs a crate's README example as a doctest, at the end of `src/lib.rs`.
const README_DOCTEST: &str = "#[doc = include_str!(\"../README.md\")]";

/// What keeps the crates.io page of the package in `dir` working: the fields of
/// `[package]` a page shows, the `include` list, and a README whose example runs.
fn package_page_problems(package: &Table, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let text = |key: &str| package.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let list = |key: &str| -> Vec<&str> {
        package
            .get(key)
            .and_then(Value::as_array)
            .map_or_else(Vec::new, |a| a.iter().filter_map(Value::as_str).collect())
    };
    for key in ["description", "documentation"] {
        if text(key).is_none() {
            problems.push(format!("no `{key}`"));
        }
    }
    if text("readme") != Some("README.md") {
        problems.push("`readme` is not \"README.md\"".to_string());
    } else if !dir.join("README.md").is_file() {
        problems.push("no README.md".to_string());
    }
    let keywords = list("keywords");
    // crates.io's rules: at most five, each at most 20 characters.
    if keywords.is_empty() || keywords.len() > 5 || keywords.iter().any(|k| k.len() > 20) {
        problems.push(format!(
            "`keywords` must be 1 to 5 words of at most 20 characters: {keywords:?}"
        ));
    }
    if list("categories").is_empty() {
        problems.push("no `categories`".to_string());
    }
    if list("include") != PACKAGE_INCLUDE {
        problems.push(format!("`include` must be {PACKAGE_INCLUDE:?}"));
    }
    if dir.join("src/lib.rs").is_file() {
        let root = fs::read_to_string(dir.join("src/lib.rs")).unwrap_or_default();
        if !root.contains(README_DOCTEST) {
            problems.push(format!(
                "src/lib.rs does not run the README as a doctest ({README_DOCTEST})"
            ));
        }
    }
    problems
}

#[test]
fn every_published_package_has_a_working_page_and_ships_only_its_own_files() {
    let root = workspace_root();
    let members = member_dirs(&root, &workspace_list(&root_manifest(), "members"));
    let licences: Vec<(&str, String)> =
        ["LICENSE-APACHE", "LICENSE-MIT"].map(|f| (f, read(&root.join(f)))).into();
    let mut problems = Vec::new();
    let mut published = 0;
    for dir in std::iter::once(root.clone()).chain(members) {
        let manifest = parse_manifest(&dir.join("Cargo.toml")).unwrap();
        let package = table(&manifest, "package").expect("[package]");
        let name = package.get("name").and_then(Value::as_str).unwrap_or("?");
        if package.get("publish").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        published += 1;
        let mut found = package_page_problems(package, &dir);
        for (file, text) in &licences {
            if fs::read_to_string(dir.join(file)).ok().as_ref() != Some(text) {
                found.push(format!("{file} is not the workspace's (link ../../{file})"));
            }
        }
        problems.extend(found.into_iter().map(|p| format!("{name}: {p}")));
    }
    assert!(published >= 17, "expected the facade and every crate: {published}");
    assert!(problems.is_empty(), "package problems:\n  {}", problems.join("\n  "));
}

/// A `crates/recs-models-*` folder in a tree, with what it is checked against.
struct ModelCrate<'a> {
    /// The folder holding `crates/`.
    tree: &'a Path,
    /// The member patterns of the workspace the crate belongs to.
    members: &'a [String],
    /// The workspace version.
    version: &'a str,
    /// The package name, `recs-models-<module>`.
    package: &'a str,
}

impl ModelCrate<'_> {
    fn dir(&self) -> PathBuf {
        self.tree.join("crates").join(self.package)
    }

    fn module(&self) -> String {
        module_of(self.package)
    }

    fn manifest(&self) -> Result<Table, String> {
        parse_manifest(&self.dir().join("Cargo.toml"))
    }

    fn recs_deps(manifest: &Table, section: &str) -> Vec<String> {
        table(manifest, section)
            .map(|t| t.keys().filter(|k| k.starts_with("recs-")).cloned().collect())
            .unwrap_or_default()
    }
}

/// The text of `path`, or an error naming it.
fn read_checked(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The manifest at `path`, or an error naming it.
fn parse_manifest(path: &Path) -> Result<Table, String> {
    read_checked(path)?.parse().map_err(|e| format!("{}: {e}", path.display()))
}

/// One item of the checklist of `docs/adding-a-model.md`: its name there, and the check.
type ModelCheck = (&'static str, fn(&ModelCrate<'_>) -> Result<(), String>);

/// The checklist, in the order of the page.
const MODEL_CHECKS: &[ModelCheck] = &[
    ("workspace member", |c| {
        let relative = format!("crates/{}", c.package);
        if is_member(c.members, &relative) {
            Ok(())
        } else {
            Err(format!("{relative} is not matched by {:?}", c.members))
        }
    }),
    ("depends on recs-core only", |c| {
        let manifest = c.manifest()?;
        let normal = ModelCrate::recs_deps(&manifest, "dependencies");
        if normal != ["recs-core"] {
            return Err(format!(
                "[dependencies] names the recs crates {normal:?}, not recs-core alone"
            ));
        }
        let dev = ModelCrate::recs_deps(&manifest, "dev-dependencies");
        match dev.iter().find(|d| !["recs-core", "recs-testkit", "recs-data"].contains(&d.as_str()))
        {
            Some(d) => Err(format!("[dev-dependencies] names {d}")),
            None => Ok(()),
        }
    }),
    ("inherits the workspace", |c| {
        let manifest = c.manifest()?;
        let package = table(&manifest, "package").ok_or("no [package]")?;
        let fields = ["version", "edition", "rust-version", "license", "repository", "authors"];
        let missing: Vec<&str> = fields.into_iter().filter(|f| !inherited(package, f)).collect();
        if !missing.is_empty() {
            return Err(format!("not `.workspace = true`: {missing:?}"));
        }
        if package.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err("no `description`".to_string());
        }
        if inherited(&manifest, "lints") {
            Ok(())
        } else {
            Err("no `[lints] workspace = true`".to_string())
        }
    }),
    ("documented crate root", |c| {
        let text = read_checked(&c.dir().join("src/lib.rs"))?;
        if !text.trim_start().starts_with("//!") {
            return Err("src/lib.rs does not open with `//!` documentation".to_string());
        }
        let docs = text.lines().take_while(|l| l.starts_with("//!") || l.trim().is_empty());
        if docs.filter(|l| l.trim_start_matches("//!").trim() == "```").count() >= 2 {
            Ok(())
        } else {
            Err("the `//!` documentation of src/lib.rs has no doctest".to_string())
        }
    }),
    ("exposes catalog()", |c| {
        let mut stack = vec![c.dir().join("src")];
        while let Some(dir) = stack.pop() {
            let entries = fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() {
                    stack.push(path);
                } else if read_checked(&path)?.contains("pub fn catalog() -> Vec<ModelEntry>") {
                    return Ok(());
                }
            }
        }
        Err("no `pub fn catalog() -> Vec<ModelEntry>` under src/".to_string())
    }),
    ("runs the conformance suite", |c| {
        if read_checked(&c.dir().join("tests/conformance.rs"))?.contains("recs_testkit") {
            Ok(())
        } else {
            Err("tests/conformance.rs does not use recs_testkit".to_string())
        }
    }),
    ("publishable", |c| {
        let manifest = c.manifest()?;
        let package = table(&manifest, "package").ok_or("no [package]")?;
        let problems = package_page_problems(package, &c.dir());
        if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
    }),
    ("in recs-bench's Cargo.toml", |c| {
        let manifest = parse_manifest(&c.tree.join("crates/recs-bench/Cargo.toml"))?;
        let dep = table(&manifest, "dependencies").and_then(|d| table(d, c.package));
        let field = |key| dep.and_then(|d| d.get(key)).and_then(Value::as_str);
        let (package, version) = (c.package, c.version);
        if field("path") == Some(&format!("../{package}")) && field("version") == Some(version) {
            Ok(())
        } else {
            Err(format!(
                "recs-bench [dependencies] has {dep:?}, expected \
                 `{package} = {{ path = \"../{package}\", version = \"{version}\" }}`"
            ))
        }
    }),
    ("in the registry", |c| {
        let path = c.tree.join("crates/recs-bench/src/registry.rs");
        let text = read_checked(&path)?;
        let line = format!("{} => {},", c.module(), c.package.replace('-', "_"));
        if registry_lines(&text).contains(&line.as_str()) {
            Ok(())
        } else {
            Err(format!("no line `{line}` in the `model_crates!` list of {}", path.display()))
        }
    }),
];

/// The trimmed lines of the `model_crates! { ... }` invocation of `registry.rs`.
fn registry_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("model_crates! {"))
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .map(str::trim)
        .collect()
}

/// Every failed check of `MODEL_CHECKS` for `krate`, named.
fn check_model_crate(krate: &ModelCrate<'_>) -> Vec<String> {
    MODEL_CHECKS
        .iter()
        .filter_map(|(name, check)| {
            check(krate).err().map(|e| format!("{}: {name}: {e}", krate.package))
        })
        .collect()
}

fn workspace_version(manifest: &Table) -> String {
    table(manifest, "workspace")
        .and_then(|w| table(w, "package"))
        .and_then(|p| p.get("version"))
        .and_then(Value::as_str)
        .expect("[workspace.package] version")
        .to_string()
}

#[test]
fn every_model_crate_keeps_the_contract_of_the_page() {
    let root = workspace_root();
    let manifest = root_manifest();
    let (members, version) = (workspace_list(&manifest, "members"), workspace_version(&manifest));
    let models = model_crates(&root);
    assert!(models.len() >= 4, "model crates: {models:?}");
    let problems: Vec<String> = models
        .iter()
        .flat_map(|package| {
            check_model_crate(&ModelCrate {
                tree: &root,
                members: &members,
                version: &version,
                package,
            })
        })
        .collect();
    assert!(problems.is_empty(), "model crate problems:\n  {}", problems.join("\n  "));
    // What the registry compiled is what the folders hold.
    let mut registered: Vec<String> = recs_eval::bench::registry::MODEL_CRATES
        .iter()
        .map(|c| c.crate_name.replace('_', "-"))
        .collect();
    registered.sort();
    assert_eq!(
        registered, models,
        "recs_bench::registry::MODEL_CRATES against crates/recs-models-*"
    );
}

#[test]
fn no_should_panic_tests() {
    // Bad input must give `Err`; a test expecting a panic would bless the opposite.
    let mut offenders = Vec::new();
    let mut stack = vec![workspace_root().join("crates"), workspace_root().join("tests")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path != workspace_root().join(file!())
            {
                let text = fs::read_to_string(&path).unwrap();
                if text.contains(concat!("#[should", "_panic")) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(offenders.is_empty(), "#[should_panic] found in {offenders:?}");
}

const GOOD: &str = r#"
[package]
name = "recs-models-knn"
version.workspace = true
edition.workspace = true
license.workspace = true
[lints]
workspace = true
[dependencies]
recs-core.workspace = true
[dev-dependencies]
recs-testkit.workspace = true
recs-data.workspace = true
"#;

/// The model crates the checker tests assume.
fn knn_only() -> Vec<String> {
    vec!["recs-models-knn".to_string()]
}

#[test]
fn checker_accepts_a_conforming_manifest() {
    assert_eq!(check_manifest(GOOD, "//! docs", &knn_only()), Vec::<String>::new());
}

#[test]
fn checker_rejects_a_model_depending_on_metrics() {
    let bad = GOOD.replace(
        "[dependencies]\nrecs-core.workspace = true",
        "[dependencies]\nrecs-core.workspace = true\nrecs-metrics.workspace = true",
    );
    let problems = check_manifest(&bad, "//! docs", &knn_only());
    assert_eq!(problems, ["recs-models-knn: forbidden edge to `recs-metrics` in [dependencies]"]);
}

#[test]
fn checker_rejects_missing_lints_docs_and_inheritance() {
    let bad = GOOD
        .replace("[lints]\nworkspace = true\n", "")
        .replace("edition.workspace = true", "edition = \"2021\"");
    let problems = check_manifest(&bad, "use std::fs;", &knn_only());
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("lints")));
    assert!(problems.iter().any(|p| p.contains("package.edition")));
    assert!(problems.iter().any(|p| p.contains("//!")));
}

#[test]
fn checker_rejects_core_depending_on_anything() {
    let bad = GOOD.replace("name = \"recs-models-knn\"", "name = \"recs-core\"");
    let problems = check_manifest(&bad, "//! docs", &knn_only());
    assert!(problems.iter().any(|p| p.contains("`recs-core` in [dependencies]")), "{problems:?}");
    assert!(
        problems.iter().any(|p| p.contains("`recs-testkit` in [dev-dependencies]")),
        "{problems:?}"
    );
}

#[test]
fn checker_lets_only_the_runner_name_a_model_crate() {
    let bench = GOOD.replace("name = \"recs-models-knn\"", "name = \"recs-bench\"").replace(
        "[dependencies]\nrecs-core.workspace = true",
        "[dependencies]\nrecs-core.workspace = true\nrecs-models-knn = { path = \"../recs-models-knn\" }",
    );
    assert_eq!(check_manifest(&bench, "//! docs", &knn_only()), Vec::<String>::new());
    let cli = bench.replace("name = \"recs-bench\"", "name = \"recs-cli\"");
    let problems = check_manifest(&cli, "//! docs", &knn_only());
    assert!(
        problems.iter().any(|p| p.contains("`recs-models-knn` in [dependencies]")),
        "{problems:?}"
    );
}

#[test]
fn member_patterns_match_one_level_below_a_glob() {
    let patterns = ["crates/*".to_string(), "xtask".to_string()];
    assert!(is_member(&patterns, "crates/recs-models-foo"));
    assert!(is_member(&patterns, "xtask"));
    assert!(!is_member(&patterns, "crates/recs-models-foo/tests"));
    assert!(!is_member(&patterns, "crates"));
    assert!(!is_member(&patterns, "cratesx/a"));
    assert!(!is_member(&patterns, "fuzz"));
}

#[test]
fn every_reproduction_has_its_documentation_page() {
    let root = workspace_root();
    let dir = root.join("xtask/src/reproduce");
    let Ok(entries) = fs::read_dir(&dir) else { return };
    let mut missing = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        // A paper is a module file `<paper>.rs` or a module folder `<paper>/`.
        let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if stem == "mod" || !module {
            continue;
        }
        if !root.join("docs/reproductions").join(format!("{stem}.md")).is_file() {
            missing.push(stem.to_string());
        }
    }
    assert!(missing.is_empty(), "reproductions without docs/reproductions/<name>.md: {missing:?}");
}

// ---- docs/adding-a-model.md: the page is enough -------------------------------------

/// A fenced code block of the page with its `file=` or `line-in=` target.
struct Block {
    /// `file` (the block is, in order with the other blocks of that file, the whole
    /// file) or `line-in` (a line to add to an existing file).
    kind: String,
    target: String,
    text: String,
}

/// The page, and its blocks that name a target file.
fn page() -> (String, Vec<Block>) {
    let text = read(&workspace_root().join("docs/adding-a-model.md"));
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else { continue };
        let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim_start() != "```").collect();
        let target = info.split_whitespace().find_map(|word| word.split_once('='));
        if let Some((kind, target)) = target {
            let text = body.join("\n") + "\n";
            blocks.push(Block { kind: kind.to_string(), target: target.to_string(), text });
        }
    }
    (text, blocks)
}

/// The placeholder name of the page's crate.
const PAGE_MODULE: &str = "foo";

#[test]
fn the_page_lists_exactly_the_checks_tidy_runs() {
    let (text, _) = page();
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("The checks that hold you to it"))
        .expect("a section `## The checks that hold you to it`");
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("- **"))
        .filter_map(|l| l.split_once("**").map(|(name, _)| name))
        .collect();
    let run: Vec<&str> = MODEL_CHECKS.iter().map(|(name, _)| *name).collect();
    assert_eq!(listed, run, "the checklist of docs/adding-a-model.md against MODEL_CHECKS");
}

#[test]
fn the_page_registers_a_crate_in_two_lines_of_the_form_every_model_crate_uses() {
    let (_, blocks) = page();
    let lines: Vec<&Block> = blocks.iter().filter(|b| b.kind == "line-in").collect();
    let targets: Vec<&str> = lines.iter().map(|b| b.target.as_str()).collect();
    assert_eq!(targets, ["crates/recs-bench/Cargo.toml", "crates/recs-bench/src/registry.rs"]);
    let root = workspace_root();
    for block in lines {
        assert_eq!(block.text.lines().count(), 1, "one line for {}", block.target);
        let real = read(&root.join(&block.target));
        for package in model_crates(&root) {
            let module = module_of(&package);
            let line = block.text.trim().replace(PAGE_MODULE, &module);
            assert!(
                real.lines().any(|l| l.trim() == line),
                "{}: no line `{line}`, the page's form for {package}",
                block.target
            );
        }
    }
}

/// Writes the crate of the page and its two registration lines into `scratch`, a copy of
/// the layout of the workspace: the page's files under `crates/recs-models-foo/`, and
/// `crates/recs-bench/{Cargo.toml, src/registry.rs}` copied with the page's line added
/// after the last line of the same form.
fn write_page_crate(scratch: &Path) {
    let (_, blocks) = page();
    let root = workspace_root();
    let mut copies = Vec::new();
    for block in &blocks {
        let path = scratch.join(&block.target);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        match block.kind.as_str() {
            "file" => {
                let mut text = fs::read_to_string(&path).unwrap_or_default();
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&block.text);
                fs::write(&path, text).unwrap();
            }
            "line-in" => {
                let real = read(&root.join(&block.target));
                let forms: Vec<String> = model_crates(&root)
                    .iter()
                    .map(|p| block.text.replace(PAGE_MODULE, &module_of(p)))
                    .collect();
                let mut lines: Vec<&str> = real.lines().collect();
                let last = lines.iter().rposition(|l| forms.iter().any(|f| f.trim_end() == *l));
                let at = last.expect("a line of the page's form") + 1;
                lines.insert(at, block.text.trim_end());
                fs::write(&path, lines.join("\n") + "\n").unwrap();
                copies.push(block.target.clone());
            }
            other => panic!("unknown block target kind `{other}` in docs/adding-a-model.md"),
        }
    }
    assert_eq!(copies.len(), 2, "the page shows two registration lines");
}

/// A workspace manifest for building the page's crate alone: the real workspace's
/// package fields, lints and dependency versions (paths made absolute), one member.
fn scratch_workspace_manifest(member: &str) -> String {
    let root = workspace_root();
    let mut workspace = table(&root_manifest(), "workspace").expect("[workspace]").clone();
    workspace.insert("members".into(), Value::Array(vec![Value::String(member.into())]));
    workspace.remove("exclude");
    if let Some(Value::Table(deps)) = workspace.get_mut("dependencies") {
        for (_, dep) in deps.iter_mut() {
            if let Some(Value::String(path)) = dep.as_table_mut().and_then(|t| t.get_mut("path")) {
                *path = root.join(&*path).to_string_lossy().into_owned();
            }
        }
    }
    let mut manifest = Table::new();
    manifest.insert("workspace".into(), Value::Table(workspace));
    toml::to_string(&manifest).unwrap()
}

/// Runs cargo in `dir` with its own target folder, offline; the output on failure.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .arg(args[0])
        .args(["--offline", "--quiet"])
        .args(&args[1..])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cargo {}: {}\n{}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn the_page_builds_a_model_crate_that_keeps_the_contract() {
    // A scratch copy of the layout beside the build, so a rerun compiles only the crate.
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("adding-a-model");
    let scratch = base.join("tree");
    let _ = fs::remove_dir_all(&scratch);
    fs::create_dir_all(&scratch).unwrap();
    write_page_crate(&scratch);
    let package = format!("recs-models-{PAGE_MODULE}");
    let manifest = root_manifest();
    let (members, version) = (workspace_list(&manifest, "members"), workspace_version(&manifest));
    // Checked against the real workspace's members: the crate joins it without a line.
    let problems = check_model_crate(&ModelCrate {
        tree: &scratch,
        members: &members,
        version: &version,
        package: &package,
    });
    assert!(problems.is_empty(), "the page's crate fails:\n  {}", problems.join("\n  "));

    // Built alone against the workspace's recs-core and recs-testkit, with the workspace's
    // lockfile so that it resolves offline to the same versions.
    fs::write(scratch.join("Cargo.toml"), scratch_workspace_manifest(&format!("crates/{package}")))
        .unwrap();
    fs::copy(workspace_root().join("Cargo.lock"), scratch.join("Cargo.lock")).unwrap();
    let target = base.join("target");
    let result = cargo(&scratch, &target, &["test"]).and_then(|()| {
        cargo(&scratch, &target, &["clippy", "--all-targets", "--", "-D", "warnings"])
    });
    if let Err(e) = result {
        panic!("the crate of docs/adding-a-model.md does not pass its checks:\n{e}");
    }
}

/// A module of a crate as the path below its root: `src/lib.rs` → `[]`, `src/a.rs` and
/// `src/a/mod.rs` → `[a]`, `src/a/b.rs` → `[a, b]`.
type ModulePath = Vec<String>;

/// The module a source file under `src/` holds.
fn module_path(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "main" | "mod")) {
        parts.pop();
    }
    parts
}

/// The code of a file whose imports count: comments removed, and the file cut where its
/// test module begins (tests may use any module of their crate).
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::new();
    for (k, line) in lines.iter().enumerate() {
        let next = lines.get(k + 1).map_or("", |l| l.trim_start());
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(") && trimmed.contains("test") && next.starts_with("mod ") {
            break;
        }
        code.push_str(line.split("//").next().unwrap_or_default());
        code.push('\n');
    }
    code
}

/// The paths of the tree that starts at `code[at..]` (after `crate::` or `super::`):
/// `a::B` gives `[a, B]`; a group `a::{b::C, d}` gives `[a, b, C]` and `[a, d]`.
fn use_tree(code: &[u8], mut at: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        while code.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        while code.get(at).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_') {
            at += 1;
        }
        if at > start {
            path.push(String::from_utf8_lossy(&code[start..at]).into_owned());
        } else if code.get(at) == Some(&b'{') {
            at += 1;
            loop {
                at = use_tree(code, at, &path, out);
                while code.get(at).is_some_and(u8::is_ascii_whitespace) {
                    at += 1;
                }
                match code.get(at) {
                    Some(b',') => at += 1,
                    Some(b'}') => return at + 1,
                    _ => return at,
                }
                while code.get(at).is_some_and(u8::is_ascii_whitespace) {
                    at += 1;
                }
                if code.get(at) == Some(&b'}') {
                    return at + 1;
                }
            }
        }
        if code[at..].starts_with(b"::") {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// The modules of `modules` that the file of `module` names through `crate::` and
/// `super::` paths, in `use` declarations and in code: for each path, the longest prefix
/// that is a module.
fn imports(module: &[String], code: &str, modules: &[ModulePath]) -> Vec<ModulePath> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        let boundary = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !boundary || bytes[..at].ends_with(b"super::") {
            continue;
        }
        let mut base = module.to_vec();
        let mut rest = at;
        if code[at..].starts_with("crate::") {
            base.clear();
            rest += "crate::".len();
        } else {
            while code[rest..].starts_with("super::") {
                base.pop();
                rest += "super::".len();
            }
        }
        let mut paths = Vec::new();
        use_tree(bytes, rest, &base, &mut paths);
        for path in paths {
            let path: Vec<String> = path.into_iter().filter(|s| s != "self").collect();
            let target =
                (0..=path.len()).rev().map(|k| &path[..k]).find(|p| modules.contains(&p.to_vec()));
            if let Some(target) = target.filter(|t| *t != module) {
                found.push(target.to_vec());
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// A circle in the import graph of one crate's files (`(path below src/, text)`), as the
/// files along it, the first repeated at the end; `None` when the arrows run one way.
fn import_circle(files: &[(PathBuf, String)]) -> Option<Vec<String>> {
    let modules: Vec<ModulePath> = files.iter().map(|(p, _)| module_path(p)).collect();
    let edges: Vec<Vec<usize>> = files
        .iter()
        .zip(&modules)
        .map(|((_, text), module)| {
            let targets = imports(module, &code_of(text), &modules);
            targets.iter().filter_map(|t| modules.iter().position(|m| m == t)).collect()
        })
        .collect();
    // Depth-first search; a file met again while still on the stack closes a circle.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    fn visit(v: usize, edges: &[Vec<usize>], marks: &mut [Mark], stack: &mut Vec<usize>) -> bool {
        marks[v] = Mark::OnStack;
        stack.push(v);
        for &w in &edges[v] {
            if marks[w] == Mark::OnStack {
                stack.push(w);
                return true;
            }
            if marks[w] == Mark::New && visit(w, edges, marks, stack) {
                return true;
            }
        }
        stack.pop();
        marks[v] = Mark::Done;
        false
    }
    let mut marks = vec![Mark::New; files.len()];
    for start in 0..files.len() {
        let mut stack = Vec::new();
        if marks[start] == Mark::New && visit(start, &edges, &mut marks, &mut stack) {
            let last = *stack.last().unwrap();
            let from = stack.iter().position(|&v| v == last).unwrap();
            return Some(stack[from..].iter().map(|&v| files[v].0.display().to_string()).collect());
        }
    }
    None
}

/// The `.rs` files under `src`, as paths below it with their text.
fn source_files(src: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).unwrap().to_path_buf();
                files.push((relative, read(&path)));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn imports_between_the_files_of_a_crate_run_one_way() {
    // A name shared by two files has one home; the other file imports it, never both ways.
    let root = workspace_root();
    let patterns = workspace_list(&root_manifest(), "members");
    let mut circles = Vec::new();
    for dir in member_dirs(&root, &patterns).into_iter().chain([root.clone()]) {
        if let Some(circle) = import_circle(&source_files(&dir.join("src"))) {
            circles.push(format!("{}: {}", dir.display(), circle.join(" → ")));
        }
    }
    assert!(circles.is_empty(), "import circles between files:\n{}", circles.join("\n"));
}

fn files_of(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    list.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()
}

#[test]
fn import_circle_finder_follows_use_groups_super_and_inline_paths() {
    let one_way = [
        ("lib.rs", "mod a;\nmod b;\nmod run;\npub use a::A;\n"),
        ("a.rs", "use crate::{b::{self, B}, error::E};\n"),
        ("b.rs", "//! Uses [`crate::a::A`] in docs only.\npub struct B;\n"),
        ("run/mod.rs", "mod assess;\nmod split;\npub(crate) struct Timing;\n"),
        ("run/assess.rs", "use super::Timing;\nuse super::split::Judged;\n"),
        (
            "run/split.rs",
            "pub(crate) fn judged() {}\n#[cfg(test)]\nmod tests {\n    use crate::run::assess::X;\n}\n",
        ),
    ];
    assert_eq!(import_circle(&files_of(&one_way)), None);
    // The same files with a path in code, or a `use` in a group, pointing back.
    let mut inline = one_way;
    inline[2].1 = "pub fn b() { crate::a::run() }\n";
    assert_eq!(import_circle(&files_of(&inline)).unwrap(), ["a.rs", "b.rs", "a.rs"]);
    let mut grouped = one_way;
    grouped[5].1 = "use super::{Timing, assess::{Assessment}};\n";
    let circle = import_circle(&files_of(&grouped)).unwrap();
    assert_eq!(circle, ["run/assess.rs", "run/split.rs", "run/assess.rs"]);
}

#[test]
fn import_circle_finder_catches_a_circle_injected_into_the_tree() {
    let src = workspace_root().join("crates/recs-data/src");
    let mut files = source_files(&src);
    assert_eq!(import_circle(&files), None);
    let delimited = files.iter_mut().find(|(p, _)| p == Path::new("delimited.rs")).unwrap();
    // Above the test module, where imports count.
    delimited.1.insert_str(0, "use crate::columnar::read_events;\n");
    let circle = import_circle(&files).expect("a circle");
    assert!(circle.contains(&"delimited.rs".to_string()), "{circle:?}");
}

// ---- tests/consumers: single crates used from outside the workspace -------------------

/// Each consumer crate, and the crate whose README example it is.
const CONSUMERS: &[(&str, &str)] =
    &[("metrics-only", "recs-metrics"), ("knn-model", "recs-models-knn")];

/// The first ```` ```rust ```` block of a markdown text.
fn first_rust_block(markdown: &str) -> Option<String> {
    let after = markdown.split_once("```rust\n")?.1;
    Some(after.split_once("```")?.0.to_string())
}

#[test]
fn each_consumer_is_the_example_of_its_crates_readme() {
    let root = workspace_root();
    let dir = root.join("tests/consumers");
    let mut found: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let mut listed: Vec<&str> = CONSUMERS.iter().map(|(c, _)| *c).collect();
    listed.sort();
    assert_eq!(found, listed, "tests/consumers/ against CONSUMERS");
    for (consumer, package) in CONSUMERS {
        let main = read(&dir.join(consumer).join("src/main.rs"));
        // The file is the README's example after its `//!` header.
        let code = main
            .lines()
            .skip_while(|l| l.starts_with("//!") || l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let readme = read(&root.join("crates").join(package).join("README.md"));
        assert_eq!(
            first_rust_block(&readme).as_deref(),
            Some(code.as_str()),
            "tests/consumers/{consumer}/src/main.rs is not the example of crates/{package}/README.md"
        );
        // The consumer names its one crate by path, default features, outside the workspace.
        let manifest = parse_manifest(&dir.join(consumer).join("Cargo.toml")).unwrap();
        let deps = table(&manifest, "dependencies").expect("[dependencies]");
        assert!(deps.contains_key(*package), "{consumer} does not depend on {package}");
        assert!(table(&manifest, "workspace").is_some(), "{consumer} needs its own [workspace]");
        assert!(
            dir.join(consumer).join("Cargo.lock").is_file(),
            "{consumer} needs its Cargo.lock (CI builds it --locked)"
        );
    }
}
