//! Running a plugin once: argv `[plugin, "v1", JSON]`, the message on stdin, its stdout read up
//! to a bound, its stderr passed through to ours, and a deadline on the whole call.
//!
//! The plugin runs in a process group of its own, and the whole group is killed when the call
//! ends, on every path: at the deadline, when it writes more than the bound, and after it has
//! answered and exited, so that no child of a shell script is left holding our stdin, stdout or
//! stderr. Every wait (for its answer, its exit, the thread writing its stdin) is bounded by the
//! one deadline. (A consequence of the group: Ctrl-C at the terminal reaches a2a-card, not the
//! plugin, which then finds its stdout closed.) Its exit status is ignored, as sigstore's client
//! ignores it (the answer is in stdout); a plugin killed by a signal is an error.
//!
//! The plugin inherits no variable a secret was read from: the signing key's variable
//! (`A2A_CARD_SIGNING_KEY`), the PIN variable (`A2A_CARD_PKCS11_PIN`), and every variable
//! marked with [`withhold_variable`] (every `env://` variable this process read a key from is).
//! No key or PIN of a2a-card's is ever on its command line; the key id is (argument 2, as the
//! protocol has it), so a token in a key id's query is visible to the processes of the machine,
//! as with sigstore's own client.

use a2a_card::Error;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Variables a plugin never inherits.
pub const SCRUBBED_ENV: &[&str] = &["A2A_CARD_SIGNING_KEY", "A2A_CARD_PKCS11_PIN"];

/// The variables of this process that hold a secret, besides [`SCRUBBED_ENV`].
static WITHHELD: std::sync::Mutex<Vec<std::ffi::OsString>> = std::sync::Mutex::new(Vec::new());

/// Marks an environment variable as holding a secret (a key, a PIN, a token): no plugin this
/// process runs afterwards inherits it. [`crate::env_text`] marks every variable it reads; a
/// caller that reads a secret from a variable itself marks it before opening a plugin key.
///
/// ```
/// a2a_card_keys::plugin::withhold_variable("DOC_KMS_TOKEN");
/// assert!(a2a_card_keys::plugin::withheld_variables().iter().any(|v| v == "DOC_KMS_TOKEN"));
/// ```
pub fn withhold_variable(name: impl AsRef<std::ffi::OsStr>) {
    let name = name.as_ref();
    let mut list = WITHHELD.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !list.iter().any(|v| v == name) {
        list.push(name.to_os_string());
    }
}

/// Every variable no plugin inherits: [`SCRUBBED_ENV`] and those marked with
/// [`withhold_variable`].
///
/// ```
/// assert!(a2a_card_keys::plugin::withheld_variables().iter().any(|v| v == "A2A_CARD_PKCS11_PIN"));
/// ```
pub fn withheld_variables() -> Vec<std::ffi::OsString> {
    let mut all: Vec<std::ffi::OsString> = SCRUBBED_ENV.iter().map(std::ffi::OsString::from).collect();
    all.extend(
        WITHHELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned(),
    );
    all
}

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
    Error::new(crate::error::ErrorCode::ExternalSignerFailed.into(), message)
}

/// Kills the plugin's process group (the plugin leads it, and has not been reaped, so the
/// group's id cannot have been reused), then reaps the plugin.
fn kill_group(child: &mut Child) {
    let pid = rustix::process::Pid::from_child(child);
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// True once the plugin has exited; it is left a zombie (not reaped), so that its process
/// group's id stays its own until [`kill_group`] has ended what is left of the group.
fn has_exited(child: &Child) -> std::io::Result<bool> {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let pid = Pid::from_child(child);
    let status = waitid(
        WaitId::Pid(pid),
        WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
    )?;
    Ok(status.is_some())
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
    for var in withheld_variables() {
        command.env_remove(var);
    }
    let mut child = command.spawn().map_err(|e| {
        Error::new(
            crate::error::ErrorCode::KeyUnavailable.into(),
            format!("cannot run {} ({}): {e}", call.what, call.executable.display()),
        )
    })?;

    // stdin and stdout each on a thread, so that neither a plugin that never reads nor one that
    // never stops writing can block the deadline.
    let mut stdin = child.stdin.take();
    let message = call.stdin.to_vec();
    let (writer_tx, writer_done) = mpsc::channel();
    let writer = std::thread::spawn(move || {
        if let Some(pipe) = stdin.as_mut() {
            // A plugin may exit without reading (an error answer): a broken pipe is no error.
            let _ = pipe.write_all(&message);
        }
        drop(stdin);
        let _ = writer_tx.send(());
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
    loop {
        match has_exited(&child) {
            Ok(true) => break,
            Ok(false) if Instant::now() >= deadline => {
                kill_group(&mut child);
                return Err(timed_out(call));
            }
            Ok(false) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => {
                kill_group(&mut child);
                return Err(failed(format!("cannot wait for {}: {e}", call.what)));
            }
        }
    }
    // The plugin has answered and exited: end what it left running (a child holding its stdin
    // would keep the writer blocked), then reap it.
    let pid = rustix::process::Pid::from_child(&child);
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let status = child
        .wait()
        .map_err(|e| failed(format!("cannot wait for {}: {e}", call.what)))?;
    // The writer ends once nothing holds the pipe; one that a process outside the group still
    // blocks is left behind, not waited for past the deadline.
    if writer_done
        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .is_ok()
    {
        let _ = writer.join();
    }
    if let Some(signal) = status.signal() {
        return Err(failed(format!(
            "{} was killed by signal {signal} while answering {}",
            call.what, call.method
        )));
    }
    Ok(output)
}

fn timed_out(call: &Call<'_>) -> Error {
    // The timeout is an option of the caller: each front end spells it its own way.
    a2a_card::request::option_error(
        crate::error::ErrorCode::Timeout.into(),
        &format!(
            "{} did not answer {} within {} ({{key_timeout}}); it was stopped",
            a2a_card::request::template_literal(call.what),
            a2a_card::request::template_literal(call.method),
            seconds(call.timeout)
        ),
        &["key_timeout"],
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
