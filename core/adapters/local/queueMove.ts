import { QUEUE_NAMES } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { deadLetterLane } from './queue.js';

/**
 * Moves every queue message, pending, in flight or dead-lettered, from `from` to `to`: a data
 * directory written before the queue lanes had a store of their own still has its messages
 * delivered. Each lane is copied before it is removed, so a crash in between leaves a message
 * in both stores (delivered twice at most, as any at-least-once message), never in neither.
 * Returns how many messages moved; a second run moves none.
 */
export async function moveQueueLanes(from: Store, to: Store): Promise<number> {
  let moved = 0;
  for (const lane of QUEUE_NAMES.flatMap((queue) => [queue, deadLetterLane(queue)])) {
    const { data } = await from.entities.queueMessage.query.byId({ lane }).go({ pages: 'all', consistent: true });
    if (data.length === 0) continue;
    const copied = await to.entities.queueMessage.put(data).go();
    if (copied.unprocessed.length > 0) throw new Error(`moving queue lane ${lane}: the store kept ${data.length - copied.unprocessed.length} of ${data.length} messages`);
    const removed = await from.entities.queueMessage.delete(data.map(({ lane: itemLane, messageId }) => ({ lane: itemLane, messageId }))).go();
    if (removed.unprocessed.length > 0) throw new Error(`moving queue lane ${lane}: ${removed.unprocessed.length} messages left behind`);
    moved += data.length;
  }
  return moved;
}
