/**
 * A card: JSON text, its exact UTF-8 bytes (Uint8Array or ArrayBuffer), or a parsed value
 * (serialized with JSON.stringify first; a JavaScript object cannot hold a duplicate member
 * name, so pass text or bytes when the exact input matters).
 */
export type Card = string | Uint8Array | ArrayBuffer | object;

/** Which rules turn a card into the bytes a signature covers. */
export type Profile = "spec" | "prune-empty" | "served-as-is";

/** What to do with members the A2A v1.0 schema does not define. */
export type UnknownMembers = "exclude" | "retain" | "reject";

/**
 * JWS algorithm names. ES512, ES256K and Ed448 keys exist in the native library only; the
 * wasm build refuses them (see `algorithms()`).
 */
export type Algorithm =
  | "EdDSA" | "ES256" | "ES384" | "ES512" | "ES256K"
  | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512";

/** The pass rule of `verify`. */
export type Mode = "require" | "all" | "if-present";

/** A key: a JWK object, or text (PEM, or JWK JSON). */
export type Key = string | Record<string, unknown>;

/**
 * Reader limits (defaults: 8 MiB, 128 levels). A card longer than `maxInputBytes` is refused
 * (input-too-large) before it is copied into the module.
 */
export interface ReadOptions {
  /** 1 to 1073741824 (1 GiB); default 8 MiB. */
  maxInputBytes?: number;
  /** 1 to 512; default 128. */
  maxDepth?: number;
}

// BEGIN CanonicalizeOptions: written from a2a_card::request::CANONICALIZE by crates/a2a-card/tests/front_stubs.rs
/** The options of `canonicalize`, `canonicalizeWithReport` and `inspect`. */
export interface CanonicalizeOptions extends ReadOptions {
  /** Which rules produce the bytes: the A2A v1.0 text, the Python and JS SDKs', the Go SDK's, or the a2a-sdk 0.3 signer's (0.3.24 to 0.3.26; a2a-sdk-0.3.21 for 0.3.21 to 0.3.23). Default "spec". */
  profile?: "spec" | "prune-empty" | "served-as-is" | "a2a-sdk-0.3" | "a2a-sdk-0.3.21";
  /** Members the schema does not define: exclude (not covered, reported as unsigned), retain (covered) or reject (the card refused). Default "exclude". */
  unknown?: "exclude" | "retain" | "reject";
  /** Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608. */
  maxInputBytes?: number;
  /** Refuse cards nested deeper than this. 1 to 512, default 128. */
  maxDepth?: number;
}
// END CanonicalizeOptions

/** The canonical form with what it leaves out (the CLI's `canonicalize --report`). */
export interface CanonicalReport {
  /** The canonical bytes, as text. */
  canonical: string;
  profile: Profile;
  /** JSON Pointers of members present in the card but not covered. */
  unsigned: string[];
  /** SHA-256 of the canonical bytes, lower-case hex. */
  sha256: string;
  /** Length of the canonical bytes in UTF-8. */
  bytes: number;
}

// BEGIN SignOptions: written from a2a_card::request::SIGN by crates/a2a-card/tests/front_stubs.rs
/** The options of `sign`. */
export interface SignOptions extends ReadOptions {
  /** Which rules produce the bytes: the A2A v1.0 text, the Python and JS SDKs', the Go SDK's, or the a2a-sdk 0.3 signer's (0.3.24 to 0.3.26; a2a-sdk-0.3.21 for 0.3.21 to 0.3.23). Default "spec". */
  profile?: "spec" | "prune-empty" | "served-as-is" | "a2a-sdk-0.3" | "a2a-sdk-0.3.21";
  /** Members the schema does not define: left unsigned, covered, or the card refused; not given, a card with such members is refused (unsigned-members). */
  unknown?: "exclude" | "retain" | "reject";
  /** Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608. */
  maxInputBytes?: number;
  /** Refuse cards nested deeper than this. 1 to 512, default 128. */
  maxDepth?: number;
  /** The algorithm (it must fit the key); by default the key's own. */
  alg?: Algorithm;
  /** The kid in the protected header; by default the key's (its JWK kid, else its RFC 7638 thumbprint). */
  kid?: string;
  /** A jku to name in the protected header (information for verifiers, never a trust root). */
  jku?: string;
  /** Unprotected header parameters, for the entry's header member. */
  header?: Record<string, unknown>;
  /** Further protected header parameters (not alg, kid, typ, jku, crit, b64 or x5c). */
  protectedHeader?: Record<string, unknown>;
  /** A certificate chain (PEM, the leaf first, then intermediates) for the protected header's x5c; the leaf's key must be the signing key's. */
  x5c?: string | string[];
  /** The most certificates an x5c chain may hold. 1 to 8, default 4. */
  maxChain?: number;
  /** Replace the signatures whose kid is the new one's; without replace or append, a card already signed under the kid is refused (kid-already-signed). Default false. */
  replace?: boolean;
  /** Keep the signatures whose kid is the new one's and add the new one beside them (not with replace). Default false. */
  append?: boolean;
  /** One more signature, same key and header but for the profile it declares, over each of these profiles' bytes: a transition aid, so that SDK verifiers of today and spec-exact verifiers both find one they check. */
  alsoProfiles?: Profile[];
  /** Declare in the protected header (urn:a2a-card:canonical) of each signature over other bytes than the specification's (another profile, or unknown members retained) the profile and unknown-member choice of those bytes, so verifiers check it over them only; a signature over the specification's bytes never carries it. Off, no header carries it: each is what other signers write, byte for byte as theirs. Default true. */
  declare?: boolean;
}
// END SignOptions

// BEGIN VerifyOptions: written from a2a_card::request::VERIFY by crates/a2a-card/tests/front_stubs.rs
/** The options of `verify`, `verifyAsync` and `Verifier`. */
export interface VerifyOptions extends ReadOptions {
  /** Trusted public keys (PEM or JWK; a private key yields its public half). */
  keys?: Key | Key[];
  /** Trusted JWK Sets; entries with "use":"enc" are skipped. */
  jwks?: string | object;
  /** Trust stores: keys with policy (algorithms, origins, validity window, revoked). */
  trust?: string | object;
  /** CA certificates (PEM) trusted as roots for x5c chains. */
  trustAnchors?: string | string[];
  /** A URI SAN (spiffe://TRUST-DOMAIN/PATH) or DNS name the x5c leaf must name (any one given); by default a fetched card's leaf must name its origin's host. */
  identity?: string | string[];
  /** A URI SAN prefix ending with / (spiffe://TRUST-DOMAIN/) the x5c leaf's must start with. */
  identityPrefix?: string | string[];
  /** An extended key usage every x5c leaf must list: codeSigning, serverAuth, clientAuth or a dotted OID. */
  requireEku?: string;
  /** The most certificates an x5c chain may hold. 1 to 8, default 4. */
  maxChain?: number;
  /** The algorithms accepted (none of them HMAC); by default every asymmetric one. */
  algorithms?: Algorithm[];
  /** The pass rule: require (one valid signature from a trusted key), all (every signature valid) or if-present (an unsigned card passes, a bad signature fails). Default "require". */
  mode?: "require" | "all" | "if-present";
  /** The profile accepted (auto: every profile). Default "spec". */
  profile?: "spec" | "prune-empty" | "served-as-is" | "a2a-sdk-0.3" | "a2a-sdk-0.3.21" | "auto";
  /** The profiles accepted, tried in order. */
  profiles?: (Profile | "auto")[];
  /** Members the schema does not define: exclude (not covered, reported as unsigned), retain (covered) or reject (the card refused). Default "exclude". */
  unknown?: "exclude" | "retain" | "reject";
  /** The time for validity windows, in seconds since the Unix epoch; by default the clock. */
  now?: number;
  /** The https origin (https://host[:port]) the card was fetched from, for trust entries bound to origins; without it they never match (a fetched card's origin is its URL's). */
  origin?: string;
  /** Refuse cards with more signatures than this. 1 to 256, default 16. */
  maxSignatures?: number;
  /** Refuse a signature whose kid selects more trusted keys than this, trying none. 1 to 256, default 4. */
  maxKeysPerKid?: number;
  /** The most signature checks (one key over one profile's bytes) for the card; the signatures left when they are spent are refused unchecked. 1 to 4096, default 64. */
  maxSignatureChecks?: number;
  /** The largest JWS header of a signature, in bytes (raise it for long x5c chains). 1 to 1048576, default 4096. */
  maxHeaderBytes?: number;
  /** Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608. */
  maxInputBytes?: number;
  /** Refuse cards nested deeper than this. 1 to 512, default 128. */
  maxDepth?: number;
  /** Check signatures with the host's own crypto where it has it (its native crypto, else WebCrypto for a call that returns a promise); every other check is the library's either way. Default true. */
  hostCrypto?: boolean;
}
// END VerifyOptions

export interface ChainCert {
  subject: string;
  /** Hex. */
  serial: string;
}

/** How trust was reached through an x5c chain. */
export interface CertificateUsed {
  /** The path's certificates, leaf first. */
  chain: ChainCert[];
  /** The trust anchor's subject. */
  anchor: string;
  anchor_source: string;
  /** The identity rule the leaf met. */
  identity: string;
}

export interface Verdict {
  /** "valid", or the stable error code of the first reason the signature failed. */
  code: string;
  message: string;
  /** The JSON Pointer of the member at fault (e.g. "/signatures/0/protected"), when there is one. */
  pointer?: string;
}

export interface KeyUsed {
  kid: string;
  thumbprint: string;
  source: string;
}

export interface SignatureReport {
  index: number;
  kid: string | null;
  alg: string | null;
  jku: string | null;
  key: KeyUsed | null;
  /** For a signature whose x5c chain built to an anchor: the chain, anchor and identity. */
  certificate?: CertificateUsed;
  profile: Profile | null;
  verdict: Verdict;
}

/** The Rust library's verification report, plus the canonical bytes as `canonical`. */
export interface Report {
  ok: boolean;
  mode: Mode;
  reason: string;
  profile: Profile;
  canonical_sha256: string;
  /** The canonical bytes the verdict is about: act on these, not on the served card. */
  canonical: string;
  unsigned: string[];
  /** Only when some unsigned member is one edit away from a member A2A v1.0 defines. */
  did_you_mean?: NearMember[];
  signatures: SignatureReport[];
}

/** An unsigned member one edit away from a defined one (`/documentationURL`, `documentationUrl`). */
export interface NearMember {
  /** The JSON Pointer of the member in the card. */
  pointer: string;
  /** The member A2A v1.0 defines there that it is one edit away from. */
  member: string;
}

export interface EntryInfo {
  index: number;
  /** The decoded protected header, as JSON text (null when it cannot be decoded). */
  protected: string | null;
  /** The entry's unprotected `header` member, as JSON text (null when there is none). */
  header: string | null;
  alg: string | null;
  kid: string | null;
  typ: string | null;
  jku: string | null;
  signature_bytes: number | null;
  problem: string | null;
}

export interface Inspection {
  profile: Profile;
  canonical_sha256: string;
  canonical_bytes: number;
  unsigned: string[];
  signatures: EntryInfo[];
}

/** One lint finding. */
export interface Finding {
  /** A stable kebab-case rule code: "required-missing", "legacy-member", ... */
  rule: string;
  severity: "error" | "warning" | "info";
  /** The JSON Pointer of the member at fault ("" is the whole card); for a missing member, where it should be. */
  pointer: string;
  message: string;
}

/** What `lint` found, in document order (the CLI's `lint --format json`). */
export interface LintReport {
  findings: Finding[];
}

// BEGIN LintOptions: written from a2a_card::request::LINT by crates/a2a-card/tests/front_stubs.rs
/** The options of `lint`. */
export interface LintOptions extends ReadOptions {
  /** Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608. */
  maxInputBytes?: number;
  /** Refuse cards nested deeper than this. 1 to 512, default 128. */
  maxDepth?: number;
}
// END LintOptions

// BEGIN MigrateOptions: written from a2a_card::request::MIGRATE by crates/a2a-card/tests/front_stubs.rs
/** The options of `migrate`. */
export interface MigrateOptions extends ReadOptions {
  /** The protocolVersion of every interface; by default the 0.3 card's own, as Major.Minor. */
  protocolVersion?: string;
  /** Refuse cards larger than this many bytes. 1 to 1073741824, default 8388608. */
  maxInputBytes?: number;
  /** Refuse cards nested deeper than this. 1 to 512, default 128. */
  maxDepth?: number;
}
// END MigrateOptions

/** What happened to one member of the 0.3 card. */
export interface MigrationNote {
  /** The JSON Pointer of the member in the input card ("" for the whole card). */
  pointer: string;
  kind: "moved" | "rewritten" | "defaulted" | "dropped" | "missing" | "unchanged";
  /** Its JSON Pointer in the 1.0 card, where it has one. */
  target?: string;
  message: string;
}

/** The result of `migrate` (the CLI's `migrate --format json`, with the card as text). */
export interface Migration {
  /** The A2A 1.0 card as the CLI writes it: pretty JSON, two-space indent, trailing newline. */
  card: string;
  notes: MigrationNote[];
  /** The input was already a 1.0 card, returned unchanged. */
  alreadyV1: boolean;
  /** Some note says information was dropped or a needed member is missing. */
  lost: boolean;
}

/** A key pair made by `generateKey`. The private parts never leave the caller's process. */
export interface GeneratedKey {
  alg: Algorithm;
  /** The kid: the option given, else the RFC 7638 thumbprint of the public key. */
  kid: string;
  /** The private key as a JWK (with kid and alg): keep it secret. */
  privateJwk: Record<string, unknown>;
  /** The public key as a JWK (with kid and alg). */
  publicJwk: Record<string, unknown>;
  /** {"keys": [publicJwk]}, to publish or to pass as `jwks`. */
  jwks: { keys: Record<string, unknown>[] };
  /** The private key as PKCS#8 PEM text: keep it secret. */
  pem: string;
}

/** Every error thrown by this package is an Error with these properties. */
export interface A2ACardError extends Error {
  name: "A2ACardError";
  /** A stable kebab-case code: "duplicate-member", "invalid-key", "usage", ... */
  code: string;
  /** The JSON Pointer of the offending member ("" is the whole document), when there is one. */
  pointer: string | null;
  /** The byte offset in the input, when known. */
  offset: number | null;
  /** The option the error is about, as this package spells it ("maxChain"), else null. */
  option: string | null;
}

/** The canonical bytes of a card (A2A v1.0 section 8.4.1), as text. */
export function canonicalize(card: Card, options?: CanonicalizeOptions): string;

/** The canonical bytes with the profile, the unsigned members, SHA-256 and length. */
export function canonicalizeWithReport(card: Card, options?: CanonicalizeOptions): CanonicalReport;

/** Signs a card and returns it as JSON text, every byte but the new signature as it was. */
export function sign(card: Card, key: Key, options?: SignOptions): string;

/** Verifies a card against the keys the caller trusts (at least one of jwks, keys, trust). */
export function verify(card: Card, options: VerifyOptions): Report;

/**
 * `verify`, with the signature checks made by WebCrypto (`crypto.subtle.verify`) where it
 * exists, and by the module's own code where it does not (or for what it refuses): a promise
 * of the same report `verify` gives. Where `verify` uses the host's native crypto (node:crypto,
 * Node.js >= 20.16), so does this, instead of WebCrypto. Every error rejects the promise.
 */
export function verifyAsync(card: Card, options: VerifyOptions): Promise<Report>;

/** Decoded signature headers, canonical SHA-256 and unsigned members; trusts and verifies nothing. */
export function inspect(card: Card, options?: CanonicalizeOptions): Inspection;

/** The algorithms this build signs and verifies with. */
export function algorithms(): Algorithm[];

/**
 * True when this host offers native signature verification synchronously (Node.js >= 20.16),
 * which `verify` and `Verifier` then use unless `hostCrypto: false` is given.
 */
export function hostCryptoAvailable(): boolean;

/** True where WebCrypto (`crypto.subtle.verify`) exists, which `verifyAsync` then uses. */
export function webCryptoAvailable(): boolean;

/** Lints a card against A2A v1.0: every finding with its rule, severity and JSON Pointer. */
export function lint(card: Card, options?: LintOptions): LintReport;

/** Rewrites an A2A 0.3 card as an A2A 1.0 card, with a note for everything that changed. */
export function migrate(card: Card, options?: MigrateOptions): Migration;

/** The JSON Schema of an A2A v1.0 Agent Card (default draft 2020-12). */
export function schema(options?: { draft?: "2020-12" | "07" }): Record<string, unknown>;

/** A fresh key pair (EdDSA, ES256 or ES384 in the wasm build), made inside the module. */
export function generateKey(alg: Algorithm, options?: { kid?: string }): GeneratedKey;

/** A verifier whose trust roots and policy are read once, for verifying many cards. */
export class Verifier {
  constructor(options: VerifyOptions);
  /** Verifies a card; `now` and `origin` override the constructor's for this call. */
  verify(card: Card, options?: { now?: number; origin?: string }): Report;
  /** `verify` with the signature checks made by WebCrypto (node:crypto where `verify` uses it): a promise of the same report. */
  verifyAsync(card: Card, options?: { now?: number; origin?: string }): Promise<Report>;
  /** True when `verify` checks signatures with the host's native crypto (see `hostCrypto`). */
  readonly hostCrypto: boolean;
  /** True when `verifyAsync` checks signatures with WebCrypto (see `hostCrypto`): false where it uses node:crypto as `verify` does. */
  readonly webCrypto: boolean;
  /** Releases the wasm memory now instead of when the object is garbage-collected. */
  free(): void;
}
