// Where each member of a JSON text is: for the playground's card view, which highlights the
// members a JSON Pointer names (unsigned members, lint findings). This decides nothing about the
// card: the library reads it and says what is wrong; this only finds places in the text, and
// gives up (an empty map) on text it cannot follow.

/** RFC 6901 escaping of one reference token. */
export function pointerToken(name) {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The places of `text`'s values by JSON Pointer: `Map<pointer, { start, end }>`, offsets in
 * UTF-16 units, a member's place running from its name to the end of its value (an array
 * element's, its value). The root is `""`. A repeated member name keeps its first place.
 */
export function locate(text) {
  const places = new Map();
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = () => {
    throw new SyntaxError(`cannot follow the JSON text at offset ${i}`);
  };
  const string = () => {
    if (text[i] !== '"') fail();
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = (pointer, start) => {
    ws();
    const from = start ?? i;
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") i++;
      else {
        for (;;) {
          ws();
          const nameAt = i;
          const name = string();
          ws();
          if (text[i++] !== ":") fail();
          value(`${pointer}/${pointerToken(name)}`, nameAt);
          ws();
          if (text[i] === ",") i++;
          else if (text[i] === "}") {
            i++;
            break;
          } else fail();
        }
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") i++;
      else {
        for (let n = 0; ; n++) {
          value(`${pointer}/${n}`);
          ws();
          if (text[i] === ",") i++;
          else if (text[i] === "]") {
            i++;
            break;
          } else fail();
        }
      }
    } else if (c === '"') string();
    else {
      const m = /^(?:-?\d[\d.eE+-]*|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) fail();
      i += m[0].length;
    }
    if (!places.has(pointer)) places.set(pointer, { start: from, end: i });
  };
  try {
    value("");
  } catch {
    return new Map();
  }
  return places;
}

/** The place of `pointer`, or of its nearest ancestor that is in the text (a missing member). */
export function placeOf(places, pointer) {
  let p = pointer;
  for (;;) {
    const at = places.get(p);
    if (at) return { ...at, exact: p === pointer, pointer: p };
    if (p === "") return null;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}
