//! The migrated card written for people: two-space indentation, members in their order.

use crate::canonical::value::Value;

/// Writes `v` as JSON indented by two spaces per level, members in their order.
pub(super) fn write_pretty(out: &mut Vec<u8>, v: &Value, depth: usize) {
    let indent = |out: &mut Vec<u8>, d: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', d * 2));
    };
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                indent(out, depth + 1);
                write_pretty(out, item, depth + 1);
            }
            indent(out, depth);
            out.push(b']');
        }
        Value::Object(members) if !members.is_empty() => {
            out.push(b'{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                indent(out, depth + 1);
                crate::canonical::jcs::write_string(out, k);
                out.extend_from_slice(b": ");
                write_pretty(out, item, depth + 1);
            }
            indent(out, depth);
            out.push(b'}');
        }
        other => crate::canonical::jcs::write_compact(out, other),
    }
}
