#!/usr/bin/env python3
"""Runs tests/ntt_gpu_test against src/ntt/cuda/ntt.cu's kernels emulated on the host (no GPU).

Inlines ntt.cu's kernel headers (src/ntt/cuda/*.cuh), rewrites each kernel launch
`k<<<grid, block, smem, stream>>>(args)` as `emu_launch(k, std::make_tuple(grid, block, smem,
stream), args)` and the dynamic shared array as a host buffer (Fr's operator* is the portable
host product there; the PTX products are checked by simulating their PTX separately), compiles
it and on_host.cpp with cuda_runtime.h from this folder and links them with the test and the CPU
libraries of an existing build.
Usage: scripts/ntt_cuda_emulation/run.py BUILD_DIR [gtest arguments...]
e.g.   scripts/ntt_cuda_emulation/run.py build --gtest_filter=*SmallAndMedium*:*HPoly*
"""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
build = os.path.abspath(sys.argv[1])


def inline_kernels(s):
    """ntt.cu with its own .cuh headers pasted in place (they are parts of its translation unit)."""
    def paste(m):
        with open(os.path.join(root, 'src', m.group(1))) as f:
            return f.read().replace('#pragma once', '')
    return re.sub(r'#include "(ntt/cuda/[a-z_]+\.cuh)"', paste, s)


def transform(s):
    s = inline_kernels(s)
    s = s.replace('extern __shared__ uint4 smem_raw[];', 'uint4* smem_raw = emu_smem.data();')
    out, i = [], 0
    while True:
        j = s.find('<<<', i)
        if j < 0:
            out.append(s[i:])
            break
        k = max(s.rfind(';', 0, j), s.rfind('{', 0, j), s.rfind('}', 0, j)) + 1
        kexpr = s[k:j]
        e = s.find('>>>', j)
        cfg = s[j + 3:e]
        p = e + 3
        assert s[p] == '('
        depth, q = 0, p
        while True:
            depth += {'(': 1, ')': -1}.get(s[q], 0)
            if depth == 0:
                break
            q += 1
        lead = kexpr[:len(kexpr) - len(kexpr.lstrip())]
        out.append(s[i:k] + lead + f'emu_launch({kexpr.strip()}, std::make_tuple({cfg}), {s[p + 1:q]})')
        i = q + 1
    return '#include <algorithm>\n#include <tuple>\n#include "cuda_runtime.h"\n' + ''.join(out)


with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, 'ntt_emu.cpp')
    with open(os.path.join(root, 'src/ntt/cuda/ntt.cu')) as f:
        text = transform(f.read())
    with open(src, 'w') as f:
        f.write(text)
    flags = ['-I' + here, '-I' + os.path.join(root, 'src'), '-I' + os.path.join(root, 'tests'), '-O2',
             '-march=native', '-std=c++20', '-DGTEST_HAS_PTHREAD=1']
    exe = os.path.join(tmp, 'ntt_gpu_test_emulated')
    subprocess.check_call(['g++', *flags, src, os.path.join(root, 'src/ntt/cuda/on_host.cpp'),
                           os.path.join(root, 'tests/arith/ntt_gpu_test.cpp'), '-o', exe,
                           os.path.join(build, 'tests/libcuzk_test_support.a'),
                           os.path.join(build, 'src/libcuzk_ntt.a'), '-lgtest', '-ltbb', '-lpthread'])
    sys.exit(subprocess.call([exe, *sys.argv[2:]]))
