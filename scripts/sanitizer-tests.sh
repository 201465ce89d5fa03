#!/usr/bin/env bash
# The engine and daemon unit tests under ThreadSanitizer, then under AddressSanitizer with
# UndefinedBehaviorSanitizer, each in a second, small CPU-only build (build-tsan/, build-asan/:
# only the libraries and test programs below, -O1 with line tables, no benchmarks).
# Usage: scripts/sanitizer-tests.sh [thread|address]...   (default: both)
# Extra configure arguments can be given in CUZK_SANITIZER_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
targets=(engine_test server_unit_test settings_test daemon_test kinds_test)
# The fuzz targets' corpus replays (tests/fuzz/): plain CTest tests, registered whether built or
# not, so every one is built here (and its corpus replayed under the sanitizer).
for f in proof_decode g1_g2_decode size_parse address_parse toml_config param_file post_vanilla_bincode \
  snap_vanilla_bincode commit1_json submit_request; do
  targets+=("fuzz_${f}_replay")
done

# Sanitizer reports fail the test that raised them; the daemon that daemon_test starts inherits
# the settings.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$root/tests/sanitizers/tsan.supp"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1 detect_stack_use_after_return=1 strict_init_order=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"

kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
for k in "${kinds[@]}"; do
  case $k in
    thread) dir=build-tsan skip='' ;;
    # ASan keeps freed memory in quarantine: the tests that the process's RSS falls after a free
    # measure its allocator, not ours.
    address) dir=build-asan skip='|^HostMemoryTest\.Free' ;;
    *)
      echo "sanitizer-tests: unknown sanitizer '$k' (thread or address)" >&2
      exit 2
      ;;
  esac
  start=$SECONDS
  # shellcheck disable=SC2086
  cmake -S . -B "$dir" -G Ninja -DCUZK_SANITIZE="$k" -DCUZK_CUDA=OFF -DCUZK_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" ${CUZK_SANITIZER_CMAKE_ARGS:-} >/dev/null
  cmake --build "$dir" --parallel "$(nproc)" --target "${targets[@]}"
  built=$SECONDS
  # The unit tests of the programs built here (install_test needs the full build).
  ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" -L unit -E "^install_test\$$skip"
  echo "sanitizer-tests: $k: build $((built - start)) s, tests $((SECONDS - built)) s"
done
