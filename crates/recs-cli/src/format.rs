//! The options that describe a delimited interaction file, shared by every subcommand
//! that reads one, with the names and defaults `recs run` configurations use.

use recs_data::DelimitedFormat;

/// How a delimited interaction file is laid out.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FileFormat {
    /// Field delimiter: `tab`, `comma`, or the characters themselves (`,`, `::`).
    #[arg(long, default_value = "tab")]
    pub(crate) delimiter: String,
    /// The file starts with a header line.
    #[arg(long)]
    pub(crate) header: bool,
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
        Ok(DelimitedFormat::from_options(
            &self.delimiter,
            self.header,
            self.implicit,
            self.timestamps,
        )?)
    }
}
