//! Reading inputs (a file or stdin, bounded) and writing outputs (stdout, a new file, or a file
//! replaced through a temporary file and a rename).

use crate::Failure;
use a2a_card::{Error, ErrorCode};
use std::fs::{File, OpenOptions};
use std::io::IsTerminal;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The label of standard input in error lines.
pub(crate) const STDIN: &str = "<stdin>";
/// The source named by errors in the options themselves.
pub(crate) const COMMAND_LINE: &str = "<command line>";
/// The label of standard output in error lines.
pub(crate) const STDOUT: &str = "<stdout>";
/// The label of standard error in error lines.
pub(crate) const STDERR: &str = "<stderr>";

/// The largest key, JWKS or trust-store file read, in bytes.
pub(crate) const MAX_KEY_FILE_BYTES: usize = 1024 * 1024;

/// An input read into memory, with the name used for it in error lines.
pub(crate) struct Input {
    /// The bytes.
    pub(crate) bytes: Vec<u8>,
    /// The path as given, or `<stdin>`.
    pub(crate) source: String,
}

/// True when `path` means standard input (`None` or `-`).
pub(crate) fn is_stdin(path: Option<&Path>) -> bool {
    match path {
        None => true,
        Some(p) => p.as_os_str() == "-",
    }
}

/// What is read: a card (its size bound is `--max-input-bytes`) or a key file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Card,
    Key,
}

impl Reading {
    fn what(self) -> &'static str {
        match self {
            Reading::Card => "card",
            Reading::Key => "key",
        }
    }
}

/// Reads a card from `path` (`None` or `-` means stdin), refusing more than `max_bytes` bytes
/// (`--max-input-bytes`) without reading past the limit, and an empty input.
pub(crate) fn read_input(path: Option<&Path>, max_bytes: usize) -> Result<Input, Failure> {
    read_bounded(path, max_bytes, Reading::Card)
}

/// A path that names no file but reads as a host name (`agent.example.com`): the user meant a URL.
fn looks_like_host(p: &Path) -> bool {
    let s = p.to_string_lossy();
    s.contains('.')
        && !s.contains('/')
        && !s.ends_with(".json")
        && !s.ends_with(".jsonl")
        && !s.ends_with(".pem")
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == ':')
}

/// Refuses a URL given to a file option (`--jwks https://...`) when no file has that name: the
/// option reads a local file and nothing is fetched from it. `instead` says what to do (for the
/// key options, where keys from a URL come from).
pub(crate) fn refuse_url_as_file(flag: &str, path: &Path, instead: &str) -> Result<(), Failure> {
    let text = path.to_string_lossy();
    let scheme = text.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !matches!(scheme.as_deref(), Some("http" | "https")) || path.symlink_metadata().is_ok() {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "{flag} {}: {flag} takes a local file (no such file exists); {instead}",
        printable(&text)
    )))
}

fn read_bounded(path: Option<&Path>, max_bytes: usize, reading: Reading) -> Result<Input, Failure> {
    let (reader, source): (Box<dyn Read>, String) = match path {
        Some(p) if !is_stdin(Some(p)) => {
            let source = p.display().to_string();
            if p.is_dir() {
                let hint = match reading {
                    Reading::Card => " (verify --batch DIR verifies every card in a directory)",
                    Reading::Key => "",
                };
                return Err(io_failure(
                    format!(
                        "{} is a directory, not a {} file{hint}",
                        printable(&source),
                        reading.what()
                    ),
                    source,
                ));
            }
            match File::open(p) {
                Ok(f) => (Box::new(f), source),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && looks_like_host(p) => {
                    return Err(io_failure(
                        format!(
                            "cannot open {}: no such file; to fetch a card give an https URL, such as https://{}",
                            printable(&source),
                            printable(&source)
                        ),
                        source,
                    ))
                }
                Err(e) => return Err(io_failure(format!("cannot open {}: {e}", printable(&source)), source)),
            }
        }
        _ => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                // Otherwise the command would wait without a word.
                write_stderr_line(&format!(
                    "a2a-card: reading the {} from stdin (the terminal); end it with Ctrl-D, or give a file",
                    reading.what()
                ))?;
            }
            (Box::new(stdin.lock()), STDIN.to_string())
        }
    };
    let mut bytes = Vec::new();
    let cap = u64::try_from(max_bytes).unwrap_or(u64::MAX).saturating_add(1);
    if let Err(e) = reader.take(cap).read_to_end(&mut bytes) {
        return Err(io_failure(
            format!("cannot read {}: {e}", printable(&source)),
            source,
        ));
    }
    if bytes.len() > max_bytes {
        let raise = match reading {
            Reading::Card => " (--max-input-bytes N raises it)",
            Reading::Key => " for a key file",
        };
        let err = Error::new(
            ErrorCode::InputTooLarge,
            format!("the input is more than the limit of {max_bytes} bytes{raise}"),
        )
        .at("");
        return Err(Failure::new(err, source));
    }
    // An empty card is refused by the library's reader (the same words in every binding); an
    // empty key file is said here, since key text is not always JSON.
    if bytes.is_empty() && reading == Reading::Key {
        let err = Error::new(ErrorCode::InvalidKey, "the key is empty (0 bytes)");
        return Err(Failure::new(err, source));
    }
    Ok(Input { bytes, source })
}

/// Reads a key, JWKS or trust-store file (`-` means stdin) as text, a leading UTF-8 byte order
/// mark dropped (editors on Windows write one). Every failure counts as a failed key retrieval
/// (exit code 3).
/// A key-side file (a CRL) as bytes, bounded like a key file.
pub(crate) fn read_key_bytes(path: &Path) -> Result<(Vec<u8>, String), Failure> {
    let input = read_bounded(Some(path), MAX_KEY_FILE_BYTES, Reading::Key).map_err(Failure::key_retrieval)?;
    Ok((input.bytes, input.source))
}

pub(crate) fn read_key_text(path: &Path) -> Result<(String, String), Failure> {
    let input = read_bounded(Some(path), MAX_KEY_FILE_BYTES, Reading::Key).map_err(Failure::key_retrieval)?;
    match String::from_utf8(input.bytes) {
        Ok(text) => {
            let text = match text.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_string(),
                None => text,
            };
            Ok((text, input.source))
        }
        Err(_) => Err(Failure::new(
            Error::new(
                ErrorCode::InvalidKey,
                "a key file must be text (PEM or JSON); this one is not UTF-8",
            ),
            input.source,
        )
        .key_retrieval()),
    }
}

/// Writes `bytes` to stdout exactly, and flushes.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| io_failure(format!("cannot write the output: {e}"), STDOUT))
}

/// Writes one line to stderr.
pub(crate) fn write_stderr_line(line: &str) -> Result<(), Failure> {
    let mut err = std::io::stderr().lock();
    writeln!(err, "{line}").map_err(|e| io_failure(format!("cannot write the report: {e}"), STDERR))
}

/// The most symbolic links followed from one output path (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Where a path leads once every symbolic link is followed.
struct Resolved {
    /// The file the path stands for: its directory canonicalized, its own name kept (never a
    /// symbolic link itself).
    file: PathBuf,
    /// The file's metadata when it exists.
    meta: Option<std::fs::Metadata>,
    /// How many symbolic links were followed to reach it.
    links: usize,
}

/// Follows `path` through its symbolic links, one at a time, to the file it stands for. Refuses
/// (with the reason) a path that names no file (`..`, `dir/`), a directory that cannot be
/// found, a link loop, and anything inside `/proc`, where links such as `/dev/stdout` and
/// `/dev/fd/N` lead to another process's open file rather than to a place in a directory.
fn resolve(path: &Path) -> Result<Resolved, String> {
    if path.as_os_str().as_encoded_bytes().last() == Some(&b'/') {
        return Err("the path ends with / and so does not name a file".into());
    }
    let mut current = path.to_path_buf();
    let mut links = 0;
    loop {
        let Some(name) = current.file_name().map(std::ffi::OsStr::to_os_string) else {
            return Err(format!("{} does not name a file", current.display()));
        };
        let dir = match current.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let dir = std::fs::canonicalize(&dir)
            .map_err(|e| format!("cannot find the directory {}: {e}", dir.display()))?;
        if dir.starts_with("/proc") {
            return Err(format!(
                "it leads to {}, in /proc: a process's open file (as /dev/stdout does), not a file in a directory; refusing to replace it",
                dir.join(&name).display()
            ));
        }
        let file = dir.join(&name);
        match std::fs::symlink_metadata(&file) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(format!("more than {MAX_LINKS} symbolic links to follow"));
                }
                let target = std::fs::read_link(&file)
                    .map_err(|e| format!("cannot read the symbolic link {}: {e}", file.display()))?;
                current = dir.join(target);
            }
            Ok(meta) => {
                return Ok(Resolved {
                    file,
                    meta: Some(meta),
                    links,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Resolved {
                    file,
                    meta: None,
                    links,
                })
            }
            Err(e) => return Err(format!("cannot look at {}: {e}", file.display())),
        }
    }
}

/// What kind of file `file_type` is, for error lines ("a FIFO (named pipe)", ...).
pub(crate) fn kind_of(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_file() {
        return "a regular file";
    }
    if file_type.is_dir() {
        return "a directory";
    }
    if file_type.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    "a special file"
}

/// True when no one may write to the file (no write permission bit at all; on other systems,
/// the read-only attribute). Decided from the mode, not by trying, so that it holds for root too.
fn is_read_only(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o222 == 0
    }
    #[cfg(not(unix))]
    {
        meta.permissions().readonly()
    }
}

/// The file mode for error lines (`mode 0444`), where there is one.
fn mode_note(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        format!(" (mode {:04o})", meta.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        String::new()
    }
}

/// An output file, checked: where a write to it lands and what it would replace.
pub(crate) struct Output {
    /// The path as given, for error lines.
    source: String,
    /// The file written: the path given, or, for a symbolic link, the file it leads to.
    file: PathBuf,
    /// The metadata of the regular file it replaces, when there is one.
    existing: Option<std::fs::Metadata>,
}

impl Output {
    /// True when a file (or a symbolic link to one) is already there.
    pub(crate) fn exists(&self) -> bool {
        self.existing.is_some()
    }

    /// The file a write lands in (for a symbolic link, the file it leads to).
    pub(crate) fn file(&self) -> &Path {
        &self.file
    }
}

/// Checks that `path` may be written as an output, before anything is written: it must be a
/// regular file or not exist yet. A symbolic link is followed to the file it leads to, which is
/// what gets written (the link stays a link); a dangling link is refused. A device, a FIFO, a
/// socket or a directory is refused, also behind a link, and so is a file no one may write to
/// (mode without any write bit) unless `force`.
pub(crate) fn check_output(path: &Path, force: bool) -> Result<Output, Failure> {
    check_output_or(path, force, "use --force to replace it")
}

/// [`check_output`] for a command that has no `--force`: a read-only file is refused with
/// `read_only_hint` (what the user can do instead) after the reason.
pub(crate) fn check_output_or(path: &Path, force: bool, read_only_hint: &str) -> Result<Output, Failure> {
    let source = path.display().to_string();
    let resolved = match resolve(path) {
        Ok(resolved) => resolved,
        Err(why) => {
            // Name what the path leads to when that is known (a link into /proc to a pipe or a
            // terminal, say); otherwise why it cannot be followed.
            let message = match std::fs::metadata(path) {
                Ok(meta) if !meta.is_file() => format!(
                    "{source} leads to {}, not a regular file; refusing to replace it",
                    kind_of(meta.file_type())
                ),
                _ => format!("cannot write {source}: {why}"),
            };
            return Err(io_failure(message, source));
        }
    };
    let what = if resolved.links > 0 {
        format!(
            "{source} is a symbolic link to {}, which",
            resolved.file.display()
        )
    } else {
        source.clone()
    };
    let Some(meta) = resolved.meta else {
        if resolved.links > 0 {
            return Err(io_failure(
                format!("{what} does not exist; refusing to write through a dangling link"),
                source,
            ));
        }
        return Ok(Output {
            source,
            file: resolved.file,
            existing: None,
        });
    };
    if !meta.file_type().is_file() {
        return Err(io_failure(
            format!(
                "{what} is {}, not a regular file; refusing to replace it",
                kind_of(meta.file_type())
            ),
            source,
        ));
    }
    if !force && is_read_only(&meta) {
        return Err(io_failure(
            format!("{what} is read-only{}; {read_only_hint}", mode_note(&meta)),
            source,
        ));
    }
    Ok(Output {
        source,
        file: resolved.file,
        existing: Some(meta),
    })
}

/// True when `a` and `b` are the same file: the same device and inode when both exist (on
/// unix; elsewhere the same canonical path), otherwise the same file once symbolic links are
/// followed and the directories canonicalized. So `k.pem`, `./k.pem`, `dir/../k.pem`, a
/// symbolic link to `k.pem` and a hard link to it all count as the same file, whether it
/// exists yet or not.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
        #[cfg(not(unix))]
        {
            let _ = (x, y);
            if let (Ok(x), Ok(y)) = (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
                return x == y;
            }
        }
    }
    match (resolve(a), resolve(b)) {
        (Ok(x), Ok(y)) => x.file == y.file,
        _ => a == b,
    }
}

/// Refuses `output` (named by the option `output_flag`) when it is the same file as `input`
/// (named by `input_flag`): writing it would destroy the input.
pub(crate) fn refuse_same_file(
    output_flag: &str,
    output: &Path,
    input_flag: &str,
    input: &Path,
) -> Result<(), Failure> {
    if same_file(output, input) {
        return Err(Failure::usage(format!(
            "{output_flag} {} and {input_flag} {} are the same file; writing one would destroy the other",
            quoted(&output.display().to_string()),
            quoted(&input.display().to_string()),
        )));
    }
    Ok(())
}

/// Replaces (or creates) `path` with `bytes` through a temporary file and a rename, so that
/// the file holds either its old content or the whole new content, never a part. `path` is
/// first checked by [`check_output`] (with `force`): a special file is never replaced, and a
/// symbolic link is written through, the temporary file going in the directory of the file it
/// leads to. On unix the temporary file is created with `mode`, or, when `mode` is `None` and
/// the file exists, gets the permissions of the file it replaces. The temporary file never
/// outlives a failure.
pub(crate) fn replace_file(path: &Path, bytes: &[u8], mode: Option<u32>, force: bool) -> Result<(), Failure> {
    let output = check_output(path, force)?;
    replace_output(&output, bytes, mode)
}

/// [`replace_file`] on an output already checked.
fn replace_output(output: &Output, bytes: &[u8], mode: Option<u32>) -> Result<(), Failure> {
    stage(output, bytes, mode)?.commit()
}

/// A file written in full to a temporary file beside the one it will replace, not yet renamed
/// into place: [`Staged::commit`] renames it. Dropped without a commit, the temporary file is
/// removed, so that a command writing several files can write all of them or none.
pub(crate) struct Staged {
    /// The temporary file, until it is renamed or removed.
    temp: Option<PathBuf>,
    /// The path as given, for error lines.
    source: String,
    /// The file it replaces or creates.
    file: PathBuf,
}

impl Staged {
    /// Renames the temporary file over the file it replaces, after checking once more that
    /// the file is still a regular file (or absent).
    pub(crate) fn commit(mut self) -> Result<(), Failure> {
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        // The check again just before the rename, so that the window in which something else
        // could take the file's place stays as short as it can be.
        let result = match std::fs::symlink_metadata(&self.file) {
            Ok(meta) if !meta.file_type().is_file() => Err(std::io::Error::other(format!(
                "{} became {} while it was being written; it was not replaced",
                self.file.display(),
                kind_of(meta.file_type())
            ))),
            _ => std::fs::rename(&temp, &self.file),
        };
        if let Err(e) = result {
            let _ = std::fs::remove_file(&temp);
            return Err(io_failure(
                format!("cannot write {}: {e}", self.source),
                self.source.clone(),
            ));
        }
        Ok(())
    }

    /// [`Staged::commit`] for a file that must not exist: the temporary file is linked under
    /// the file's name, which fails when anything took that name since it was checked (a file
    /// is never replaced), then removed. Where the file system has no hard links, the file's
    /// absence is checked once more and the temporary file renamed.
    pub(crate) fn commit_new(mut self) -> Result<(), Failure> {
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let result = match std::fs::hard_link(&temp, &self.file) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
            Err(_) => match std::fs::symlink_metadata(&self.file) {
                Ok(_) => Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists)),
                Err(_) => std::fs::rename(&temp, &self.file),
            },
        };
        let _ = std::fs::remove_file(&temp);
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(io_failure(
                format!("{} already exists; use --force to replace it", self.source),
                self.source.clone(),
            )),
            Err(e) => Err(io_failure(
                format!("cannot write {}: {e}", self.source),
                self.source.clone(),
            )),
        }
    }

    /// [`Staged::commit`] when `replace` (`--force`), else [`Staged::commit_new`].
    pub(crate) fn commit_as(self, replace: bool) -> Result<(), Failure> {
        if replace {
            self.commit()
        } else {
            self.commit_new()
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// Writes `bytes` to a new temporary file in the directory of `output` (with `mode`, or the
/// permissions of the file it replaces), synced to disk, ready for [`Staged::commit`].
pub(crate) fn stage(output: &Output, bytes: &[u8], mode: Option<u32>) -> Result<Staged, Failure> {
    let source = output.source.clone();
    let Some(name) = output.file.file_name() else {
        return Err(io_failure(format!("{source} does not name a file"), source));
    };
    let dir = match output.file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // When it replaces a file, the temporary file is readable by its owner only until it gets
    // the permissions of the file it replaces.
    let temp_mode = mode.or_else(|| output.existing.as_ref().map(|_| 0o600));
    let mut temp = None;
    for attempt in 0..100u32 {
        // The file's name in the temporary one when it fits (NAME_MAX is 255 bytes on most
        // file systems): a name near the limit would make every write of it fail.
        let mut temp_name = std::ffi::OsString::from(".");
        if name.len() <= 200 {
            temp_name.push(name);
        }
        temp_name.push(format!(".a2a-card-{}-{attempt}.tmp", std::process::id()));
        let candidate = dir.join(temp_name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        set_mode(&mut options, temp_mode);
        match options.open(&candidate) {
            Ok(f) => {
                temp = Some((candidate, f));
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(io_failure(
                    format!("cannot create a temporary file in {}: {e}", dir.display()),
                    source,
                ))
            }
        }
    }
    let Some((temp_path, mut file)) = temp else {
        return Err(io_failure(
            format!("cannot create a temporary file in {}", dir.display()),
            source,
        ));
    };
    // From here on the temporary file is removed if anything fails (Staged's drop).
    let staged = Staged {
        temp: Some(temp_path),
        source: source.clone(),
        file: output.file.clone(),
    };
    let result = (|| -> std::io::Result<()> {
        file.write_all(bytes)?;
        if mode.is_none() {
            if let Some(meta) = &output.existing {
                file.set_permissions(meta.permissions())?;
            }
        }
        file.sync_all()
    })();
    drop(file);
    if let Err(e) = result {
        return Err(io_failure(format!("cannot write {source}: {e}"), source));
    }
    Ok(staged)
}

#[cfg(unix)]
fn set_mode(options: &mut OpenOptions, mode: Option<u32>) {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(mode) = mode {
        options.mode(mode);
    }
}

#[cfg(not(unix))]
fn set_mode(_options: &mut OpenOptions, _mode: Option<u32>) {}

/// Text from a card or a key, escaped for a line of output (the library's rule).
pub(crate) use a2a_card::signature::{printable, quoted};

pub(crate) fn io_failure(message: String, source: impl Into<String>) -> Failure {
    Failure::new(Error::new(ErrorCode::Io, message), source)
}
