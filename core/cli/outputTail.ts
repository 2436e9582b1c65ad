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
   * The tail as text. A cut inside a multi-byte character would leave a stray continuation byte
   * (a replacement character at the start of the body), so the cut moves forward past it.
   */
  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.byteLength - this.limit);
    while (start < all.byteLength && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    return all.subarray(start).toString('utf8');
  }
}
