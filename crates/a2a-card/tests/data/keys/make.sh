#!/bin/sh
# Regenerates the test keys in this folder with the OpenSSL command line tool.
# These keys are public test data: never use them for anything else.
set -eu
cd "$(dirname "$0")"
PASS=pass:a2a-card-test

# Ed25519 and Ed448: PKCS#8 v1 (OpenSSL's form) and SubjectPublicKeyInfo.
for alg in ed25519 ed448; do
  openssl genpkey -algorithm "$alg" -out "$alg.pem"
  openssl pkey -in "$alg.pem" -pubout -out "$alg.pub.pem"
done

# EC keys: PKCS#8, SEC1 ("EC PRIVATE KEY", -traditional) and SubjectPublicKeyInfo.
for curve in P-256 P-384 P-521 secp256k1; do
  name=$(echo "$curve" | tr -d '-' | tr 'A-Z' 'a-z')
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:"$curve" -pkeyopt ec_param_enc:named_curve -out "$name.pem"
  openssl pkey -in "$name.pem" -traditional -out "$name.sec1.pem"
  openssl pkey -in "$name.pem" -pubout -out "$name.pub.pem"
done

# RSA keys: PKCS#8, PKCS#1 private ("RSA PRIVATE KEY"), SPKI and PKCS#1 public ("RSA PUBLIC KEY").
for bits in 2048 3072 4096; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:"$bits" -out "rsa$bits.pem"
  openssl pkey -in "rsa$bits.pem" -traditional -out "rsa$bits.pkcs1.pem"
  openssl pkey -in "rsa$bits.pem" -pubout -out "rsa$bits.pub.pem"
  openssl rsa -in "rsa$bits.pem" -RSAPublicKey_out -out "rsa$bits.pkcs1.pub.pem"
done

# A 1024-bit RSA key, which must be refused (weak-key), private and public.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out rsa1024.pem
openssl pkey -in rsa1024.pem -pubout -out rsa1024.pub.pem

# Encrypted keys, which must be refused (encrypted-key): PKCS#8 "ENCRYPTED PRIVATE KEY" and a
# legacy PEM with "Proc-Type: 4,ENCRYPTED".
openssl pkcs8 -topk8 -in p256.pem -v2 aes-256-cbc -passout "$PASS" -out p256.encrypted.pem
openssl rsa -in rsa2048.pem -traditional -aes256 -passout "$PASS" -out rsa2048.encrypted-legacy.pem
