#!/usr/bin/env bash
# Builds the UI into dist/ when its inputs changed since the last build, and only then.
#
# Rebuilding dist/ changes its files' times, which makes cargo re-embed them and relink the app,
# so run.sh, test.sh and e2e.sh all come through here rather than calling `npm run build`.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

ui_inputs_hash() {
  find -L ui vite.config.ts tsconfig.json package.json package-lock.json -type f -print0 2>/dev/null \
    | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
stamp=node_modules/.smart-ui-hash
want=$(ui_inputs_hash)
if [ -f dist/index.html ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  printf '\033[1mui:\033[0m dist/ is up to date\n' >&2
else
  printf '\033[1mui:\033[0m npm run build\n' >&2
  npm run build --silent
  echo "$want" > "$stamp"
fi
