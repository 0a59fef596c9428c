//! Members that A2A v1.0 does not define but that are one edit away from one it does
//! (`documentationURL`, `capabilites`): the "did you mean" of the lint, sign and verify reports.
//! The names are the presence table's (`canonical/table.rs`), per message: a member is compared
//! with the members of the object it is in only. Close means equal ignoring case, or one
//! insertion, deletion or substitution apart ignoring case. An A2A 0.3 member the table lists as
//! legacy gets no suggestion (lint says what replaces it).

use crate::canonical::table::{Kind, MessageDesc, AGENT_CARD, LEGACY};

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
    let tokens: Vec<String> = pointer.strip_prefix('/')?.split('/').map(unescape).collect();
    let (last, path) = tokens.split_last()?;
    let mut desc: &'static MessageDesc = &AGENT_CARD;
    let mut i = 0;
    while i < path.len() {
        let (field, _) = desc.field(&path[i])?;
        match field.kind {
            Kind::Message(inner) => {
                desc = inner;
                i += 1;
            }
            // The next token is the element's index or the entry's key; the member follows it.
            Kind::RepeatedMessage(inner) | Kind::MapMessage(inner) if i + 1 < path.len() => {
                desc = inner;
                i += 2;
            }
            _ => return None,
        }
    }
    near_member(desc, last)
}

/// The member of `desc` that `name` is one edit away from, if `name` is not itself one of its
/// members (by JSON or proto name) nor a legacy member.
pub(crate) fn near_member(desc: &MessageDesc, name: &str) -> Option<&'static str> {
    if desc.field(name).is_some() || LEGACY.iter().any(|(m, n, _)| *m == desc.name && *n == name) {
        return None;
    }
    let lower = ascii_fold(name);
    desc.fields
        .iter()
        .find(|f| within_one_edit(&lower, &f.json.to_ascii_lowercase()))
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

/// Whether `a` and `b` are equal or one insertion, deletion or substitution apart (by character).
fn within_one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short.iter().zip(long.iter()).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        // Equal, or one substitution: what follows the first difference is equal.
        prefix == short.len() || short[prefix + 1..] == long[prefix + 1..]
    } else {
        // One insertion into `short`: skip one character of `long` at the first difference.
        short[prefix..] == long[prefix + 1..]
    }
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
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
            assert_eq!(within_one_edit(a, b), near, "{a} {b}");
            assert_eq!(within_one_edit(b, a), near, "{b} {a}");
        }
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
