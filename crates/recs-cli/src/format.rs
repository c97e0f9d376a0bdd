//! The options that describe a delimited interaction file, shared by every subcommand
//! that reads one, with the names and defaults `recs run` configurations use.

use recs_data::DelimitedFormat;

/// How a delimited interaction file is laid out.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FileFormat {
    /// Field delimiter: `auto` (the first of tab, `::`, comma and semicolon found in the
    /// first line), `tab`, `comma`, or the characters themselves (`,`, `::`).
    #[arg(long, default_value = recs_data::AUTO_DELIMITER)]
    pub(crate) delimiter: String,
    /// The file starts with a header line [default: found from the first two lines: a
    /// header holds text where the data hold numbers, or names its user column `user`,
    /// `userId`, `user_id` or `uid`].
    #[arg(long, conflicts_with = "no_header")]
    pub(crate) header: bool,
    /// The file has no header line.
    #[arg(long)]
    pub(crate) no_header: bool,
    /// No rating column (`user item`): every line is one event of value 1.
    #[arg(long)]
    pub(crate) implicit: bool,
    /// A timestamp column (an integer) follows the rating (the item with --implicit);
    /// needed by the temporal protocols.
    #[arg(long)]
    pub(crate) timestamps: bool,
}

impl FileFormat {
    /// The format these options describe.
    pub(crate) fn delimited(&self) -> anyhow::Result<DelimitedFormat> {
        let header = match (self.header, self.no_header) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        Ok(DelimitedFormat::from_options(&self.delimiter, header, self.implicit, self.timestamps)?)
    }
}

/// The training events of `recs eval --train`: `user item ...` per line, delimiter and
/// header found from the file, further columns ignored.
pub(crate) fn read_train(path: &std::path::Path) -> anyhow::Result<recs_data::Dataset> {
    use anyhow::Context;
    let format =
        DelimitedFormat::detected().rating(None).duplicates(recs_core::DuplicatePolicy::KeepLast);
    recs_data::load_delimited(path, &format)
        .with_context(|| format!("reading training file {}", path.display()))
}
