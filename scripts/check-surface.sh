#!/usr/bin/env bash
# The generated typings against the target surfaces in ../shared/spec, where
# that folder exists: every type must be identical (strict), not merely
# mutually assignable.
set -euo pipefail
cd "$(dirname "$0")/.."
checker=../shared/spec/check-surface.sh
if [ ! -f "$checker" ]; then
  echo "check-surface: $checker not found; skipped"
  exit 0
fi
status=0
for surface in "$@"; do
  out=$(bash "$checker" "$surface") || status=1
  echo "$out"
  line=$(printf '%s\n' "$out" | grep "^surface $surface:") || { status=1; continue; }
  read -r mutual total strict <<<"$(printf '%s' "$line" | sed -E 's#.*: ([0-9]+)/([0-9]+) mutual, ([0-9]+)/[0-9]+ strict#\1 \2 \3#')"
  if [ "$mutual" != "$total" ] || [ "$strict" != "$total" ]; then
    echo "check-surface: $surface is not identical to its target ($mutual/$total mutual, $strict/$total strict)"
    status=1
  fi
done
exit $status
