#!/usr/bin/env bash
# Fidelity pass (docs/testing.md): the store-layer tests again, on AWS's DynamoDB Local (in memory)
# instead of dynalite. Needs a Java runtime; without one it says so and succeeds.
# Usage: test/fidelity.sh [vitest paths...]   (default: core/store core/auth core/adapters/aws core/signals/ping.test.ts core/sweep/sweep.test.ts)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v java >/dev/null 2>&1 || ! java -version >/dev/null 2>&1; then
  echo "fidelity: no Java runtime found; skipping the DynamoDB Local pass"
  exit 0
fi
exec node_modules/.bin/tsx test/fidelity.ts "$@"
