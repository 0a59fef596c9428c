//! `a2a-card man`: the man pages, generated from the command's own clap definitions
//! (clap_mangen): `a2a-card(1)` and one page per subcommand, `a2a-card-sign(1)` and so on.

use crate::io::{check_output_or, io_failure, stage, write_stdout};
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
    /// missing; existing pages are replaced, unless one is read-only: then none is written)
    /// instead of printing a2a-card(1) to stdout. All pages are written or none.
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
    let mut pages = vec![("a2a-card".to_string(), render(&cmd, "a2a-card")?)];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("a2a-card-{}", sub.get_name());
        let page = render(sub, &name)?;
        pages.push((name, page));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        io_failure(
            format!("cannot create the directory: {e}"),
            dir.display().to_string(),
        )
    })?;
    // All pages or none: every target is checked first, then each page is written to a
    // temporary file in the directory, and only when all are written are they renamed into
    // place. A failure before the renames removes the temporary files (Staged's drop) and
    // leaves the directory as it was.
    let outputs = pages
        .iter()
        .map(|(name, _)| check_output_or(&dir.join(format!("{name}.1")), false, READ_ONLY_HINT))
        .collect::<Result<Vec<_>, _>>()?;
    let staged = outputs
        .iter()
        .zip(&pages)
        .map(|(output, (_, page))| stage(output, page, None))
        .collect::<Result<Vec<_>, _>>()?;
    for page in staged {
        page.commit()?;
    }
    Ok(())
}

/// What to do about a read-only page, `man` having no option to replace one.
const READ_ONLY_HINT: &str = "man does not replace read-only pages: make it writable (chmod u+w) or \
     remove it, or write to another directory; no page was written";
