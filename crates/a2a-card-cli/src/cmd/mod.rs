//! One module per subcommand. Each has an `Args` struct (clap derive), an `AFTER_HELP` text
//! with at least one example, and `run(Args) -> Result<(), Failure>`.

pub(crate) mod canonicalize;
