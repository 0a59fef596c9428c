//! The SSRF guard: which IP addresses a fetch may connect to.
//!
//! Every address is classified before any connection: literal addresses in URLs, and every
//! address a host name resolves to, on the first request and on every redirect. Only
//! [`AddressClass::Public`] addresses are allowed, plus plain loopback (`127.0.0.0/8`, `::1`)
//! when the caller opts in with `allow_loopback` (for local testing only).
//!
//! IPv6 forms that carry an IPv4 address are judged by that IPv4 address: IPv4-mapped
//! (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`). IPv4-compatible addresses
//! (`::a.b.c.d`, deprecated by RFC 4291) are never allowed. An embedded loopback address is
//! refused even with `allow_loopback`: no legitimate test server needs one.
//!
//! ```
//! use a2a_card_fetch::guard::{check, classify, AddressClass};
//! use std::net::IpAddr;
//! let ip: IpAddr = "::ffff:169.254.169.254".parse().unwrap();
//! assert_eq!(classify(ip).class, AddressClass::LinkLocal);
//! assert!(check(ip, false).is_err());
//! assert!(check("93.184.216.34".parse().unwrap(), false).is_ok());
//! ```

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of address an IP address is, for the guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// Globally routable unicast: allowed.
    Public,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// `0.0.0.0/8` ("this network"), `::`.
    Unspecified,
    /// RFC 1918: `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`.
    Private,
    /// RFC 6598 shared address space (carrier-grade NAT): `100.64.0.0/10`.
    Shared,
    /// `169.254.0.0/16` (cloud metadata lives here), `fe80::/10`.
    LinkLocal,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// Unique local IPv6: `fc00::/7`; and the deprecated site-local `fec0::/10`.
    UniqueLocal,
    /// Documentation and benchmarking ranges: `192.0.2.0/24`, `198.51.100.0/24`,
    /// `203.0.113.0/24`, `198.18.0.0/15`, `2001:db8::/32`, `3fff::/20`.
    Documentation,
    /// Everything else that is not global unicast: `240.0.0.0/4` with `255.255.255.255`,
    /// `192.0.0.0/24`, `192.88.99.0/24`, IPv4-compatible IPv6, `100::/64`, `2001::/23`,
    /// `64:ff9b:1::/48`, and IPv6 outside `2000::/3`.
    Reserved,
}

impl AddressClass {
    /// A short kebab-case name, used in error messages.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Public => "public",
            AddressClass::Loopback => "loopback",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Private => "private",
            AddressClass::Shared => "shared",
            AddressClass::LinkLocal => "link-local",
            AddressClass::Multicast => "multicast",
            AddressClass::UniqueLocal => "unique-local",
            AddressClass::Documentation => "documentation",
            AddressClass::Reserved => "reserved",
        }
    }
}

/// How an IPv6 address carries an IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Embedding {
    /// `::ffff:a.b.c.d`.
    Mapped,
    /// `::a.b.c.d` (deprecated).
    Compatible,
    /// `64:ff9b::a.b.c.d` (RFC 6052 well-known NAT64 prefix).
    Nat64,
    /// `2002:AABB:CCDD::/48` (6to4).
    SixToFour,
}

/// The classification of one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Classification {
    /// The class that decides.
    pub class: AddressClass,
    /// The IPv4 address an IPv6 address carries, and how.
    pub embedded: Option<(Embedding, Ipv4Addr)>,
}

/// Classifies an address (no traffic, no resolution).
pub fn classify(ip: IpAddr) -> Classification {
    match ip {
        IpAddr::V4(v4) => Classification {
            class: classify_v4(v4),
            embedded: None,
        },
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// Why the guard refused an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The address.
    pub ip: IpAddr,
    /// Its classification.
    pub classification: Classification,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is a {} address",
            self.ip,
            self.classification.class.as_str()
        )?;
        if let Some((how, v4)) = self.classification.embedded {
            let how = match how {
                Embedding::Mapped => "IPv4-mapped",
                Embedding::Compatible => "IPv4-compatible",
                Embedding::Nat64 => "NAT64",
                Embedding::SixToFour => "6to4",
            };
            write!(f, " ({how} form of {v4})")?;
        }
        Ok(())
    }
}

/// Allows public addresses, and plain loopback when `allow_loopback` is set; refuses the rest.
pub fn check(ip: IpAddr, allow_loopback: bool) -> Result<(), Refused> {
    let c = classify(ip);
    let ok = match c.class {
        AddressClass::Public => true,
        AddressClass::Loopback => allow_loopback && c.embedded.is_none(),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Refused {
            ip,
            classification: c,
        })
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(net)) & mask)
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    const TABLE: &[([u8; 4], u32, AddressClass)] = &[
        ([0, 0, 0, 0], 8, AddressClass::Unspecified),
        ([10, 0, 0, 0], 8, AddressClass::Private),
        ([100, 64, 0, 0], 10, AddressClass::Shared),
        ([127, 0, 0, 0], 8, AddressClass::Loopback),
        ([169, 254, 0, 0], 16, AddressClass::LinkLocal),
        ([172, 16, 0, 0], 12, AddressClass::Private),
        ([192, 0, 0, 0], 24, AddressClass::Reserved),
        ([192, 0, 2, 0], 24, AddressClass::Documentation),
        ([192, 88, 99, 0], 24, AddressClass::Reserved),
        ([192, 168, 0, 0], 16, AddressClass::Private),
        ([198, 18, 0, 0], 15, AddressClass::Documentation),
        ([198, 51, 100, 0], 24, AddressClass::Documentation),
        ([203, 0, 113, 0], 24, AddressClass::Documentation),
        ([224, 0, 0, 0], 4, AddressClass::Multicast),
        ([240, 0, 0, 0], 4, AddressClass::Reserved),
    ];
    TABLE
        .iter()
        .find(|(net, prefix, _)| in_v4(ip, *net, *prefix))
        .map_or(AddressClass::Public, |(_, _, class)| *class)
}

fn classify_v6(ip: Ipv6Addr) -> Classification {
    let s = ip.segments();
    let bits = u128::from(ip);
    let plain = |class| Classification {
        class,
        embedded: None,
    };
    let low_v4 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    let embedded = |how, v4: Ipv4Addr| {
        let inner = classify_v4(v4);
        Classification {
            class: inner,
            embedded: Some((how, v4)),
        }
    };
    if bits == 0 {
        return plain(AddressClass::Unspecified);
    }
    if bits == 1 {
        return plain(AddressClass::Loopback);
    }
    // ::ffff:0:0/96
    if bits >> 32 == 0xffff {
        return embedded(Embedding::Mapped, low_v4);
    }
    // ::/96 (IPv4-compatible, deprecated): never allowed; a non-public inner address names its class.
    if bits >> 32 == 0 {
        let inner = classify_v4(low_v4);
        let class = if inner == AddressClass::Public {
            AddressClass::Reserved
        } else {
            inner
        };
        return Classification {
            class,
            embedded: Some((Embedding::Compatible, low_v4)),
        };
    }
    // 64:ff9b::/96 (well-known NAT64 prefix): the gateway connects to the embedded address.
    if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 {
        return embedded(Embedding::Nat64, low_v4);
    }
    // 64:ff9b:1::/48 (local-use NAT64): translation to whatever the operator chose.
    if s[0] == 0x0064 && s[1] == 0xff9b && s[2] == 0x0001 {
        return plain(AddressClass::Reserved);
    }
    // 2002::/16 (6to4): the relay forwards to the IPv4 address in bits 16..48.
    if s[0] == 0x2002 {
        let v4 = Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8);
        return embedded(Embedding::SixToFour, v4);
    }
    if s[0] & 0xff00 == 0xff00 {
        return plain(AddressClass::Multicast);
    }
    if s[0] & 0xffc0 == 0xfe80 {
        return plain(AddressClass::LinkLocal);
    }
    if s[0] & 0xfe00 == 0xfc00 || s[0] & 0xffc0 == 0xfec0 {
        return plain(AddressClass::UniqueLocal);
    }
    if (s[0] == 0x2001 && s[1] == 0x0db8) || (s[0] == 0x3fff && s[1] < 0x1000) {
        return plain(AddressClass::Documentation);
    }
    // 2001::/23 IETF protocol assignments (Teredo 2001::/32 included), 100::/64 discard-only.
    if (s[0] == 0x2001 && s[1] < 0x0200) || (s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0) {
        return plain(AddressClass::Reserved);
    }
    // Only 2000::/3 is allocated for global unicast.
    if s[0] & 0xe000 != 0x2000 {
        return plain(AddressClass::Reserved);
    }
    plain(AddressClass::Public)
}
