//! `a2a-card man`: the man pages, generated from the command's own clap definitions
//! (clap_mangen): `a2a-card(1)` and one page per subcommand, `a2a-card-sign(1)` and so on.

use crate::io::{io_failure, replace_file, write_stdout};
use crate::Failure;
use std::path::PathBuf;

/// Examples shown at the end of `a2a-card man --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card man | man -l -
  a2a-card man --out-dir ~/.local/share/man/man1

Exit codes: 0 written, 2 the directory cannot be written.";

/// Arguments of `man`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Write a2a-card.1 and a2a-card-SUBCOMMAND.1 for every subcommand into DIR (created when
    /// missing; existing pages are replaced) instead of printing a2a-card(1) to stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// The page of `cmd`, titled `title` (`a2a-card-sign` for the subcommand `sign`).
fn render(cmd: &clap::Command, title: &str) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .title(title)
        .render(&mut out)
        .map_err(|e| io_failure(format!("cannot render the man page: {e}"), "<man>"))?;
    Ok(out)
}

/// Runs `man` for the command `cmd` (the whole `a2a-card` definition).
pub(crate) fn run(args: Args, cmd: clap::Command) -> Result<(), Failure> {
    let mut cmd = cmd;
    cmd.build();
    let Some(dir) = args.out_dir else {
        return write_stdout(&render(&cmd, "a2a-card")?);
    };
    std::fs::create_dir_all(&dir).map_err(|e| {
        io_failure(
            format!("cannot create the directory: {e}"),
            dir.display().to_string(),
        )
    })?;
    replace_file(&dir.join("a2a-card.1"), &render(&cmd, "a2a-card")?, None, false)?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("a2a-card-{}", sub.get_name());
        replace_file(&dir.join(format!("{name}.1")), &render(sub, &name)?, None, false)?;
    }
    Ok(())
}
