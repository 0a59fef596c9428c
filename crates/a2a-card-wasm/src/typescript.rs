//! The TypeScript declarations of the package: `js/types.d.ts`, written into the generated
//! `a2a_card.d.ts` of both builds.

use wasm_bindgen::prelude::*;

/// The TypeScript declarations of the package, written by hand because every argument crosses
/// the boundary as a plain JavaScript value (`JsValue`) that this crate checks itself. They are
/// kept in `js/types.d.ts` (type-checked with `tsc --strict` by `test/types.test.mjs`); the
/// leading newline keeps the generated file as it was when they were inline here.
#[wasm_bindgen(typescript_custom_section)]
pub const TYPESCRIPT: &'static str = concat!("\n", include_str!("../js/types.d.ts"));
