/**
 * An AWS SDK client that resolves its middleware once per command class, as the SDK's own
 * `cacheMiddleware` does, but forgets what it resolved whenever its middleware stack changes: a
 * middleware added or removed after the first request (the tests' fault injection and crash
 * points, the bench's request meters) takes effect on the next request. Resolving is most of what
 * the SDK does per request that does not depend on the request: it sorts and copies the whole
 * stack, concatenates it with the command's, and calls every middleware's factory.
 *
 * A command's own stack (middleware added to one command instance) is read once per class too,
 * as with the SDK's option; nothing in Vigil adds middleware to a command.
 */

type Handler = (args: object) => Promise<{ output: unknown }>;
type Resolvable = { resolveMiddleware(stack: object, config: object, options: undefined): Handler };
/** How a command of one class is sent: the handler resolved for the class, and what it is called with. */
export type Resolved = { handler: Handler; target: (command: object) => object };

/** The methods that change a stack in place (concat and clone make new stacks). */
const CHANGES = ['add', 'addRelativeTo', 'remove', 'removeByTag', 'use', 'identifyOnResolve'] as const;
type WatchedStack = Partial<Record<(typeof CHANGES)[number], (...args: unknown[]) => unknown>>;
const watchers = new WeakMap<object, (() => void)[]>();

function onChange(stack: object, listener: () => void): void {
  let listeners = watchers.get(stack);
  if (!listeners) {
    const found: (() => void)[] = [];
    listeners = found;
    watchers.set(stack, found);
    const methods = stack as WatchedStack;
    for (const name of CHANGES) {
      const original = methods[name];
      if (typeof original !== 'function') continue;
      methods[name] = (...args: unknown[]) => {
        // identifyOnResolve() without a toggle is a getter, called by every resolution's concat.
        if (name !== 'identifyOnResolve' || typeof args[0] === 'boolean') for (const forget of found) forget();
        return original.apply(stack, args);
      };
    }
  }
  listeners.push(listener);
}

/** How a client resolves a command of a class it has not sent yet. */
export type Resolve = (command: object, stack: object, config: object) => Resolved | undefined;
/** Changes the stack (the client's and the command's together) an operation is resolved with. */
export type Reshape = (stack: object, operation: string, config: object) => void;

/** A low-level command is resolved and called as itself. */
export const resolveCommand: Resolve = (command, stack, config) => {
  if (typeof (command as Partial<Resolvable>).resolveMiddleware !== 'function') return undefined;
  return { handler: (command as Resolvable).resolveMiddleware(stack, config, undefined), target: (sent) => sent };
};

/**
 * Resolves low-level commands with `reshape` applied to the stack the SDK builds for them (the
 * client's concatenated with the command's, in `Command.resolveMiddlewareWithContext`): that
 * stack exists only inside the resolution, so the client's is handed over with its `concat`
 * reshaping what it returns. When the reshaped stack does not resolve (a middleware added
 * relative to one that `reshape` took out), the command is resolved with the stack as it is.
 */
export function reshapedResolve(reshape: Reshape): Resolve {
  return (command, stack, config) => {
    const operation = (command as { schema?: unknown[] }).schema?.[2];
    if (typeof operation !== 'string') return resolveCommand(command, stack, config);
    const concat = (stack as { concat(from: object): object }).concat;
    const reshaping = Object.assign(Object.create(stack) as object, {
      concat: (from: object) => {
        const whole = concat(from);
        reshape(whole, operation, config);
        return whole;
      },
    });
    try {
      return resolveCommand(command, reshaping, config);
    } catch {
      return resolveCommand(command, stack, config);
    }
  };
}

/**
 * Replaces `client.send` with one that reuses the handler resolved for the command's class.
 * Requests with options (an abort signal, a callback) go through the SDK's own send, resolved
 * for that request alone; so does a command `resolve` does not know (it returns undefined).
 */
export function resolveMiddlewareOnce<C extends { send: unknown; middlewareStack: object; config: object }>(client: C, resolve: Resolve = resolveCommand): C {
  const sdkSend = (client.send as (...args: unknown[]) => unknown).bind(client);
  let resolved = new WeakMap<object, Resolved | null>();
  onChange(client.middlewareStack, () => {
    resolved = new WeakMap();
  });
  const send = (command: object, ...rest: unknown[]): unknown => {
    if (rest.length > 0 && !(rest.length === 1 && withoutOptions(rest[0]))) return sdkSend(command, ...rest);
    const cls = command.constructor;
    let entry = resolved.get(cls);
    if (entry === undefined) {
      entry = resolve(command, client.middlewareStack, client.config) ?? null;
      resolved.set(cls, entry);
    }
    if (entry === null) return sdkSend(command);
    return entry.handler(entry.target(command)).then((result) => result.output);
  };
  client.send = send as C['send'];
  return client;
}

/** ElectroDB passes `{ abortSignal: undefined }` with every request: that is no option at all. */
function withoutOptions(options: unknown): boolean {
  if (options === undefined) return true;
  if (options === null || typeof options !== 'object') return false;
  for (const value of Object.values(options)) if (value !== undefined) return false;
  return true;
}
