//! Looking inside a card without trusting anything: decoded signature headers, the canonical
//! SHA-256, and the members a signature would not cover.

use crate::canonical::Doc;
use crate::canonical::Profile;
use crate::canonical::{canonicalize_doc, CanonicalizeOptions};
use crate::error::Error;
use crate::signature::entries::read_signatures;
use crate::signature::report::push_unsigned;
use crate::signature::{printable, quoted, sha256_hex};
use serde::{Serialize, Serializer};

/// One signature entry as found in the card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryInfo {
    /// Index in `signatures`.
    pub index: usize,
    /// The decoded protected header as JSON text (as it was encoded), when it decodes.
    pub protected: Option<String>,
    /// The unprotected `header` member as JSON text, when the entry has one (never covered by
    /// the signature).
    pub header: Option<String>,
    /// `alg`, `kid`, `typ`, `jku` when the header passes the JWS rules.
    pub alg: Option<String>,
    /// `kid`.
    pub kid: Option<String>,
    /// `typ`.
    pub typ: Option<String>,
    /// `jku` (never fetched by inspection).
    pub jku: Option<String>,
    /// Length in bytes of the decoded signature, when it decodes.
    pub signature_bytes: Option<usize>,
    /// Why the entry is malformed, if it is: `code: message`.
    pub problem: Option<String>,
    /// The certificates of a protected `x5c`, decoded (leaf first; not validated): absent from
    /// the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub x5c: Vec<CertificateInfo>,
}

/// One certificate of an `x5c`, as `inspect` shows it: what it says, nothing checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CertificateInfo {
    /// Subject name.
    pub subject: String,
    /// Issuer name.
    pub issuer: String,
    /// Serial number, hex.
    pub serial: String,
    /// notBefore (`YYYY-MM-DDTHH:MM:SSZ`).
    pub not_before: String,
    /// notAfter.
    pub not_after: String,
    /// subjectAltName entries, `DNS:`, `IP:` or `URI:` and the name.
    pub names: Vec<String>,
    /// Whether it is a CA certificate.
    pub ca: bool,
    /// RFC 7638 thumbprint of its key, when the key is one JOSE knows.
    pub key_thumbprint: Option<String>,
}

fn certificate_info(der: &[u8]) -> Option<CertificateInfo> {
    let s = crate::jose::x509::summary(der).ok()?;
    let mut names: Vec<String> = s.dns_names.iter().map(|n| format!("DNS:{n}")).collect();
    names.extend(s.ips.iter().map(|n| format!("IP:{n}")));
    names.extend(s.uris.iter().map(|n| format!("URI:{n}")));
    Some(CertificateInfo {
        key_thumbprint: crate::jose::keys::PublicKey::from_spki_der(&s.spki)
            .ok()
            .map(|k| k.thumbprint()),
        subject: s.subject,
        issuer: s.issuer,
        serial: s.serial,
        not_before: s.not_before,
        not_after: s.not_after,
        names,
        ca: s.is_ca,
    })
}

/// What [`inspect_card`] finds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    /// The profile used for the canonical bytes.
    #[serde(serialize_with = "profile_name")]
    pub profile: Profile,
    /// SHA-256 (hex) of the canonical bytes.
    pub canonical_sha256: String,
    /// Length of the canonical bytes.
    pub canonical_bytes: usize,
    /// Members not covered under that profile.
    pub unsigned: Vec<String>,
    /// The signature entries.
    pub signatures: Vec<EntryInfo>,
}

/// Inspects a card: nothing is verified, nothing is fetched.
///
/// ```
/// let i = a2a_card::inspect_card(br#"{"name":"A","extra":1}"#, &Default::default()).unwrap();
/// assert_eq!(i.unsigned, vec!["/extra".to_string()]);
/// assert!(i.signatures.is_empty());
/// ```
pub fn inspect_card(card: &[u8], opts: &CanonicalizeOptions) -> Result<Inspection, Error> {
    let doc = Doc::parse(card, &opts.limits)?;
    let canonical = canonicalize_doc(&doc, opts)?;
    // As in verification: the card is read once, borrowed; only its signature entries are owned.
    let entries = read_signatures(&doc, usize::MAX)?;
    let mut signatures = Vec::with_capacity(entries.len());
    for entry in entries.entries() {
        let mut info = EntryInfo {
            index: entry.index(),
            protected: entry.protected_json(),
            header: entry.unprotected_json(),
            alg: None,
            kid: None,
            typ: None,
            jku: None,
            signature_bytes: None,
            problem: None,
            x5c: Vec::new(),
        };
        let said = |e: Error| format!("{}: {}", e.code(), e.message());
        match entry.header() {
            Ok(h) => {
                let x5c = h.protected_param("x5c");
                info.alg = Some(h.alg.as_str().to_string());
                info.kid = h.kid;
                info.typ = h.typ;
                info.jku = h.jku;
                if let Some(v) = x5c {
                    match crate::jose::x509::decode_x5c(&v) {
                        Ok(chain) => info.x5c = chain.iter().filter_map(|d| certificate_info(d)).collect(),
                        Err(e) => info.problem = Some(said(e)),
                    }
                }
            }
            Err(e) => info.problem = Some(said(e)),
        }
        match entry.signature() {
            Ok(sig) => info.signature_bytes = Some(sig.len()),
            Err(e) if info.problem.is_none() => info.problem = Some(said(e)),
            Err(_) => {}
        }
        signatures.push(info);
    }
    Ok(Inspection {
        profile: canonical.profile,
        canonical_sha256: sha256_hex(&canonical.bytes),
        canonical_bytes: canonical.bytes.len(),
        unsigned: canonical.unsigned,
        signatures,
    })
}

impl Inspection {
    /// The inspection for people (what `a2a-card inspect` prints): the card's `source`, the
    /// profile, the canonical SHA-256 and length, each signature entry's header fields (or why
    /// it is malformed), the unsigned members, and a reminder that nothing was verified. Text
    /// from the card is escaped.
    ///
    /// ```
    /// let i = a2a_card::inspect_card(br#"{"name":"A","extra":1}"#, &Default::default()).unwrap();
    /// let text = i.to_text("card.json");
    /// assert!(text.starts_with("card: card.json\nprofile: spec\n"));
    /// assert!(text.contains("unsigned: [\"/extra\"]\n"));
    /// ```
    pub fn to_text(&self, source: &str) -> String {
        let opt = |v: &Option<String>| v.as_deref().map_or_else(|| "(none)".to_string(), quoted);
        let mut out = String::new();
        out.push_str(&format!("card: {}\n", printable(source)));
        out.push_str(&format!("profile: {}\n", self.profile));
        out.push_str(&format!(
            "canonical sha256: {} ({} bytes)\n",
            self.canonical_sha256, self.canonical_bytes
        ));
        out.push_str(&format!("signatures: {}\n", self.signatures.len()));
        for s in &self.signatures {
            out.push_str(&format!(
                "signature {}: alg {} kid {} typ {} jku {}",
                s.index,
                s.alg.as_deref().map_or_else(|| "(none)".to_string(), printable),
                opt(&s.kid),
                opt(&s.typ),
                opt(&s.jku)
            ));
            match s.signature_bytes {
                Some(n) => out.push_str(&format!(", signature {n} bytes\n")),
                None => out.push_str(", signature unreadable\n"),
            }
            if let Some(p) = &s.protected {
                out.push_str(&format!("  protected header: {}\n", printable(p)));
            }
            if let Some(h) = &s.header {
                out.push_str(&format!("  unprotected header (not signed): {}\n", printable(h)));
            }
            for (i, c) in s.x5c.iter().enumerate() {
                out.push_str(&format!(
                    "  x5c [{i}]: subject {} issuer {} serial {} valid {} to {}{}{}\n",
                    quoted(&c.subject),
                    quoted(&c.issuer),
                    c.serial,
                    c.not_before,
                    c.not_after,
                    if c.ca { " CA" } else { "" },
                    if c.names.is_empty() {
                        String::new()
                    } else {
                        format!(" names {}", printable(&c.names.join(", ")))
                    }
                ));
            }
            if !s.x5c.is_empty() {
                out.push_str(
                    "  x5c: decoded only; the chain is checked when the card is verified with trust anchors\n",
                );
            }
            if let Some(problem) = &s.problem {
                out.push_str(&format!("  problem: {}\n", printable(problem)));
            }
        }
        push_unsigned(
            &mut out,
            &self.unsigned,
            "would not be covered by a signature under this profile",
        );
        out.push_str("nothing was verified; verify it with the keys you trust\n");
        out
    }
}

fn profile_name<S: Serializer>(p: &Profile, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.as_str())
}
