//! The loopback origins of `scripts/bench-remote-batch.sh`: ORIGINS HTTPS servers on 127.0.0.1
//! (each its own port, HTTP/2 by ALPN with HTTP/1.1 keep-alive as the fallback), each serving
//! the A2A v1.0 section 8.5 sample card, signed once with a fresh ES256 key, at every path.
//! Writes `ca.pem`, `jwks.json` and `urls.txt` (PER_ORIGIN distinct card URLs per origin,
//! the origins interleaved, as a crawl list would be) into DIR, prints `ready`, and serves
//! until its stdin closes.
//!
//! `cargo run --release -p a2a-card-fetch --example bench_origins -- DIR ORIGINS PER_ORIGIN`
#![allow(clippy::unwrap_used, clippy::panic)]

use a2a_card_testkit::https::{Fixture, Protocol, Resp, Server};
use std::io::{Read, Write};

fn main() {
    let usage = "usage: bench_origins DIR ORIGINS PER_ORIGIN";
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect(usage));
    let origins: usize = args.next().expect(usage).parse().expect(usage);
    let per_origin: usize = args.next().expect(usage).parse().expect(usage);
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
    let servers: Vec<Server> = (0..origins)
        .map(|_| {
            let card = card.clone();
            Server::start_with(&fx.leaf, Protocol::Http2, move |_| Resp::json(&card))
        })
        .collect();
    let mut urls = String::new();
    for i in 0..per_origin {
        for s in &servers {
            urls.push_str(&s.url("localhost", &format!("/cards/{i}.json")));
            urls.push('\n');
        }
    }
    std::fs::write(dir.join("urls.txt"), urls).unwrap();
    println!("ready");
    std::io::stdout().flush().unwrap();
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
}
