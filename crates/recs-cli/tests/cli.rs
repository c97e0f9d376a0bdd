//! End-to-end checks of the `recs` binary's basic surface.

use std::process::Output;

use assert_cmd::Command;

fn recs(arg: &str) -> Output {
    Command::cargo_bin("recs").unwrap().arg(arg).output().unwrap()
}

#[test]
fn version_flag_prints_the_crate_version() {
    let out = recs("--version");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim(), format!("recs {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_subcommands() {
    let out = recs("--help");
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().contains("Usage: recs"));
}

#[test]
fn unknown_subcommand_is_an_error() {
    assert!(!recs("no-such-command").status.success());
}
