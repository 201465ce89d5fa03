#!/usr/bin/env python3
"""Writes the seed corpora of proof_decode, g1_g2_decode, size_parse and address_parse.

Points come from the ZCash test vectors (../shared/testdata/bls12_381: i*G for i = 0..999, 0 is
infinity); a few of each plus malformed variants keep the corpora small. Run from anywhere:
  tests/fuzz/make_seed_corpora.py [TESTDATA_DIR]
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
testdata = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../../shared/testdata")
vec = os.path.join(testdata, "bls12_381")


def points(name, size, picks=(0, 1, 2, 7, 500, 999)):
    data = open(os.path.join(vec, name), "rb").read()
    return [data[i * size:(i + 1) * size] for i in picks]


def write(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def flip(b, i, mask):
    b = bytearray(b)
    b[i] ^= mask
    return bytes(b)


g1c = points("g1_compressed_valid.dat", 48)
g1u = points("g1_uncompressed_valid.dat", 96)
g2c = points("g2_compressed_valid.dat", 96)
g2u = points("g2_uncompressed_valid.dat", 192)

# g1_g2_decode: first byte = decoder (low 2 bits) and check level (mode >> 2) % 3.
for mode, pts, tag in ((0, g1c, "g1c"), (1, g1u, "g1u"), (2, g2c, "g2c"), (3, g2u, "g2u")):
    for i, p in enumerate(pts):
        write("g1_g2_decode", f"{tag}_{i}", bytes([mode]) + p)
    p = pts[1]
    write("g1_g2_decode", f"{tag}_oncurve", bytes([mode | 4]) + p)
    write("g1_g2_decode", f"{tag}_nocheck", bytes([mode | 8]) + p)
    write("g1_g2_decode", f"{tag}_bad_sign", bytes([mode]) + flip(p, 0, 0x20))
    write("g1_g2_decode", f"{tag}_bad_flag", bytes([mode]) + flip(p, 0, 0x80))
    write("g1_g2_decode", f"{tag}_bad_x", bytes([mode]) + flip(p, len(p) - 1, 0x01))
    write("g1_g2_decode", f"{tag}_short", bytes([mode]) + p[:-1])
    write("g1_g2_decode", f"{tag}_inf_dirty", bytes([mode]) + flip(pts[0], 5, 0x10))

# proof_decode: A (G1) || B (G2) || C (G1), compressed; two-partition concatenations too.
proofs = [g1c[1] + g2c[1] + g1c[2], g1c[3] + g2c[4] + g1c[5], g1c[0] + g2c[0] + g1c[0]]
repo_proof = os.path.join(here, "../../proof.bin")
for i, p in enumerate(proofs):
    write("proof_decode", f"proof_{i}", p)
write("proof_decode", "two_partitions", proofs[0] + proofs[1])
write("proof_decode", "bad_a", flip(proofs[0], 47, 1))
write("proof_decode", "bad_b", flip(proofs[0], 100, 1))
write("proof_decode", "bad_c_flag", flip(proofs[0], 144, 0x80))
write("proof_decode", "short", proofs[0][:191])
write("proof_decode", "long", proofs[0] + b"\0")
write("proof_decode", "empty", b"")

sizes = ["0", "1", "4096", "1073741824", "512MiB", "4 GiB", "1.5G", "8GB", "64KiB", "2TB", " 3 M ", "1k",
         "9223372036854775807", "9223372036854775808", "8388608T", "8388607.99TiB", "1.5", ".5G", "1..5G",
         "12XB", "G", "", "1e3", "-1", "18446744073709551616", "0.001KiB", "1.999999999999GiB"]
for i, s in enumerate(sizes):
    write("size_parse", f"size_{i}", s)

addresses = ["unix:/run/cuzk/cuzk.sock", "unix:///run/cuzk/cuzk.sock", "unix:////tmp//a//b.sock",
             "unix:relative/path.sock", "localhost:9820", "127.0.0.1:9820", "[::1]:9820", "[fe80::1%eth0]:1",
             "host:0", "host:65536", "host:", ":80", "unix:", "unix:/tmp/dir/", "unix:/tmp/a%20b", "unix:/tmp/a?b",
             "unix:/tmp/a\0b", "unix:/" + "x" * 120, "[::1]", "::1:80", "tcp:host:1", "unix:~/s.sock"]
for i, a in enumerate(addresses):
    write("address_parse", f"address_{i}", a)

# snarkjs_files: first byte = the reader (0 .r1cs, 1 .wtns, 2 .zkey, 3 proof.json, 4 public.json,
# 5 verification_key.json); the fixtures snarkjs made (tests/data/snarkjs), and broken copies.
snarkjs = os.path.join(here, "../data/snarkjs")
for sel, name in enumerate(["chain.r1cs", "chain.wtns", "chain.zkey", "proof.json", "public.json",
                            "verification_key.json"]):
    data = open(os.path.join(snarkjs, name), "rb").read()
    write("snarkjs_files", name, bytes([sel]) + data)
    write("snarkjs_files", name + "_truncated", bytes([sel]) + data[:len(data) // 2])
    write("snarkjs_files", name + "_flipped", bytes([sel]) + flip(data, len(data) * 3 // 4, 0x04))
