//! `a2a-card schema` (being written: issue 8).

use crate::Failure;

/// Examples shown at the end of `a2a-card schema --help`.
pub(crate) const AFTER_HELP: &str = "";

/// Arguments of `schema`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

/// Runs `schema`.
pub(crate) fn run(_args: Args) -> Result<(), Failure> {
    Err(Failure::new(
        a2a_card::Error::new(a2a_card::ErrorCode::Usage, "not built yet"),
        "schema",
    ))
}
