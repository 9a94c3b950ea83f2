# Sourced by the device scripts: step NAME LIMIT CMD... runs CMD under `timeout LIMIT`, appends its
# output to $log, and prints "== NAME (time): CMD" before and "-- NAME: rc=N" after (into $log too).
step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name ($(date -u +%T)): $*" | tee -a "$log"
  timeout "$limit" "$@" >> "$log" 2>&1
  local rc=$?
  echo "-- $name: rc=$rc" | tee -a "$log"
}
