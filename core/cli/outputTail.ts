/**
 * The last `limit` bytes of a command's output, in arrival order. Chunks are kept as they come and
 * dropped from the front once the rest already fills the limit, so a job printing gigabytes holds
 * at most about `limit` plus one chunk in memory.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.byteLength ?? 0) >= this.limit) {
      this.size -= this.chunks.shift()?.byteLength ?? 0;
    }
  }

  /**
   * The tail as bytes, at most `limit` (less `reserve`) of them: what is sent, so the body never
   * outgrows the server's limit however the output decodes (binary output decoded as UTF-8 turns
   * each stray byte into a 3-byte replacement character). A cut inside a multi-byte character
   * would leave a stray continuation byte at the start, so the cut moves forward past it.
   */
  bytes(reserve = 0): Buffer {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.byteLength - Math.max(0, this.limit - reserve));
    while (start < all.byteLength && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    return all.subarray(start);
  }

  /** The same tail decoded (for reading it, never for sending it). */
  text(): string {
    return this.bytes().toString('utf8');
  }
}
