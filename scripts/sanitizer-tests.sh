#!/usr/bin/env bash
# The engine and daemon unit tests under ThreadSanitizer, then under AddressSanitizer with
# UndefinedBehaviorSanitizer, which also runs the parsers' tests and fuzz corpora (single-threaded:
# nothing for TSan), each in a second, small CPU-only build (build-tsan/, build-asan/: only the
# libraries and test programs below, -O1 with line tables, no benchmarks, a unity build as
# scripts/build.sh's).
# With clang installed, the ASan build is clang's (build-asan-fuzz/, -DCUZK_FUZZ=ON): it also
# makes the libFuzzer binaries of tests/fuzz, and after the tests each target fuzzes for
# CUZK_FUZZ_SECONDS (default 10, a smoke run inside CI's time budget; 0 leaves the fuzzing and clang
# out) through scripts/fuzz.sh; the campaigns are docs/FUZZING.md's.
# Usage: scripts/sanitizer-tests.sh [thread|address]...   (default: both)
# Extra configure arguments can be given in CUZK_SANITIZER_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=scripts/phase-times.sh
. scripts/phase-times.sh  # phase(): wall times into $CUZK_PHASE_LOG when run-tests.sh set it
# The engine's and daemon's tests: their threads are what TSan checks, and ASan their memory.
threaded_targets=(engine_test engine_params_test server_unit_test daemon_test journal_test daemon_journal_test)
# Single-threaded parsers: ASan and UBSan only (TSan has nothing to find there): the settings and
# the kinds' inputs, and the fuzz targets' corpus replays (tests/fuzz/: plain CTest tests,
# registered whether built or not, so every one is built in the ASan build).
parser_targets=(settings_test kinds_test)
fuzz_targets=(proof_decode g1_g2_decode size_parse address_parse toml_config param_file post_vanilla_bincode
  snap_vanilla_bincode commit1_json submit_request snarkjs_files journal_entry commitment_cid)
for f in "${fuzz_targets[@]}"; do
  parser_targets+=("fuzz_${f}_replay")
done
fuzz_seconds=${CUZK_FUZZ_SECONDS:-10}

# Sanitizer reports fail the test that raised them; the daemon that daemon_test starts inherits
# the settings.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$root/tests/sanitizers/tsan.supp"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 detect_stack_use_after_return=1 strict_init_order=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"

kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
for k in "${kinds[@]}"; do
  compiler=() fuzz=0 build_targets=("${threaded_targets[@]}")
  case $k in
    # The parsers' tests are not built here: their registered replays are left out by name.
    thread) dir=build-tsan skip='|^fuzz_.*_replay$|^(SettingsTest|KindsTest)\.' ;;
    # ASan keeps freed memory in quarantine: the tests that the process's RSS falls after a free
    # measure its allocator, not ours.
    address)
      dir=build-asan skip='|^HostMemoryTest\.Free' build_targets+=("${parser_targets[@]}")
      if [ "$fuzz_seconds" != 0 ] && command -v clang++ >/dev/null; then
        dir=build-asan-fuzz fuzz=1
        compiler=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCUZK_FUZZ=ON)
        build_targets+=("${fuzz_targets[@]/#/fuzz_}")
      fi
      ;;
    *)
      echo "sanitizer-tests: unknown sanitizer '$k' (thread or address)" >&2
      exit 2
      ;;
  esac
  start=$SECONDS
  build() {
    # shellcheck disable=SC2086
    cmake -S . -B "$dir" -G Ninja -DCUZK_SANITIZE="$k" -DCUZK_CUDA=OFF -DCUZK_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON "${compiler[@]}" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" ${CUZK_SANITIZER_CMAKE_ARGS:-} >/dev/null
    cmake --build "$dir" --parallel "$(nproc)" --target "${build_targets[@]}"
  }
  phase "$k sanitizer: build" build
  built=$SECONDS
  # The unit tests of the programs built here (install_test needs the full build), without the
  # TEST parameter setups (-FS): under a sanitizer they take many minutes, and the few cases that
  # read those sets skip without them (they run in the main build).
  phase "$k sanitizer: tests" ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -L unit -FS 'params_.*' \
    -E "^install_test\$$skip"
  tested=$SECONDS
  if [ "$fuzz" = 1 ]; then
    phase "$k sanitizer: fuzzing" env FUZZ_BUILD_DIR="$dir" FUZZ_PARALLEL="$(nproc)" scripts/fuzz.sh "$fuzz_seconds" \
      "${fuzz_targets[@]}"
  fi
  echo "sanitizer-tests: $k: build $((built - start)) s, tests $((tested - built)) s, fuzzing $((SECONDS - tested)) s"
done
