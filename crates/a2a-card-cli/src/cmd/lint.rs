//! `a2a-card lint` (being written: issue 8).

use crate::Failure;

/// Examples shown at the end of `a2a-card lint --help`.
pub(crate) const AFTER_HELP: &str = "";

/// Arguments of `lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

/// Runs `lint`.
pub(crate) fn run(_args: Args) -> Result<u8, Failure> {
    Err(Failure::new(
        a2a_card::Error::new(a2a_card::ErrorCode::Usage, "not built yet"),
        "lint",
    ))
}
