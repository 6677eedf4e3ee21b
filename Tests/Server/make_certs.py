#!/usr/bin/env python3
"""Generate a throw-away PKI for the HTTPTransport test server.

Usage: python3 Tests/Server/make_certs.py DIR

Writes (PEM unless noted) into DIR:
  ca.pem, ca.key                       private test CA
  leaf.pem, leaf-chain.pem, leaf.key   localhost / 127.0.0.1 leaf signed by the CA
  expired.pem, expired.key             same names, validity ended yesterday
  otherhost.pem, otherhost.key         leaf for "other.example" only
  selfsigned.pem, selfsigned.key       self-signed localhost / 127.0.0.1 cert
  client.pem, client.key               client cert (CA-signed) + unencrypted key
  client-encrypted.key                 PKCS#8 key encrypted with password "secret"
  client.p12                           PKCS#12 (client cert + key + CA), password "secret"
  fingerprints.json                    SHA-1 / SHA-256 / SPKI pins of the server certs

Only depends on the `cryptography` package. EC P-256 keys keep it fast.
"""

import base64
import datetime
import hashlib
import ipaddress
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PASSWORD = b"secret"


def _key():
    return ec.generate_private_key(ec.SECP256R1())


def _name(cn, org="HTTPTransport Tests"):
    return x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, org),
        x509.NameAttribute(NameOID.COMMON_NAME, cn),
    ])


def _san(dns=(), ips=()):
    entries = [x509.DNSName(d) for d in dns]
    entries += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    return x509.SubjectAlternativeName(entries)


def _ski(key):
    return x509.SubjectKeyIdentifier.from_public_key(key.public_key())


def make_ca(now):
    key = _key()
    name = _name("HTTPTransport Test CA")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=3))
        .not_valid_after(now + datetime.timedelta(days=5))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False,
                key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(_ski(key), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def make_leaf(cn, issuer_cert, issuer_key, not_before, not_after,
              dns=(), ips=(), client=False, self_signed=False):
    key = _key()
    subject = _name(cn)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False,
                key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=False, crl_sign=False,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.CLIENT_AUTH] if client
                else [ExtendedKeyUsageOID.SERVER_AUTH]
            ),
            critical=False,
        )
        .add_extension(_ski(key), critical=False)
    )
    if dns or ips:
        builder = builder.add_extension(_san(dns, ips), critical=False)
    if self_signed:
        builder = builder.issuer_name(subject)
        cert = builder.sign(key, hashes.SHA256())
    else:
        builder = builder.issuer_name(issuer_cert.subject).add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
            critical=False,
        )
        cert = builder.sign(issuer_key, hashes.SHA256())
    return cert, key


def cert_pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def key_pem(key, password=None):
    enc = (serialization.BestAvailableEncryption(password) if password
           else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8, enc)


def fingerprints(cert):
    der = cert.public_bytes(serialization.Encoding.DER)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER,
        serialization.PublicFormat.SubjectPublicKeyInfo,
    )
    spki_digest = hashlib.sha256(spki).digest()
    return {
        "sha1": hashlib.sha1(der).hexdigest().upper(),
        "sha256": hashlib.sha256(der).hexdigest().upper(),
        "spki_sha256_hex": spki_digest.hex(),
        "spki_sha256_base64": base64.b64encode(spki_digest).decode("ascii"),
    }


def write(directory, name, data, private=False):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(data)
    if private:
        try:
            os.chmod(path, 0o600)
        except OSError:
            pass


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_certs.py DIR\n")
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    day = datetime.timedelta(days=1)
    local_dns = ("localhost",)
    local_ips = ("127.0.0.1",)

    ca, ca_key = make_ca(now)
    leaf, leaf_key = make_leaf("localhost", ca, ca_key, now - 2 * day, now + 3 * day,
                               dns=local_dns, ips=local_ips)
    expired, expired_key = make_leaf("localhost", ca, ca_key, now - 3 * day, now - day,
                                     dns=local_dns, ips=local_ips)
    other, other_key = make_leaf("other.example", ca, ca_key, now - 2 * day, now + 3 * day,
                                 dns=("other.example",))
    selfsigned, selfsigned_key = make_leaf("localhost", None, None, now - 2 * day,
                                           now + 3 * day, dns=local_dns, ips=local_ips,
                                           self_signed=True)
    client, client_key = make_leaf("HTTPTransport Test Client", ca, ca_key,
                                   now - 2 * day, now + 3 * day, client=True)

    write(out, "ca.pem", cert_pem(ca))
    write(out, "ca.key", key_pem(ca_key), private=True)
    write(out, "leaf.pem", cert_pem(leaf))
    write(out, "leaf-chain.pem", cert_pem(leaf) + cert_pem(ca))
    write(out, "leaf.key", key_pem(leaf_key), private=True)
    write(out, "expired.pem", cert_pem(expired))
    write(out, "expired.key", key_pem(expired_key), private=True)
    write(out, "otherhost.pem", cert_pem(other))
    write(out, "otherhost.key", key_pem(other_key), private=True)
    write(out, "selfsigned.pem", cert_pem(selfsigned))
    write(out, "selfsigned.key", key_pem(selfsigned_key), private=True)
    write(out, "client.pem", cert_pem(client))
    write(out, "client.key", key_pem(client_key), private=True)
    write(out, "client-encrypted.key", key_pem(client_key, PASSWORD), private=True)
    p12 = pkcs12.serialize_key_and_certificates(
        b"client", client_key, client, [ca],
        serialization.BestAvailableEncryption(PASSWORD),
    )
    write(out, "client.p12", p12, private=True)

    fps = {
        "leaf": fingerprints(leaf),
        "expired": fingerprints(expired),
        "otherhost": fingerprints(other),
        "selfsigned": fingerprints(selfsigned),
    }
    write(out, "fingerprints.json", (json.dumps(fps, indent=2, sort_keys=True) + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
