#!/usr/bin/env bash
# Configures and builds cuzk into build/ (Release). The CUDA backend is built when nvcc
# is found (also in /usr/local/cuda/bin); pass -DCUZK_CUDA=OFF to skip it.
# Extra arguments go to the CMake configure step.
# A unity build (each target's sources compiled a few at a time, CMake's UNITY_BUILD): a third
# less compile time for a build from scratch, as CI's are (docs/ARCHITECTURE.md, "CI budget");
# -DCMAKE_UNITY_BUILD=OFF for one object per file while editing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON "$@"
cmake --build build --parallel "$(nproc)"
