//! The small grammars lint checks values against: absolute URIs and URLs, protocol versions,
//! RFC 6838 media types.

/// The scheme of an absolute URI (RFC 3986 section 3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" /
/// "." )` then `:`), with something after the colon and no whitespace or control characters.
pub(super) fn absolute_uri_scheme(s: &str) -> Result<&str, String> {
    if let Some(c) = s.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("it contains the character {c:?}"));
    }
    let Some(colon) = s.find(':') else {
        return Err("it has no scheme (such as https:)".into());
    };
    let scheme = &s[..colon];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return Err("it has no scheme (such as https:)".into());
    }
    if s.len() == colon + 1 {
        return Err("nothing follows the scheme".into());
    }
    Ok(scheme)
}

/// The scheme of an absolute URL: an absolute URI, and for http and https an authority with a
/// non-empty host (`scheme://host...`).
pub(super) fn absolute_url_scheme(s: &str) -> Result<&str, String> {
    let scheme = absolute_uri_scheme(s)?;
    if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        let rest = &s[scheme.len() + 1..];
        let Some(auth) = rest.strip_prefix("//") else {
            return Err("an http(s) URL needs \"//\" and a host after the scheme".into());
        };
        let end = auth.find(['/', '?', '#']).unwrap_or(auth.len());
        let authority = &auth[..end];
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = if host_port.starts_with('[') {
            host_port
                .split_once(']')
                .map_or("", |(h, _)| h.trim_start_matches('['))
        } else {
            host_port.split(':').next().unwrap_or("")
        };
        if host.is_empty() {
            return Err("it has no host".into());
        }
    }
    Ok(scheme)
}

/// `MAJOR.MINOR`, each a decimal number without leading zeros.
pub(super) fn check_protocol_version(s: &str) -> Result<(), String> {
    let parts: Vec<&str> = s.split('.').collect();
    let number =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (p == "0" || !p.starts_with('0'));
    match parts.as_slice() {
        [major, minor] if number(major) && number(minor) => Ok(()),
        [major, minor, _] if number(major) && number(minor) => Err(format!(
            "a protocol version is MAJOR.MINOR, without a patch number (use \"{major}.{minor}\")"
        )),
        _ => Err("a protocol version is MAJOR.MINOR in decimal digits, such as \"1.0\"".into()),
    }
}

/// RFC 6838 section 4.2 restricted-name: 1 to 127 characters, the first a letter or digit, the
/// others letters, digits or `! # $ & - ^ _ . +`.
pub(super) fn restricted_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 127
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(c))
}

/// RFC 9110 token (parameter names and unquoted values).
pub(super) fn token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
}

/// Checks a media type: `type "/" subtype *( OWS ";" OWS name "=" value )`, type and subtype
/// restricted names (RFC 6838 section 4.2), parameters as in RFC 9110 section 5.6.6 (value a
/// token or a quoted string). Returns why it is not one.
///
/// ```
/// use a2a_card::lint::check_media_type;
/// assert!(check_media_type("application/vnd.geo+json").is_ok());
/// assert!(check_media_type("text/plain; charset=\"utf-8\"").is_ok());
/// assert!(check_media_type("text").is_err());
/// assert!(check_media_type("image/*").is_err());
/// ```
pub fn check_media_type(s: &str) -> Result<(), String> {
    let (essence, params) = match s.find(';') {
        Some(at) => (&s[..at], Some(&s[at..])),
        None => (s, None),
    };
    let essence = essence.trim_end_matches([' ', '\t']);
    let Some((ty, sub)) = essence.split_once('/') else {
        return Err("a media type is type/subtype, such as \"text/plain\"".into());
    };
    if ty == "*" || sub == "*" {
        return Err("wildcards (*) are media ranges, not media types".into());
    }
    if !restricted_name(ty) {
        return Err(format!("the type {ty:?} is not a valid name"));
    }
    if !restricted_name(sub) {
        return Err(format!("the subtype {sub:?} is not a valid name"));
    }
    let mut rest = params.unwrap_or("");
    while !rest.is_empty() {
        let Some(r) = rest.strip_prefix(';') else {
            return Err("parameters are separated by \";\"".into());
        };
        let r = r.trim_start_matches([' ', '\t']);
        let Some(eq) = r.find('=') else {
            return Err("a parameter is name=value".into());
        };
        let name = &r[..eq];
        if !token(name) {
            return Err(format!("the parameter name {name:?} is not a token"));
        }
        let after = &r[eq + 1..];
        let consumed = if let Some(q) = after.strip_prefix('"') {
            // quoted-string: qdtext or backslash escapes, up to the closing quote.
            let mut end = None;
            let mut escaped = false;
            for (i, c) in q.char_indices() {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    end = Some(i);
                    break;
                } else if c.is_control() && c != '\t' {
                    return Err("a quoted parameter value holds a control character".into());
                }
            }
            match end {
                Some(i) => 1 + i + 1,
                None => return Err("a quoted parameter value is not closed".into()),
            }
        } else {
            let end = after.find([';', ' ', '\t']).unwrap_or(after.len());
            if !token(&after[..end]) {
                return Err(format!(
                    "the value of parameter {name:?} is not a token or quoted string"
                ));
            }
            end
        };
        rest = after[consumed..].trim_start_matches([' ', '\t']);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types() {
        for ok in [
            "text/plain",
            "application/json",
            "application/vnd.geo+json",
            "text/plain; charset=utf-8",
            "text/plain;charset=\"utf-8\"",
            "multipart/form-data; boundary=\"a b\\\"c\"",
            "image/svg+xml",
            "application/x-www-form-urlencoded",
            "a/b;x=1;y=2",
        ] {
            assert_eq!(check_media_type(ok), Ok(()), "{ok}");
        }
        for bad in [
            "text",
            "",
            "/plain",
            "text/",
            "*/*",
            "text/*",
            "text/plain/x",
            "text /plain",
            ".text/plain",
            "text/pl ain",
            "text/plain;",
            "text/plain; charset",
            "text/plain; charset=",
            "text/plain; charset=\"utf-8",
            "text/plain; =x",
            "tëxt/plain",
            "text/plain charset=x",
        ] {
            assert!(check_media_type(bad).is_err(), "{bad:?} accepted");
        }
        let long = format!("a/{}", "b".repeat(127));
        assert_eq!(check_media_type(&long), Ok(()));
        let too_long = format!("a/{}", "b".repeat(128));
        assert!(check_media_type(&too_long).is_err());
    }

    #[test]
    fn urls() {
        assert_eq!(absolute_url_scheme("https://a.example/x"), Ok("https"));
        assert_eq!(absolute_url_scheme("HTTP://[::1]:8080/"), Ok("HTTP"));
        assert_eq!(absolute_url_scheme("https://user@host"), Ok("https"));
        assert_eq!(absolute_url_scheme("urn:example:x"), Ok("urn"));
        for bad in [
            "/a2a",
            "a.example/x",
            "https:/a.example",
            "https://",
            "https:///x",
            "https://:443/",
            "https://a b/",
            "1http://a",
            "https:",
            "",
        ] {
            assert!(absolute_url_scheme(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn protocol_versions() {
        for ok in ["1.0", "0.3", "10.12"] {
            assert_eq!(check_protocol_version(ok), Ok(()));
        }
        for bad in ["1", "1.0.0", "v1.0", "01.0", "1.", ".1", "1.x", "", "1.0-rc1"] {
            assert!(check_protocol_version(bad).is_err(), "{bad:?} accepted");
        }
    }
}
