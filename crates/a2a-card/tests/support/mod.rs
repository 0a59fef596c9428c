//! What the core's integration tests share that needs the library's own types (the testkit,
//! which every test crate uses, does not depend on the library).

#![allow(dead_code)] // each test file uses its part

pub mod x5c;

use a2a_card::SignOptions;

/// Signing options for cards that carry unknown members on purpose: they are left unsigned
/// (signing refuses that unless asked).
pub fn lenient() -> SignOptions {
    SignOptions {
        allow_unsigned: true,
        ..SignOptions::default()
    }
}
