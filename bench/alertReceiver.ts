import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The steady state's webhook receiver, in a process of its own (bench/steady.ts forks it): the
 * alerts Vigil sends land on a user's system, so parsing them is not Vigil's CPU, and the mass
 * outage's figure counts the server's process only. It tells its parent its port once, then on
 * each `count` message how many checks were told their incident opened, told it is at the down
 * severity, and told it resolved.
 */
/**
 * How many checks were told their incident opened, at the down severity, and resolved (each check
 * once). At the down severity: opened at it or raised to it. A job's incident opens at its late
 * severity and is raised when it goes DOWN, but when the incident worker handles its LATE and DOWN
 * in one batch (behind a backlog), it opens at the down severity and is never raised.
 */
export type ReceiverCounts = { opened: number; down: number; resolved: number };

/** The seeded jobs' down severity (bench/seed.ts). */
const DOWN_SEVERITY = 'P1';
const opened = new Set<number>();
const down = new Set<number>();
const resolved = new Set<number>();
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    const parsed = JSON.parse(body) as { type: string; data: { check: { id: number } | null; severity: string } };
    const id = parsed.data.check?.id;
    if (id !== undefined && parsed.type === 'incident.opened') opened.add(id);
    if (id !== undefined && (parsed.type === 'incident.opened' || parsed.type === 'incident.severity_changed') && parsed.data.severity === DOWN_SEVERITY) down.add(id);
    if (id !== undefined && parsed.type === 'incident.resolved') resolved.add(id);
    res.writeHead(200).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (message: { count?: true }) => {
  if (message.count) process.send?.({ opened: opened.size, down: down.size, resolved: resolved.size } satisfies ReceiverCounts);
});
// The parent's end is the receiver's: it closes with the channel.
process.on('disconnect', () => server.close(() => process.exit(0)));
