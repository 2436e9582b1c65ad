#!/usr/bin/env node
await (await import('tsx/esm/api')).tsImport('../core/cli/vigilMain.ts', import.meta.url);
