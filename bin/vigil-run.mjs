#!/usr/bin/env node
await (await import('tsx/esm/api')).tsImport('../core/cli/main.ts', import.meta.url);
