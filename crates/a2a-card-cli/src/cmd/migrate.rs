//! `a2a-card migrate` (being written: issue 8).

use crate::Failure;

/// Examples shown at the end of `a2a-card migrate --help`.
pub(crate) const AFTER_HELP: &str = "";

/// Arguments of `migrate`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

/// Runs `migrate`.
pub(crate) fn run(_args: Args) -> Result<u8, Failure> {
    Err(Failure::new(
        a2a_card::Error::new(a2a_card::ErrorCode::Usage, "not built yet"),
        "migrate",
    ))
}
