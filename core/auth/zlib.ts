import * as nodeZlib from 'node:zlib';

/** `zlib.crc32` exists from Node 20.15 / 22.2; the types of older @types/node may not list it. */
export const zlib = nodeZlib as typeof nodeZlib & { crc32(data: string | Uint8Array, value?: number): number };
