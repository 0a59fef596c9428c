//! Results out: text, JavaScript values, and the verification report object.

use crate::errors::usage;
use crate::host::{make_report, make_report_flat};
use crate::js;
use a2a_card::Report;
use js_sys::JSON;
use wasm_bindgen::prelude::*;

/// Who writes the SHA-256 of the report's canonical bytes (`canonical_sha256`).
pub(crate) enum Digest {
    /// The module (`Report::canonical_sha256`).
    Module,
    /// The host's node:crypto, over the bytes handed to JavaScript.
    Host,
    /// Made already, over the same bytes (while WebCrypto checked the signatures).
    Known(String),
}

/// Text of canonical bytes (always UTF-8: they are written from a strictly read document).
pub(crate) fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A serde value handed to JavaScript through JSON text and `JSON.parse`.
pub(crate) fn to_js(value: &serde_json::Value) -> Result<JsValue, JsValue> {
    JSON::parse(&value.to_string()).map_err(|e| usage(js::message(&e)))
}

/// The small members of a report as NUL-terminated fields for `make_report_flat` (read with one
/// `split`, several times faster than `JSON.parse` of the same members), in the order and with
/// the members of the serde form (`Report`, `SignatureReport`, `KeyUsed`, `Verdict`; a test
/// below holds the two together). `None` when a text holds a NUL itself: the JSON form then.
pub(crate) fn report_fields(report: &Report, digest: &Digest) -> Option<String> {
    /// The fields written so far, and whether every text was free of NUL (a NUL in a text would
    /// split it in two).
    struct Fields(String, bool);
    impl Fields {
        fn text(&mut self, s: &str) {
            self.1 &= !s.contains('\0');
            self.0.push_str(s);
            self.0.push('\0');
        }
        fn opt(&mut self, s: Option<&str>) {
            if let Some(s) = s {
                self.0.push('=');
                self.text(s);
            } else {
                self.0.push('\0');
            }
        }
        fn number(&mut self, n: usize) {
            self.text(&n.to_string());
        }
    }
    // A certificate account and the members one edit away from defined ones travel in the JSON
    // form (they are not in the flat fields).
    if report.signatures.iter().any(|s| s.certificate.is_some()) || report.did_you_mean().is_some() {
        return None;
    }
    let mut f = Fields(String::with_capacity(512), true);
    f.text(if report.ok { "1" } else { "0" });
    f.text(report.mode.as_str());
    f.text(&report.reason);
    f.text(report.profile.as_str());
    f.text(&match digest {
        Digest::Host => String::new(),
        Digest::Known(sha) => sha.clone(),
        Digest::Module => report.canonical_sha256(),
    });
    f.number(report.unsigned.len());
    for u in &report.unsigned {
        f.text(u);
    }
    f.number(report.signatures.len());
    for sig in &report.signatures {
        f.number(sig.index);
        f.opt(sig.kid.as_deref());
        f.opt(sig.alg.as_deref());
        f.opt(sig.jku.as_deref());
        match &sig.key {
            None => f.text(""),
            Some(key) => {
                f.text("1");
                f.text(&key.kid);
                f.text(&key.thumbprint);
                f.text(&key.source.label());
            }
        }
        f.opt(sig.profile.map(|p| p.as_str()));
        f.text(sig.verdict.code.as_str());
        f.text(&sig.verdict.message);
        f.opt(sig.verdict.pointer.as_deref());
    }
    f.1.then_some(f.0)
}

/// The report as the Rust library serializes it (the members of `Report`'s `Serialize`, in its
/// order), with the canonical bytes as the string member `canonical` right after
/// `canonical_sha256` (as the CLI's `verify --format json` prints it). The small members travel
/// as JSON text with `canonical` as a `null` placeholder; the canonical bytes travel as one view
/// of the module's memory, decoded once on the JavaScript side (not escaped into that text and
/// read back, and not copied member by member into another object). `digest` says who writes
/// `canonical_sha256`.
pub(crate) fn report_to_js(report: &Report, digest: &Digest) -> Result<JsValue, JsValue> {
    let host_hash = matches!(digest, Digest::Host);
    if let Some(flat) = report_fields(report, digest) {
        return make_report_flat(&flat, &report.canonical, host_hash).map_err(|e| usage(js::message(&e)));
    }
    // The core's JSON form, with `canonical` (and, for the host's hash, `canonical_sha256`) as
    // null placeholders filled in on the JavaScript side.
    let mut members = report.to_json();
    members["canonical"] = serde_json::Value::Null;
    match digest {
        Digest::Host => members["canonical_sha256"] = serde_json::Value::Null,
        Digest::Known(sha) => members["canonical_sha256"] = sha.as_str().into(),
        Digest::Module => {}
    }
    let json = members.to_string();
    make_report(&json, &report.canonical, host_hash).map_err(|e| usage(js::message(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_card::signature::{KeyUsed, SignatureReport, Verdict, VerdictCode};
    use a2a_card::{ErrorCode, Mode, Profile};

    fn names(v: &serde_json::Value) -> Vec<&str> {
        v.as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// `report_fields` writes what serde writes: if the core's report types gain, lose or
    /// reorder a member, this fails (or stops compiling) until `make_report_flat` follows.
    #[test]
    fn flat_report_fields_are_the_serde_members() {
        let sig = SignatureReport {
            index: 0,
            kid: Some("k".into()),
            alg: Some("ES256".into()),
            jku: Some("https://example.com/jwks".into()),
            key: Some(KeyUsed {
                kid: "k".into(),
                thumbprint: "t".into(),
                source: "jwks".into(),
            }),
            certificate: None,
            profile: Some(Profile::Spec),
            verdict: Verdict {
                code: VerdictCode::Refused(ErrorCode::SignatureInvalid),
                message: "m".into(),
                pointer: Some("/signatures/0/signature".into()),
            },
        };
        let bare = SignatureReport {
            index: 1,
            kid: None,
            alg: None,
            jku: None,
            key: None,
            certificate: None,
            profile: None,
            verdict: Verdict {
                code: VerdictCode::Refused(ErrorCode::MalformedHeader),
                message: "".into(),
                pointer: None,
            },
        };
        let mut report = Report {
            ok: false,
            mode: Mode::Require,
            reason: "r".into(),
            profile: Profile::Spec,
            canonical: b"{}".to_vec(),
            unsigned: vec!["/x".into()],
            signatures: vec![sig, bare],
        };
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(
            names(&v),
            [
                "ok",
                "mode",
                "reason",
                "profile",
                "canonical_sha256",
                "unsigned",
                "signatures"
            ]
        );
        let s = &v["signatures"][0];
        assert_eq!(
            names(s),
            ["index", "kid", "alg", "jku", "key", "profile", "verdict"]
        );
        assert_eq!(names(&s["key"]), ["kid", "thumbprint", "source"]);
        assert_eq!(names(&s["verdict"]), ["code", "message", "pointer"]);
        assert_eq!(names(&v["signatures"][1]["verdict"]), ["code", "message"]);

        let sha = report.canonical_sha256();
        let flat = report_fields(&report, &Digest::Module).unwrap();
        let fields: Vec<&str> = flat.split('\0').collect();
        let want = [
            "0",
            "require",
            "r",
            "spec",
            &sha,
            "1",
            "/x",
            "2", //
            "0",
            "=k",
            "=ES256",
            "=https://example.com/jwks",
            "1",
            "k",
            "t",
            "jwks",
            "=spec",
            "signature-invalid",
            "m",
            "=/signatures/0/signature", //
            "1",
            "",
            "",
            "",
            "",
            "",
            "malformed-header",
            "",
            "",
            "",
        ];
        assert_eq!(fields, want);
        assert_eq!(
            report_fields(&report, &Digest::Host).unwrap().split('\0').nth(4),
            Some("")
        );
        let known = Digest::Known("ab".repeat(32));
        assert_eq!(
            report_fields(&report, &known).unwrap().split('\0').nth(4),
            Some(&*"ab".repeat(32))
        );
        // A NUL inside a text: no flat form (the JSON form is used).
        report.signatures[0].kid = Some("k\0".into());
        assert_eq!(report_fields(&report, &Digest::Module), None);
    }
}
