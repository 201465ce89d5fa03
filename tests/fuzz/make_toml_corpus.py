#!/usr/bin/env python3
"""Writes the seed corpus of toml_config: Curio's cuzk.toml samples the settings tests read, a
small config of our own tables, and the inputs that reach toml++ 3.3.0's undefined behaviour
(tests/server/settings_test.cpp), which the reader must refuse. Run: tests/fuzz/make_toml_corpus.py"""
import os
import shutil

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "toml_config")
os.makedirs(out, exist_ok=True)
for name in ("cuzk-doc-minimal.toml", "cuzk.example.toml"):
    shutil.copy(os.path.join(here, "../data/curio", name), os.path.join(out, "curio_" + name))

seeds = {
    "ours": '[daemon]\nlisten = "unix:/run/cuzk/cuzk.sock"\n[engine]\nbudget = "4GiB"\ncpu_threads = 2\n'
            '[srs]\nparam_cache = "/var/tmp/filecoin-proof-parameters"\n',
    "budget_int": "[engine]\nbudget = 1073741824\n",
    "budget_too_large": '[engine]\nbudget = "9000000T"\n',
    "listen_tcp": '[daemon]\nlisten = "127.0.0.1:9820"\n',
    "listen_nul": '[daemon]\nlisten = "unix:/tmp/a\\u0000b"\n',
    "unknown_key": "[engine]\nbudgett = 1\n",
    "curio_tables": "[pipeline]\nsynthesis_lookahead = 4\n[logging]\nformat = \"json\"\nlevel = \"debug\"\n",
    "multiline": "[srs]\nparam_cache = '''\n/data/\xc2\xa7'''\n",
    "empty": "",
}
ub = [b"[$", b"[daemon]\n[$]\n", b"[[[1]]]", b"[[=", b"\xc6\xa9 = 1\n", b"[engine]\nbudget\xc6\xa9 = 1\n",
      b's = """\\\n\xc2\xa7"""\n', b'a = "\xc0\xaf"\n', b"# \xf4\x90\x80\x80\n"]
for name, text in seeds.items():
    with open(os.path.join(out, name + ".toml"), "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
for i, b in enumerate(ub):
    with open(os.path.join(out, f"toml3_ub_{i}.toml"), "wb") as f:
        f.write(b)
