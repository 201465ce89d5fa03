#!/usr/bin/env python3
"""Writes the seed corpus of journal_entry: spool files as server/journal.cpp encodes them (a
pending job, an ended one with a proof, a failed one), and a torn and a corrupt variant.
Run from anywhere: tests/fuzz/make_journal_corpus.py
"""
import hashlib
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "journal_entry")


def text32(s):
    return struct.pack("<I", len(s)) + s


def bytes64(b):
    return struct.pack("<Q", len(b)) + b


def entry(seq, job_id, request, result=None, from_prove=False):
    p = struct.pack("<qqiB", seq, 1765000000000 + seq, 4000 if from_prove else 0, int(from_prove))
    p = struct.pack("<Q", seq) + p[8:]
    p += hashlib.sha256(request).digest() + text32(job_id) + bytes64(request if result is None else b"")
    if result is None:
        p += b"\x00"
    else:
        state, error, proof = result  # JobState: 2 succeeded, 3 failed, 4 cancelled
        p += b"\x01" + struct.pack("<BqB", state, 1765000100000, int(state == 2))
        p += text32(error) + bytes64(proof) + struct.pack("<7d", 0.1, 0.0, 9.5, 1.4, 0.2, 0.05, 11.3)
    header = b"CUZKJRNL" + struct.pack("<IIQ", 1, 0, len(p)) + hashlib.sha256(p).digest()
    return header + p


def write(name, data):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


pending = entry(7, b"porep-1000-7", b"\x0a\x0cporep-1000-7\x10\x02")
write("pending", pending)
write("succeeded", entry(8, b"wpost-1", b"", (2, b"", bytes(range(192))), from_prove=True))
write("failed", entry(9, b"snap-3.2", b"", (3, b"partition 1: prove_start failed", b"")))
write("torn", pending[: len(pending) - 5])
corrupt = bytearray(pending)
corrupt[-1] ^= 1
write("corrupt_payload", bytes(corrupt))
