//! The CLI's words for the libraries' options: each option, by the canonical name the
//! libraries' errors carry ([`a2a_card::Error::options`], the rows of the core's
//! `request::VERIFY`), and the flag that sets it here. A failure spells the options its error
//! names with it ([`Flags`], in `Failure::new`), and the table check (`cmd/table_check.rs`)
//! holds it against clap and the core's table. The libraries know none of these flags.

use a2a_card::request::{Quotes, Spelling};

/// Each option the CLI offers, by its canonical name, and its flag: every option of the core's
/// verify table that the table offers to the CLI, then the keys library's options that `sign`
/// and `keygen` take, the fetcher's and the core's signing options.
pub(crate) const FLAGS: &[(&str, &str)] = &[
    ("keys", "--key"),
    ("jwks", "--jwks"),
    ("trust", "--trust"),
    ("trust_anchors", "--trust-anchors"),
    ("crls", "--crl"),
    ("identity", "--identity"),
    ("identity_prefix", "--identity-prefix"),
    ("require_eku", "--require-eku"),
    ("max_chain", "--max-chain"),
    ("algorithms", "--alg"),
    ("mode", "--mode"),
    ("profiles", "--profile"),
    ("unknown", "--unknown"),
    ("origin", "--origin"),
    ("max_signatures", "--max-signatures"),
    ("max_keys_per_kid", "--max-keys-per-kid"),
    ("max_signature_checks", "--max-signature-checks"),
    ("max_input_bytes", "--max-input-bytes"),
    ("max_depth", "--max-depth"),
    ("allow_jku", "--allow-jku"),
    // The keys library's options (a2a_card_keys::KeyOptions).
    ("key_timeout", "--key-timeout"),
    ("pkcs11_module", "--pkcs11-module"),
    // The fetcher's (a2a_card_fetch::FetchOptions).
    ("allow_loopback", "--allow-loopback"),
    ("roots", "--ca-file"),
    // Signing's (a2a_card::SignOptions: replace_same_kid, append_same_kid).
    ("replace", "--replace"),
    ("append", "--append"),
];

/// The flag of an option: its own ([`FLAGS`]), else its name in kebab case (`--max-chain-len`
/// for a library's `max_chain_len`, which no flag sets alone).
pub(crate) fn flag(option: &str) -> String {
    match FLAGS.iter().find(|(o, _)| *o == option) {
        Some((_, flag)) => flag.to_string(),
        None => format!("--{}", option.replace('_', "-")),
    }
}

/// The option a flag of [`FLAGS`] sets.
#[cfg(test)]
pub(crate) fn option_of(flag: &str) -> Option<&'static str> {
    FLAGS.iter().find(|(_, f)| *f == flag).map(|(o, _)| *o)
}

/// Options spelled as the command line gives them: each by its flag, never in quotes; an error
/// about one input (a key or certificate file) names the file as its place, not in the message.
pub(crate) struct Flags;

impl Spelling for Flags {
    fn name(&self, option: &str) -> String {
        flag(option)
    }

    fn quotes(&self) -> Quotes {
        Quotes::Never
    }

    fn names_input(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_card::request::{Input, VerifyRequest};

    fn spelled(e: a2a_card::Error) -> String {
        e.spelled(&Flags).message().to_string()
    }

    #[test]
    fn errors_name_their_options_by_flag() {
        let chain = VerifyRequest {
            max_chain: Some(9),
            ..Default::default()
        };
        assert_eq!(
            spelled(chain.options().unwrap_err()),
            "--max-chain must be 1 to 8, got 9"
        );
        let hmac = VerifyRequest {
            algorithms: Some(vec!["HS256".into()]),
            ..Default::default()
        };
        let hmac = spelled(hmac.options().unwrap_err());
        assert!(hmac.starts_with("--alg: HS256 needs a shared secret"), "{hmac}");
        let none = VerifyRequest {
            fetched: true,
            ..Default::default()
        };
        assert_eq!(
            spelled(none.trust_store().unwrap_err()),
            "no trust roots: give at least one of --key, --jwks, --trust or --trust-anchors, or an --allow-jku prefix"
        );
        // Spelling twice changes nothing.
        let once = chain.options().unwrap_err().spelled(&Flags);
        assert_eq!(once.clone().spelled(&Flags), once);
        // An error about a file: the file is the place, the message is the library's.
        let bad = VerifyRequest {
            keys: Some(vec![Input::new("not a key", "keys[0]")]),
            ..Default::default()
        }
        .build()
        .unwrap_err();
        assert_eq!(spelled(bad.clone()), bad.message());
        // The keys library's options, and a library option no flag sets alone.
        let timeout = a2a_card::request::option_error(
            a2a_card::ErrorCode::Usage,
            "no answer within 1 s ({key_timeout}); see {pkcs11_module}",
            &["key_timeout", "pkcs11_module"],
        );
        assert_eq!(
            spelled(timeout),
            "no answer within 1 s (--key-timeout); see --pkcs11-module"
        );
        let len = a2a_card::VerifyOptions {
            max_chain_len: 0,
            ..Default::default()
        };
        assert_eq!(
            spelled(len.check().unwrap_err()),
            "--max-chain-len must be 1 to 8, got 0"
        );
    }
}
