# Sourced by the test scripts: `step TITLE` prints a heading with the time since the run began.
#
# CI has 90 minutes on a 2-core machine, and a run that goes over says nothing about where its
# minutes went unless its log does: with these times, two headings' difference is one step's
# cost. The first script to source this sets the start; the scripts it runs inherit it.
SMART_RUN_STARTED=${SMART_RUN_STARTED:-$(date +%s)}
export SMART_RUN_STARTED

# The time since the run began, as "12 min 34 s".
run_elapsed() {
  local t=$(($(date +%s) - SMART_RUN_STARTED))
  printf '%d min %02d s' $((t / 60)) $((t % 60))
}

step() { printf '\n\033[1m== %s\033[0m  [%s]\n' "$*" "$(run_elapsed)" >&2; }
