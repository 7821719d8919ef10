# Sourced by scripts/test.sh: named, timed stages.
#   stage NAME COMMAND...   prints "== NAME", runs COMMAND, records its start and duration
#                           (also from a background subshell: records go to a file); COMMAND
#                           is a program, not a shell function (set -e is off inside `||`)
#   stage_table             the stages so far: start (s since the first), seconds, status
stage_log=$(mktemp)
stage_t0=$(date +%s.%N)
stage() {
  local name=$1 start status=0; shift
  start=$(date +%s.%N)
  echo "== $name"
  "$@" || status=$?
  printf '%s\t%s\t%s\t%s\n' "$start" "$(date +%s.%N)" "$status" "$name" >>"$stage_log"
  return "$status"
}
stage_table() {
  sort -n "$stage_log" | awk -F'\t' -v t0="$stage_t0" -v now="$(date +%s.%N)" '
    BEGIN { printf "%-22s %7s %7s  %s\n", "stage", "start s", "took s", "status" }
    { printf "%-22s %7.0f %7.0f  %s\n", $4, $1 - t0, $2 - $1, $3 == 0 ? "ok" : "failed (" $3 ")" }
    END { printf "%-22s %7s %7.0f\n", "total (wall clock)", "", now - t0 }'
}
