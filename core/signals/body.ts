import { HttpError } from '../http/httpError.js';
import { PING_PAYLOAD_MAX_BYTES } from './limits.js';

const tooLarge = () => new HttpError('PAYLOAD_TOO_LARGE', `Ping payload exceeds ${PING_PAYLOAD_MAX_BYTES} bytes`);

/**
 * The ping body as text, refused with 413 past the limit. A declared length over the limit is
 * refused before reading; the bytes are counted as they arrive too, since a declared length can be
 * absent (chunked) or wrong, and reading stops at the limit.
 */
export async function readPingBody(request: Request, maxBytes = PING_PAYLOAD_MAX_BYTES): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
