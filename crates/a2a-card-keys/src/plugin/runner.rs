//! Running a plugin once: argv `[plugin, "v1", JSON]`, the message on stdin, its stdout read up
//! to a bound, its stderr passed through to ours, and a deadline on the whole call.
//!
//! The plugin runs in a process group of its own, so that at the deadline (or when it writes
//! more than the bound) the whole group is killed, a shell script's children too, and none is
//! left holding our stderr. (A consequence: Ctrl-C at the terminal reaches a2a-card, not the
//! plugin, which then finds its stdout closed.) Its exit status is ignored, as sigstore's client ignores it (the
//! answer is in stdout); a plugin killed by a signal is an error. The signing key's variable
//! (`A2A_CARD_SIGNING_KEY`) and the PIN variable (`A2A_CARD_PKCS11_PIN`) are removed from its
//! environment; nothing secret is ever on its command line.

use a2a_card::{Error, ErrorCode};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Variables a plugin never inherits.
pub const SCRUBBED_ENV: &[&str] = &["A2A_CARD_SIGNING_KEY", "A2A_CARD_PKCS11_PIN"];

/// What one call needs.
pub(crate) struct Call<'a> {
    pub(crate) executable: &'a Path,
    /// The JSON of argument 2.
    pub(crate) args_json: &'a str,
    pub(crate) stdin: &'a [u8],
    pub(crate) timeout: Duration,
    pub(crate) max_output: usize,
    /// How the plugin is named in messages.
    pub(crate) what: &'a str,
    /// The method, for messages.
    pub(crate) method: &'a str,
}

fn failed(message: String) -> Error {
    Error::new(ErrorCode::ExternalSignerFailed, message)
}

/// Kills the plugin's process group (the plugin leads it, and has not been waited for, so the
/// group's id cannot have been reused), then reaps the plugin.
fn kill_group(child: &mut Child) {
    let pid = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs the call and returns the plugin's stdout.
pub(crate) fn run(call: &Call<'_>) -> Result<Vec<u8>, Error> {
    let start = Instant::now();
    let deadline = start + call.timeout;
    let mut command = Command::new(call.executable);
    command
        .arg(super::protocol::PROTOCOL_VERSION)
        .arg(call.args_json)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0);
    for var in SCRUBBED_ENV {
        command.env_remove(var);
    }
    let mut child = command.spawn().map_err(|e| {
        Error::new(
            ErrorCode::KeyUnavailable,
            format!("cannot run {} ({}): {e}", call.what, call.executable.display()),
        )
    })?;

    // stdin and stdout each on a thread, so that neither a plugin that never reads nor one that
    // never stops writing can block the deadline.
    let mut stdin = child.stdin.take();
    let message = call.stdin.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(pipe) = stdin.as_mut() {
            // A plugin may exit without reading (an error answer): a broken pipe is no error.
            let _ = pipe.write_all(&message);
        }
        drop(stdin);
    });
    let stdout = child.stdout.take();
    let max = call.max_output;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let result = match stdout {
            Some(pipe) => pipe.take(max as u64 + 1).read_to_end(&mut out).map(|_| out),
            None => Ok(out),
        };
        let _ = tx.send(result);
    });

    let output = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => {
            kill_group(&mut child);
            return Err(failed(format!("cannot read what {} answered: {e}", call.what)));
        }
        Err(_) => {
            kill_group(&mut child);
            return Err(timed_out(call));
        }
    };
    if output.len() > call.max_output {
        kill_group(&mut child);
        return Err(failed(format!(
            "{} answered {} with more than {} bytes; a protocol answer is far smaller, so it was stopped",
            call.what, call.method, call.max_output
        )));
    }
    // stdout is closed: wait for the exit within what is left of the deadline.
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                return Err(timed_out(call));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => {
                kill_group(&mut child);
                return Err(failed(format!("cannot wait for {}: {e}", call.what)));
            }
        }
    };
    let _ = writer.join();
    if let Some(signal) = status.signal() {
        return Err(failed(format!(
            "{} was killed by signal {signal} while answering {}",
            call.what, call.method
        )));
    }
    Ok(output)
}

fn timed_out(call: &Call<'_>) -> Error {
    Error::new(
        ErrorCode::Timeout,
        format!(
            "{} did not answer {} within {} (--key-timeout); it was stopped",
            call.what,
            call.method,
            seconds(call.timeout)
        ),
    )
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}
