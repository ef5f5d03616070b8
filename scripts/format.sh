#!/usr/bin/env bash
# `npm run format`: every source file laid out as Biome's formatter does (biome.json), layout only,
# no lint fix; then the recipes of examples/integrations/ written into docs/integrations.md, which
# shows them as the files are. `npm run lint` passes on the result once the lint rules do.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=(src test bench scripts examples tsup.config.ts vitest.config.ts)
# One pass leaves a few member chains (`fc.constantFrom(...).map(...)`) for a second to settle;
# the check after it fails if the layout has still not settled.
npx biome format --write "${dirs[@]}"
npx biome format --write "${dirs[@]}"
npx biome format "${dirs[@]}" > /dev/null
npm run -s docs:integrations
