#!/usr/bin/env bash
# Exports the OpenAPI description the service serves and lints it with Redocly (recommended rules, redocly.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
node --import tsx scripts/export-openapi.ts "$dir/openapi.json"
npx --no-install redocly lint --config redocly.yaml "$dir/openapi.json"
