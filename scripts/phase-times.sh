# Sourced by run-tests.sh and sanitizer-tests.sh: `phase NAME COMMAND...` runs COMMAND and
# appends its wall time to $CUZK_PHASE_LOG (a tab-separated "name<TAB>seconds<TAB>status" line);
# print_phase_times prints them as a table with their total, and warns when the total passes
# CUZK_TIME_BUDGET_MIN (default 45: CI must stay well inside its 90 minutes).
# shellcheck shell=bash

phase() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  if [ -n "${CUZK_PHASE_LOG:-}" ]; then
    printf '%s\t%d\t%s\n' "$name" $((SECONDS - start)) "$([ $rc = 0 ] && echo ok || echo "failed ($rc)")" >>"$CUZK_PHASE_LOG"
  fi
  return $rc
}

print_phase_times() {
  [ -n "${CUZK_PHASE_LOG:-}" ] && [ -s "$CUZK_PHASE_LOG" ] || return 0
  local budget_min=${CUZK_TIME_BUDGET_MIN:-45} total=0 name secs status
  echo
  echo "== phase times ($(nproc) cores) =="
  while IFS=$'\t' read -r name secs status; do
    printf '  %-34s %6d s  %5.1f min  %s\n' "$name" "$secs" "$(awk "BEGIN {print $secs / 60}")" "$status"
    total=$((total + secs))
  done <"$CUZK_PHASE_LOG"
  printf '  %-34s %6d s  %5.1f min\n' "total" "$total" "$(awk "BEGIN {print $total / 60}")"
  if [ "$total" -gt $((budget_min * 60)) ]; then
    local bar='!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'
    printf '\n%s\n!!! OVER BUDGET: the suite took %d min, over its %d min (CI stops at 90): cut test time\n' \
      "$bar" $((total / 60)) "$budget_min"
    printf '!!! before adding more tests (README, "Tests"; docs/ARCHITECTURE.md, "CI budget").\n%s\n' "$bar"
  fi
}
