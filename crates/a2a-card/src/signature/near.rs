//! Members that A2A v1.0 does not define but that are one edit away from one it does
//! (`documentationURL`, `capabilites`): the "did you mean" of the lint, sign and verify reports.
//! The names are the presence table's (`canonical/table.rs`), per message: a member is compared
//! with the members of the object it is in only. Close means equal ignoring case, or one
//! insertion, deletion or substitution apart ignoring case. An A2A 0.3 member the table lists as
//! legacy gets no suggestion (lint says what replaces it).

use crate::canonical::table::{Kind, MessageDesc, AGENT_CARD, LEGACY};
use crate::error::unescape_pointer_token;

/// The member A2A v1.0 defines that the last member of `pointer` (an RFC 6901 JSON Pointer into
/// a card, as the `unsigned` lists of the reports give them) is one edit away from, if any. The
/// pointer is followed through the card's messages; a pointer into a `Struct`, a string map or
/// a member A2A v1.0 does not define gives `None`, as does a member that is defined.
///
/// ```
/// use a2a_card::signature::near::did_you_mean;
/// assert_eq!(did_you_mean("/documentationURL"), Some("documentationUrl"));
/// assert_eq!(did_you_mean("/capabilites"), Some("capabilities"));
/// assert_eq!(did_you_mean("/capabilities/streming"), Some("streaming"));
/// assert_eq!(did_you_mean("/skills/0/tag"), Some("tags"));
/// assert_eq!(did_you_mean("/security"), None);
/// assert_eq!(did_you_mean("/name"), None);
/// ```
pub fn did_you_mean(pointer: &str) -> Option<&'static str> {
    let rest = pointer.strip_prefix('/')?;
    let (path, last) = match rest.rsplit_once('/') {
        Some((path, last)) => (Some(path), last),
        None => (None, rest),
    };
    let mut tokens = path.into_iter().flat_map(|p| p.split('/'));
    let mut desc: &'static MessageDesc = &AGENT_CARD;
    while let Some(token) = tokens.next() {
        let (field, _) = desc.field(&unescape_pointer_token(token))?;
        desc = match field.kind {
            Kind::Message(inner) => inner,
            Kind::RepeatedMessage(inner) | Kind::MapMessage(inner) => {
                // The next token is the element's index or the entry's key; the member follows.
                tokens.next()?;
                inner
            }
            _ => return None,
        };
    }
    near_member(desc, &unescape_pointer_token(last))
}

/// The member of `desc` that `name` is one edit away from, if `name` is not itself one of its
/// members (by JSON or proto name) nor a legacy member.
pub(crate) fn near_member(desc: &MessageDesc, name: &str) -> Option<&'static str> {
    if desc.field(name).is_some() || LEGACY.iter().any(|(m, n, _)| *m == desc.name && *n == name) {
        return None;
    }
    let lower: Vec<char> = ascii_fold(name).chars().collect();
    desc.fields
        .iter()
        .find(|f| within_one_edit(&lower, f.json))
        .map(|f| f.json)
}

/// `name` lowercased for comparison with the (ASCII) member names: the same comparisons as with
/// `str::to_lowercase`, without its Unicode tables. Only two characters outside ASCII lowercase
/// to ASCII letters (KELVIN SIGN to `k`, LATIN CAPITAL LETTER I WITH DOT ABOVE to `i` and a
/// combining dot); every other one lowercases to one character outside ASCII, which equals no
/// character of a member name either way, so it is kept as it is (a test checks every `char`).
fn ascii_fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\u{212A}' => out.push('k'),
            '\u{130}' => out.push_str("i\u{307}"),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// Whether `a` (characters, lowercased by [`ascii_fold`]) and the ASCII member name `member`
/// (compared lowercased) are equal or one insertion, deletion or substitution apart, by
/// character. The member's name is read in place: this runs for every member of a message,
/// whose names are almost all more than one character longer or shorter than `a`.
fn within_one_edit(a: &[char], member: &str) -> bool {
    let b = member.as_bytes();
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let same = |x: char, y: u8| x == char::from(y.to_ascii_lowercase());
    let prefix = a.iter().zip(b).take_while(|(x, y)| same(**x, **y)).count();
    let rest = |a: &[char], b: &[u8]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(*x, *y));
    match a.len().cmp(&b.len()) {
        // Equal, or one substitution: what follows the first difference is equal.
        std::cmp::Ordering::Equal => prefix == a.len() || rest(&a[prefix + 1..], &b[prefix + 1..]),
        // One character of `b` inserted at the first difference.
        std::cmp::Ordering::Less => rest(&a[prefix..], &b[prefix + 1..]),
        // One character of `a` inserted at the first difference.
        std::cmp::Ordering::Greater => rest(&a[prefix + 1..], &b[prefix..]),
    }
}

/// The sentence of each member of `unsigned` one edit away from a defined member:
/// `/documentationURL is not a member A2A v1.0 defines; did you mean "documentationUrl"?`.
///
/// ```
/// let notes = a2a_card::signature::near::notes(&["/capabilites".into(), "/security".into()]);
/// assert_eq!(notes, [r#"/capabilites is not a member A2A v1.0 defines; did you mean "capabilities"?"#]);
/// ```
pub fn notes(unsigned: &[String]) -> Vec<String> {
    suggestions(unsigned)
        .map(|(p, name)| {
            format!(
                "{} is not a member A2A v1.0 defines; did you mean {}?",
                crate::signature::printable(p),
                crate::signature::quoted(name)
            )
        })
        .collect()
}

/// Each pointer of `unsigned` with the defined member it is one edit away from, in order.
pub(crate) fn suggestions(unsigned: &[String]) -> impl Iterator<Item = (&str, &'static str)> {
    unsigned
        .iter()
        .filter_map(|p| did_you_mean(p).map(|name| (p.as_str(), name)))
}

/// The JSON form of [`suggestions`]: `[{"pointer": ..., "member": ...}]`.
pub(crate) fn to_json(unsigned: &[String]) -> serde_json::Value {
    suggestions(unsigned)
        .map(|(pointer, member)| serde_json::json!({ "pointer": pointer, "member": member }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_fold_compares_as_to_lowercase() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let full: Vec<char> = c.to_lowercase().collect();
            let ours: Vec<char> = ascii_fold(c.encode_utf8(&mut [0; 4])).chars().collect();
            if c.is_ascii() || full.iter().any(char::is_ascii) {
                assert_eq!(ours, full, "{c:?}");
            } else {
                assert_eq!(full.len(), 1, "{c:?}");
                assert_eq!(ours, [c], "{c:?}");
            }
        }
        // Final sigma: still one character outside ASCII.
        assert_eq!(ascii_fold("ABΣ"), "abΣ");
        assert_eq!(near_member(&AGENT_CARD, "\u{212A}\u{130}"), None);
    }

    #[test]
    fn one_edit_and_case() {
        for (a, b, near) in [
            ("documentationurl", "documentationurl", true),
            ("capabilites", "capabilities", true),
            ("capabilitiess", "capabilities", true),
            ("capabilitoes", "capabilities", true),
            ("capabilites", "capabilitiesx", false),
            ("capabilties", "capabilities", true),
            ("cpabilites", "capabilities", false),
            ("", "a", true),
            ("ab", "ba", false),
        ] {
            let chars = |s: &str| s.chars().collect::<Vec<char>>();
            assert_eq!(within_one_edit(&chars(a), b), near, "{a} {b}");
            assert_eq!(within_one_edit(&chars(b), a), near, "{b} {a}");
        }
        // The member's name is compared lowercased; the other side comes folded already.
        assert!(within_one_edit(&['u', 'r', 'l'], "URL"));
        assert!(within_one_edit(&['u', 'r'], "URL"));
        assert!(!within_one_edit(&['U', 'R', 'L'], "url"));
    }

    /// The comparison as it was written first (both sides lowercased and collected): a
    /// reference for the one that reads the member's name in place.
    fn naive(a: &str, b: &str) -> bool {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.to_ascii_lowercase().chars().collect());
        let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
        if long.len() - short.len() > 1 {
            return false;
        }
        let prefix = short.iter().zip(long.iter()).take_while(|(x, y)| x == y).count();
        if short.len() == long.len() {
            prefix == short.len() || short[prefix + 1..] == long[prefix + 1..]
        } else {
            short[prefix..] == long[prefix + 1..]
        }
    }

    /// Every member name of every message, deleted, substituted, inserted into and recased at
    /// every place, against every member of that message: the same answers as [`naive`].
    #[test]
    fn in_place_comparison_agrees_with_the_naive_one() {
        let mut compared = 0;
        for desc in crate::canonical::table::ALL_MESSAGES {
            for f in desc.fields {
                let name: Vec<char> = f.json.chars().collect();
                let mut variants = vec![
                    f.json.to_string(),
                    f.json.to_uppercase(),
                    format!("{}\u{212A}", f.json),
                ];
                for i in 0..=name.len() {
                    let (head, tail) = name.split_at(i);
                    let at = |mid: &str, skip: usize| {
                        head.iter().collect::<String>() + mid + &tail.iter().skip(skip).collect::<String>()
                    };
                    variants.extend([
                        at("x", 0),
                        at("\u{e9}", 0),
                        at("", 1),
                        at("x", 1),
                        at("\u{e9}", 1),
                    ]);
                }
                for v in &variants {
                    let folded = ascii_fold(v);
                    let chars: Vec<char> = folded.chars().collect();
                    for g in desc.fields {
                        assert_eq!(
                            within_one_edit(&chars, g.json),
                            naive(&folded, g.json),
                            "{v:?} {}",
                            g.json
                        );
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn pointers_are_followed_through_lists_and_maps() {
        assert_eq!(did_you_mean("/supportedInterfaces/1/URL"), Some("url"));
        assert_eq!(
            did_you_mean("/securitySchemes/google/openIdConnectSecurityScheme/openIdConnectURL"),
            Some("openIdConnectUrl")
        );
        assert_eq!(
            did_you_mean("/capabilities/extensions/0/params/nam"),
            None,
            "a Struct's members are free"
        );
        assert_eq!(did_you_mean("/Name"), Some("name"));
        assert_eq!(did_you_mean("/nosuch/name"), None);
        assert_eq!(did_you_mean(""), None);
        assert_eq!(did_you_mean("/a~1b"), None);
    }
}
