import { readFile, writeFile } from 'node:fs/promises';
import { vigil } from './vigil.js';

/** `vigil` on the real process. */
process.exitCode = await vigil(process.argv.slice(2), {
  env: process.env,
  fetch,
  readFile,
  writeFile: (path, text) => writeFile(path, text, 'utf8'),
  stdout: process.stdout,
  stderr: process.stderr,
});
