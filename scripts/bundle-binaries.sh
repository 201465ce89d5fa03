#!/usr/bin/env bash
# Copies built binaries and the shared libraries they need (except the C runtime and the CUDA
# driver, which the target machine has) into one folder, so they run on a machine that has a GPU
# driver but none of the build's Debian packages. Usage: bundle-binaries.sh OUT_DIR BINARY...
# On the target: LD_LIBRARY_PATH=OUT_DIR/lib OUT_DIR/<binary>.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR BINARY..." >&2; exit 2; }
out=$1
shift
mkdir -p "$out/lib"
for bin in "$@"; do
  cp -f "$bin" "$out/"
  ldd "$bin" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | ld-linux* | libpthread.so* | libdl.so* | librt.so* | libcuda.so* | libgcc_s.so* | libstdc++.so*) ;;
      *) cp -fL "$lib" "$out/lib/" ;;
    esac
  done
done
du -sh "$out"
