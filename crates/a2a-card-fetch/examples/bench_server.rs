//! The loopback HTTPS server of `scripts/bench-fetch.sh`: it signs the A2A v1.0 section 8.5
//! sample card with a fresh ES256 key and serves it at the well-known path with an `ETag`
//! (answering `304` to a request that names it), writes `ca.pem` and `jwks.json` into DIR,
//! prints its port, and serves until its stdin closes.
//!
//! `cargo run --release -p a2a-card-fetch --example bench_server -- DIR [close|http1|http2]`
#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_testkit::https::{Fixture, Protocol, Resp, Server};
use std::io::{Read, Write};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: bench_server DIR [close|http1|http2]"));
    let protocol = args.next().unwrap_or_else(|| "close".into());
    let fx = Fixture::new();
    fx.write_ca(&dir);
    let key = a2a_card::PrivateKey::generate(a2a_card::Algorithm::ES256).unwrap();
    let jwks = serde_json::json!({ "keys": [key.public().to_jwk()] });
    std::fs::write(dir.join("jwks.json"), serde_json::to_vec(&jwks).unwrap()).unwrap();
    let sample =
        std::fs::read(a2a_card_testkit::data::testvectors_dir().join("cards/sample-8.5-unsigned.json"))
            .unwrap();
    // The sample's A2A 0.3 member `security` stays unsigned, as `sign --unknown exclude` leaves it.
    let opts = a2a_card::SignOptions {
        allow_unsigned: true,
        ..a2a_card::SignOptions::default()
    };
    let card = a2a_card::sign_card(&sample, &key, &opts).unwrap().card;
    let handler = move |req: &a2a_card_testkit::https::Req| {
        if req.path != "/.well-known/agent-card.json" {
            return Resp::new(404);
        }
        if req.header("if-none-match") == Some("\"sample\"") {
            return Resp::new(304).header("ETag", "\"sample\"");
        }
        Resp::json(&card).header("ETag", "\"sample\"")
    };
    let server = match protocol.as_str() {
        "close" => Server::start(&fx.leaf, handler),
        "http1" => Server::start_with(&fx.leaf, Protocol::Http1, handler),
        "http2" => Server::start_with(&fx.leaf, Protocol::Http2, handler),
        other => panic!("unknown protocol {other:?}: close, http1 or http2"),
    };
    println!("{}", server.port);
    std::io::stdout().flush().unwrap();
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}
