//! A real PKCS#11 token for tests: SoftHSM2 (Debian `softhsm2`) with its own configuration and
//! token directory in a test's scratch directory (`SOFTHSM2_CONF`), keys made with OpenSC's
//! `pkcs11-tool` (Debian `opensc`) or imported with `softhsm2-util`, and the sigstore KMS test
//! plugin ([`plugins_dir`]). Outside CI a missing tool is a note and the test is skipped; with
//! `CI` set it is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where SoftHSM2's module is on Debian and elsewhere; `SOFTHSM2_MODULE` comes first.
const MODULES: &[&str] = &[
    "/usr/lib/softhsm/libsofthsm2.so",
    "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
    "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
    "/usr/local/lib/softhsm/libsofthsm2.so",
    "/usr/lib64/pkcs11/libsofthsm2.so",
];

/// The SoftHSM2 module, when it is installed.
pub fn module() -> Option<PathBuf> {
    std::env::var_os("SOFTHSM2_MODULE")
        .map(PathBuf::from)
        .into_iter()
        .chain(MODULES.iter().map(PathBuf::from))
        .find(|p| p.is_file())
}

fn has_command(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// True when SoftHSM2 (module and `softhsm2-util`) and `pkcs11-tool` are installed. Outside CI
/// a missing one is a note on stderr; with `CI` set it panics (`.ci/run` installs them through
/// `scripts/setup.sh`).
pub fn available() -> bool {
    let missing: Vec<&str> = [
        ("the SoftHSM2 module (Debian softhsm2)", module().is_some()),
        ("softhsm2-util (Debian softhsm2)", has_command("softhsm2-util")),
        ("pkcs11-tool (Debian opensc)", has_command("pkcs11-tool")),
    ]
    .iter()
    .filter(|(_, ok)| !ok)
    .map(|(what, _)| *what)
    .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} missing and CI is set: scripts/setup.sh installs them",
        missing.join(", ")
    );
    eprintln!("note: {} missing; skipping this PKCS#11 test", missing.join(", "));
    false
}

/// The folder of the test plugins (`sigstore-kms-test`), to put first on a child's PATH.
pub fn plugins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins")
}

/// One SoftHSM2 token in its own directory.
#[derive(Debug, Clone)]
pub struct Token {
    /// The configuration file (`SOFTHSM2_CONF`).
    pub conf: PathBuf,
    /// The module.
    pub module: PathBuf,
    /// The token's label.
    pub label: String,
    /// The user PIN.
    pub pin: String,
}

impl Token {
    /// A new token labelled `label` with user PIN `pin` in `dir/softhsm` (created). Call only
    /// after [`available`] said yes.
    pub fn new(dir: &Path, label: &str, pin: &str) -> Token {
        let home = dir.join("softhsm");
        let tokens = home.join("tokens");
        std::fs::create_dir_all(&tokens).unwrap();
        let conf = home.join("softhsm2.conf");
        std::fs::write(
            &conf,
            format!(
                "directories.tokendir = {}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n",
                tokens.display()
            ),
        )
        .unwrap();
        let token = Token {
            conf,
            module: module().unwrap(),
            label: label.to_string(),
            pin: pin.to_string(),
        };
        token.init(label, pin);
        token
    }

    /// Initializes one more token in the same directory (the same `SOFTHSM2_CONF`).
    pub fn init(&self, label: &str, pin: &str) {
        let out = Command::new("softhsm2-util")
            .env("SOFTHSM2_CONF", &self.conf)
            .args([
                "--init-token",
                "--free",
                "--label",
                label,
                "--pin",
                pin,
                "--so-pin",
                "24680135",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "softhsm2-util --init-token: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The environment a child needs to see this token.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![("SOFTHSM2_CONF", self.conf.display().to_string())]
    }

    /// The URI of the key labelled `object`, with the PIN and the module in it.
    pub fn uri(&self, object: &str) -> String {
        format!(
            "pkcs11:token={};object={object}?pin-value={}&module-path={}",
            self.label,
            self.pin,
            self.module.display()
        )
    }

    /// Runs `pkcs11-tool --module M --token-label L --login --pin P ARGS`; asserts success.
    #[track_caller]
    pub fn pkcs11_tool(&self, args: &[&str]) -> Output {
        let out = Command::new("pkcs11-tool")
            .env("SOFTHSM2_CONF", &self.conf)
            .arg("--module")
            .arg(&self.module)
            .args(["--token-label", &self.label, "--login", "--pin", &self.pin])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pkcs11-tool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// A key pair made by `pkcs11-tool --keypairgen` (`key_type` as it spells them:
    /// `EC:prime256v1`, `EC:secp384r1`, `EC:edwards25519`, `rsa:2048`).
    pub fn keypairgen(&self, key_type: &str, label: &str, id_hex: &str) {
        self.pkcs11_tool(&[
            "--keypairgen",
            "--key-type",
            key_type,
            "--label",
            label,
            "--id",
            id_hex,
            "--usage-sign",
        ]);
    }

    /// A PKCS#8 PEM private key imported with `softhsm2-util --import` (private and public
    /// objects under `label` and `id_hex`).
    pub fn import(&self, pem: &Path, label: &str, id_hex: &str) {
        let out = Command::new("softhsm2-util")
            .env("SOFTHSM2_CONF", &self.conf)
            .arg("--import")
            .arg(pem)
            .args([
                "--token",
                &self.label,
                "--label",
                label,
                "--id",
                id_hex,
                "--pin",
                &self.pin,
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "softhsm2-util --import: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
