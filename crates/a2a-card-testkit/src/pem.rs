//! PEM text in the shapes it takes after a trip through CI secrets and copy-paste, for the
//! tests of every key input (the library's readers and the binary's options): shapes that must
//! still read as the key, shapes that must be refused, and the check that a message or an
//! output never shows any run of the key's body.

/// The base64 body of a PEM text (every line between the boundaries, joined).
pub fn body(pem: &str) -> String {
    pem.lines().filter(|l| !l.starts_with("-----")).collect()
}

/// Shapes of `pem` that must read as the key itself: line breaks lost or changed, a byte-order
/// mark.
pub fn good_shapes(pem: &str) -> Vec<(&'static str, String)> {
    vec![
        ("one line", pem.replace('\n', "")),
        ("CR only", pem.replace('\n', "\r")),
        ("CRLF", pem.replace('\n', "\r\n")),
        ("spaces for line breaks", pem.replace('\n', " ")),
        ("byte-order mark", format!("\u{feff}{pem}")),
        (
            "byte-order mark, one line",
            format!("\u{feff}{}", pem.replace('\n', "")),
        ),
    ]
}

/// Shapes of `pem` (one key, `\n` line ends) that every reader must refuse: the END boundary
/// missing (also on one line, with CR line ends, after a byte-order mark), a garbage label, the
/// END of another label, a cut body, a BEGIN never closed.
pub fn bad_shapes(pem: &str) -> Vec<(&'static str, String)> {
    let end = pem.find("-----END").unwrap();
    let no_end = &pem[..end];
    let label_end = pem.find("-----\n").unwrap();
    let garbage_label = format!("-----BEGIN pr1v@te k3y{}", &pem[label_end..]);
    let cut = {
        let b = body(pem);
        let one_line = pem.replace('\n', "");
        assert!(one_line.contains(&b[b.len() / 2..b.len() / 2 + 8]));
        one_line.replace(&b[b.len() / 2..b.len() / 2 + 8], "")
    };
    vec![
        ("missing END", no_end.to_string()),
        ("missing END, one line", no_end.replace('\n', "")),
        ("missing END, CR only", no_end.replace('\n', "\r")),
        ("missing END, byte-order mark", format!("\u{feff}{no_end}")),
        ("garbage label", garbage_label.clone()),
        ("garbage label, one line", garbage_label.replace('\n', "")),
        (
            "END of another label",
            format!("{no_end}-----END CERTIFICATE-----\n"),
        ),
        ("body cut", cut),
        ("BEGIN never closed", format!("-----BEGIN {}", body(pem))),
    ]
}

/// Panics when `text` contains any 12-character run of `secret` (a key's [`body`]).
#[track_caller]
pub fn assert_no_material(text: &str, secret: &str, what: &str) {
    let chars: Vec<char> = secret.chars().collect();
    for window in chars.windows(12) {
        let run: String = window.iter().collect();
        assert!(
            !text.contains(&run),
            "{what}: key material shown ({run:?}):\n{text}"
        );
    }
}
