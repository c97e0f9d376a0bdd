//! The terminal progress bar of the front ends that stream a catalog (`recs eval
//! --user-factors`, the Python module's `evaluate_factors` and `evaluate_scorer`).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use super::StreamProgress;

/// Users done, rate and time left on standard error, drawn only when asked for and
/// standard error is a terminal (hidden otherwise, so logs and pipes stay clean).
#[derive(Debug)]
pub struct TerminalProgress(ProgressBar);

impl TerminalProgress {
    /// A bar drawn when `wanted` and standard error is a terminal.
    pub fn new(wanted: bool) -> Self {
        if !(wanted && std::io::stderr().is_terminal()) {
            return TerminalProgress(ProgressBar::hidden());
        }
        let bar = ProgressBar::new(0);
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} users  {per_sec}  {eta} left",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        TerminalProgress(bar)
    }

    /// Removes the bar from the terminal (the evaluation is over, or failed).
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl StreamProgress for TerminalProgress {
    fn begin(&self, pass: &'static str, n_users: usize) {
        self.0.set_message(pass);
        self.0.set_length(n_users as u64);
        self.0.reset();
    }

    fn advance(&self, n_users: usize) {
        self.0.inc(n_users as u64);
    }
}
