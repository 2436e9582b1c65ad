/**
 * Vigil's architecture rules (STYLE.md "Layout shows the architecture"), checked by `npm test`
 * (`npm run lint:layers`; test/layers.test.ts shows that a forbidden import is reported).
 * Every import points down these layers:
 *
 *   top        functions/, core/adapters/, core/workers/, core/runtime.ts, core/localServer.ts,
 *              core/cli/ (vigil-run, the cron wrapper users run: a client of the API),
 *              core/streams/ (the WebSocket connect handlers of both runtimes; the AWS one reads
 *              the connection registry adapter)
 *   surfaces   core/app.ts, core/appShell.ts, core/signalApp.ts, core/dashboard/ (the dashboard
 *              routes and reads that join areas), core/v1/ (what every /v1 router shares),
 *              core/mcp/
 *   domain     core/<area>/: a graph of areas, not one order. AREAS below names, for each area,
 *              the areas it builds on; an area may import those and, in turn, what they build on.
 *              A node may also be one module of an area (`escalation/policyTargets`): a rule
 *              that lower areas consult without depending on the rest of its area. The graph
 *              must stay acyclic (checked when this file loads); a folder in no layer fails the
 *              run. Routers (`routes.ts`, `*Routes.ts`, nested ones too) belong to their area and
 *              follow its edges; no non-router module imports a router.
 *   platform   core/config.ts (its zod-free names and bounds: core/configValues.ts), core/deps.ts,
 *              core/context.ts, core/instant.ts, core/http/
 *   store      core/store/ (entities, service, table, conditional writes, locks, counters); the
 *              values an entity stores (roles, plans, latency bins) are defined with the entity
 *   floor      core/clock.ts, core/ids.ts (ULIDs), core/retry.ts (the one bounded retry loop), core/lanes.ts
 *              (ordered lanes run at once), core/ports/,
 *              core/outbound/ (the guarded HTTP client: imports nothing from core)
 *
 * The edges are the ones today's imports draw: the outbox (messages a write owes, and their
 * relay) sits under every area that writes; status pages show checks and are told of status
 * changes, reports and maintenance by the areas above (one hook call each); signals ingest
 * check status; probes fold into check status; incidents react to checks and read the
 * dependency registry (which lives in checks: checks link to dependencies); the dependencies
 * resource resolves incidents when one is deleted; alerting reads incidents; escalation pages
 * channels and whoever is on call; deployments pause checks and write signals; the sweep drives
 * checks, deployments, maintenance and escalation; metrics count what the areas hold and time
 * the sweep. Areas with no edge between them (on-call and checks, windows and auth) know
 * nothing of each other.
 * `stacks/` may import only the names it shares with core (table, ports, AWS env, and the
 * dashboard's security headers, which the CloudFront policy and the local server both send).
 * Test code (`*.test.ts`, `test/`) is never imported by production code.
 */
'use strict';

/** Each node of the domain graph and the nodes it builds on (an edge added here is a decision). */
const AREAS = {
  outbox: [],
  auth: [],
  windows: [],
  identity: ['auth', 'escalation/policyTargets'],
  checks: ['auth', 'identity', 'outbox'],
  statuspages: ['auth', 'checks', 'identity', 'outbox'],
  signals: ['auth', 'checks', 'identity', 'outbox'],
  probes: ['auth', 'checks', 'outbox', 'windows'],
  incidents: ['auth', 'checks', 'identity', 'outbox', 'signals', 'statuspages', 'windows'],
  dependencies: ['auth', 'checks', 'identity', 'incidents'],
  oncall: ['auth', 'identity', 'escalation/policyTargets'],
  alerting: ['auth', 'checks', 'identity', 'incidents', 'statuspages', 'windows', 'escalation/policyTargets'],
  integrations: ['auth', 'identity', 'incidents', 'outbox', 'windows'],
  escalation: ['alerting', 'auth', 'identity', 'incidents', 'oncall', 'outbox', 'statuspages', 'windows'],
  deployments: ['auth', 'checks', 'identity', 'signals', 'windows'],
  maintenance: ['auth', 'identity', 'statuspages', 'windows'],
  sweep: ['checks', 'deployments', 'escalation', 'maintenance', 'outbox', 'signals', 'statuspages', 'windows'],
  metrics: ['auth', 'checks', 'identity', 'probes', 'sweep'],
  // Importers (Healthchecks, Uptime Kuma, Grafana OnCall) create through the areas they fill.
  imports: ['auth', 'checks', 'escalation', 'identity', 'maintenance', 'oncall', 'statuspages'],
  // Deleting a member, schedule, team or channel a policy pages is refused: the areas below
  // escalation ask this one rule, which reads only the store.
  'escalation/policyTargets': [],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isModule = (node) => node.includes('/');
const areaOf = (node) => node.split('/')[0];
const FOLDERS = Object.keys(AREAS).filter((node) => !isModule(node));
/** The module nodes inside an area's folder, which the area's own pattern leaves out. */
const modulesIn = (area) => Object.keys(AREAS).filter((node) => isModule(node) && areaOf(node) === area);
const nodePath = (node) => {
  if (isModule(node)) return `^core/${escape(node)}\\.ts$`;
  const inner = modulesIn(node).map((m) => `${escape(m.slice(node.length + 1))}\\.ts$`);
  return `^core/${node}/${inner.length ? `(?!${inner.join('|')})` : ''}`;
};

/** The nodes `node` builds on directly: those it names, and an area its own module nodes. */
const edgesOf = (node) => [...AREAS[node], ...(isModule(node) ? [] : modulesIn(node))];

for (const node of Object.keys(AREAS)) {
  for (const next of edgesOf(node)) {
    if (!(next in AREAS)) throw new Error(`.dependency-cruiser.cjs: ${node} builds on ${next}, which is not in AREAS`);
  }
}

/** Throws on a cycle: an area that builds, however indirectly, on itself. */
(function assertAcyclic() {
  const state = new Map(); // node -> 'open' while on the path, 'done' after
  const visit = (node, path) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') throw new Error(`.dependency-cruiser.cjs: the area graph has a cycle: ${[...path, node].join(' -> ')}`);
    state.set(node, 'open');
    for (const next of edgesOf(node)) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of Object.keys(AREAS)) visit(node, []);
})();

/** What `node` may import: the nodes it builds on and, in turn, what they build on. */
function reachable(node) {
  const seen = new Set();
  const walk = (from) => {
    for (const next of edgesOf(from)) {
      if (!seen.has(next)) {
        seen.add(next);
        walk(next);
      }
    }
  };
  walk(node);
  return seen;
}

const TEST = '(^test/|\\.test\\.ts$)';
const FLOOR = '^core/(clock\\.ts$|ids\\.ts$|retry\\.ts$|lanes\\.ts$|ports/|outbound/)';
const STORE = '^core/store/';
const PLATFORM = '^core/(config|configValues|deps|context|instant)\\.ts$|^core/http/';
const DOMAIN = `^core/(${FOLDERS.join('|')})/`;
const ROUTER = '^core/.*(Routes|/routes)\\.ts$';
const SURFACES = '^core/(app|appShell|signalApp)\\.ts$|^core/(v1|dashboard|mcp)/';
const TOP = '^functions/|^core/(adapters|workers|cli|streams)/|^core/(runtime|localServer)\\.ts$';

/**
 * Temporary, narrowly scoped exceptions, each for one import that another change in flight
 * removes: `{ rule, from, to, why }` with `from` and `to` as path patterns. Delete the entry
 * with the import.
 */
const EXCEPTIONS = [
  {
    rule: 'store-is-the-floor',
    from: '^core/store/page\\.ts$',
    to: '^core/http/pagination\\.ts$',
    why: 'Landed with on-call (09:25): a store paging helper built on http/pagination; the page math moves below the store.',
  },
  {
    rule: 'domain-below-surfaces',
    from: '^core/metrics/install\\.ts$',
    to: '^core/adapters/local/queue\\.ts$',
    why:
      "Install metrics read the embedded queue's lanes (instanceof LocalQueue, deadLetterLane). " +
      'It goes when the Queue port can report its own depth (a stats method both adapters implement).',
  },
];

/** `from` may not import `to`, apart from the exceptions listed for `name`. */
function forbid(name, comment, from, to) {
  const exceptions = EXCEPTIONS.filter((e) => e.rule === name);
  const sources = [...new Set(exceptions.map((e) => e.from))];
  const rule = (extra) => ({ name, comment, severity: 'error', ...extra });
  return [
    rule({ from: sources.length ? { ...from, pathNot: [...(from.pathNot ?? []), ...sources] } : from, to }),
    ...sources.map((source) =>
      rule({
        from: { ...from, path: source },
        to: { ...to, pathNot: [...(to.pathNot ?? []), ...exceptions.filter((e) => e.from === source).map((e) => e.to)] },
      }),
    ),
  ];
}

/** Each node may import only what it reaches in AREAS (and the layers below the domain). */
const areaGraph = Object.keys(AREAS).flatMap((node) => {
  const allowed = reachable(node);
  const others = Object.keys(AREAS).filter((other) => other !== node && !allowed.has(other));
  if (others.length === 0) return [];
  return forbid(
    `area-graph-${node}`,
    `core/${node}${isModule(node) ? '.ts' : '/'} builds on ${[...allowed].join(', ') || 'no other area'}: it may not import ${others.join(', ')}`,
    { path: nodePath(node), pathNot: [TEST] },
    { path: others.map(nodePath).join('|') },
  );
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules import in one direction only',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every relative import names a module that exists',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^\\.' },
    },
    forbid(
      'every-module-has-a-layer',
      'A module of core/ outside every layer is unchecked: give its folder a place above',
      { path: '^core/', pathNot: [TEST, FLOOR, STORE, PLATFORM, DOMAIN, SURFACES, TOP] },
      {},
    ),
    forbid(
      'every-module-has-a-layer',
      'A module of core/ outside every layer is unchecked: give its folder a place above',
      {},
      { path: '^core/', pathNot: [TEST, FLOOR, STORE, PLATFORM, DOMAIN, SURFACES, TOP] },
    ),
    forbid('test-code-stays-in-tests', 'Production code never imports test code or test support', { pathNot: [TEST] }, { path: TEST }),
    forbid('floor-imports-nothing-above', 'clock, ids, retry, lanes, ports and outbound are the floor', { path: FLOOR, pathNot: [TEST] }, { path: '^core/', pathNot: [FLOOR] }),
    forbid('store-is-the-floor', 'The store imports only the floor below it', { path: STORE, pathNot: [TEST] }, { path: '^core/', pathNot: [FLOOR, STORE] }),
    forbid(
      'platform-below-domain',
      'config, deps, context, instant and http sit below every domain area',
      { path: PLATFORM, pathNot: [TEST] },
      { path: '^core/', pathNot: [FLOOR, STORE, PLATFORM] },
    ),
    forbid('domain-below-surfaces', 'Domain areas never import the surfaces or what runs them', { path: DOMAIN, pathNot: [TEST] }, { path: `${SURFACES}|${TOP}` }),
    forbid('only-routers-import-routers', 'Verbs, rules and schemas never import a router', { path: DOMAIN, pathNot: [TEST, ROUTER] }, { path: ROUTER }),
    ...areaGraph,
    forbid('surfaces-below-runtimes', 'The Hono apps never import adapters, workers or entry points', { path: SURFACES, pathNot: [TEST] }, { path: TOP }),
    forbid('core-never-imports-functions', 'Entry points sit on top: nothing in core imports them', { path: '^core/', pathNot: [TEST] }, { path: '^functions/' }),
    forbid('core-never-imports-stacks', 'Infrastructure and benchmarks stay outside', { path: '^(core|functions)/' }, { path: '^(stacks|bench)/' }),
    forbid(
      'stacks-import-only-shared-names',
      'Stacks share only the table definition, the port names, the AWS variable names and the dashboard headers with core',
      { path: '^stacks/', pathNot: [TEST] },
      { path: '^(core|functions)/', pathNot: ['^core/store/table\\.ts$', '^core/ports/index\\.ts$', '^core/adapters/aws/env\\.ts$', '^core/dashboard/siteHeaders\\.ts$'] },
    ),
  ].flat(),
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.sst|cdk\\.out|\\.data)/' },
    // TypeScript 7 has no JS API for dependency-cruiser; Babel reads the sources instead.
    babelConfig: { fileName: '.dependency-cruiser-babel.cjs' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
    },
  },
};
