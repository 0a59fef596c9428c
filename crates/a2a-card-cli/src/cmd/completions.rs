//! `a2a-card completions SHELL`: the shell completion script, generated from the command's own
//! clap definitions (clap_complete), so that it always matches the options this build has.

use crate::io::write_stdout;
use crate::Failure;
use clap_complete::Shell;

/// Examples shown at the end of `a2a-card completions --help`.
pub(crate) const AFTER_HELP: &str = "\
Examples:
  a2a-card completions bash > ~/.local/share/bash-completion/completions/a2a-card
  a2a-card completions zsh > ~/.zfunc/_a2a-card
  a2a-card completions fish > ~/.config/fish/completions/a2a-card.fish

Exit codes: 0 printed, 2 unknown shell.";

/// Arguments of `completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Runs `completions` for the command `cmd` (the whole `a2a-card` definition).
pub(crate) fn run(args: Args, mut cmd: clap::Command) -> Result<(), Failure> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "a2a-card", &mut out);
    write_stdout(&out)
}
