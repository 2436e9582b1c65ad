import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CliIo } from './importCommand.js';
import { ApiError, CHECK_BATCH, createChecks, createItem, deleteItem, readWorkspace, updateItem, VigilClient, type Workspace } from './macClient.js';
import { formatFileErrors, parseVigilFile, writeVigilFile } from './macFile.js';
import { redactChannel, redactCheck, redactPage, windowNormalized } from './macMapping.js';
import { policyNormalized, scheduleNormalized } from './macMappingOnCall.js';
import { identityOf, type Item, NOUN, resolveReferences, SECTIONS, type Section, shownIdentity, type VigilFile } from './macModel.js';
import { type Change, formatPlan, hasChanges, type Plan, planChanges } from './macPlan.js';

/** The sections this version reads and writes (the file's schema, core/http/vigil.schema.json, allows exactly these). */
const MANAGED: readonly Section[] = SECTIONS;

export const MAC_USAGE = `usage: vigil export [-o vigil.yaml]
       vigil plan [-f vigil.yaml] [--prune] [--detailed-exitcode]
       vigil apply [-f vigil.yaml] [--prune]
  export   writes the workspace as YAML (secrets as \${ENV_NAME} references, never their values)
  plan     shows what apply would change; --detailed-exitcode exits 2 when there are changes (0 none, 1 error)
  apply    makes the workspace match the file; nothing the file leaves out is deleted without --prune
  VIGIL_API_URL (e.g. https://vigil.example.com/api) and VIGIL_API_KEY (a read_write API key for apply) must be set.`;

type Command = 'export' | 'plan' | 'apply';

const usage = (io: CliIo, command: Command, message: string) => {
  io.stderr.write(`vigil ${command}: ${message}\n${MAC_USAGE}\n`);
  return 2;
};

function parse(command: Command, argv: string[], io: CliIo) {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  if (command === 'export') options.output = { type: 'string', short: 'o' };
  else Object.assign(options, { file: { type: 'string', short: 'f' }, prune: { type: 'boolean' } });
  if (command === 'plan') options['detailed-exitcode'] = { type: 'boolean' };
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as {
      help?: boolean;
      output?: string;
      file?: string;
      prune?: boolean;
      'detailed-exitcode'?: boolean;
    };
  } catch (error) {
    usage(io, command, error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

const byIdentity = (section: Section) => (a: Item, b: Item) => (identityOf(section, a) < identityOf(section, b) ? -1 : 1);

/** The workspace as export writes it: items sorted by identity, secrets replaced by references. */
export function exportedFile(ws: Workspace): VigilFile {
  const out: VigilFile = { version: 1 };
  for (const section of SECTIONS) {
    const items = ws.file[section];
    if (!items) continue;
    const sorted = [...items].sort(byIdentity(section));
    const redact = section === 'checks' ? redactCheck : section === 'alertChannels' ? redactChannel : section === 'statusPages' ? redactPage : undefined;
    out[section] = redact ? sorted.map(redact) : sorted;
  }
  return out;
}

/** The file as the plan compares it: references resolved, instants and project lists in the API's form. */
function desiredOf(file: VigilFile, env: CliIo['env']): { desired: VigilFile; missing: string[] } {
  const { value, missing } = resolveReferences(file, env);
  if (value.maintenanceWindows) value.maintenanceWindows = value.maintenanceWindows.map(windowNormalized);
  if (value.onCallSchedules) value.onCallSchedules = value.onCallSchedules.map(scheduleNormalized);
  if (value.escalationPolicies) value.escalationPolicies = value.escalationPolicies.map(policyNormalized);
  return { desired: value, missing };
}

const isCheckCreate = (change: Change): change is Extract<Change, { action: 'create' }> => change.action === 'create' && change.section === 'checks';

async function carryOut(client: VigilClient, ws: Workspace, plan: Plan, io: CliIo): Promise<number> {
  let done = 0;
  const failed = (change: Change, error: unknown) => {
    const what = `${change.action} ${NOUN[change.section]} ${shownIdentity(change.identity)}`;
    io.stderr.write(`vigil apply: ${what} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  };
  const stop = () => {
    io.stderr.write(`${done} change(s) were made; run plan to see what remains.\n`);
    return 1;
  };
  // New checks go in batches (macClient.ts CHECK_BATCH) where the first of them stood: within the
  // checks section the order of creates and updates does not matter, and later sections come after.
  const newChecks = plan.changes.filter(isCheckCreate);
  for (const change of plan.changes) {
    if (change.action === 'drift') continue;
    if (change.action === 'create' && change.section === 'checks') {
      if (change !== newChecks[0]) continue;
      for (let start = 0; start < newChecks.length; start += CHECK_BATCH) {
        const chunk = newChecks.slice(start, start + CHECK_BATCH);
        let outcomes: (Error | undefined)[];
        try {
          outcomes = await createChecks(
            client,
            chunk.map((c) => c.item),
            ws,
          );
        } catch (error) {
          failed(chunk[0] ?? change, error);
          return stop();
        }
        // The server went on past a refused item, so every refusal of the batch is told, then apply stops.
        for (const [i, outcome] of outcomes.entries()) {
          if (outcome) failed(chunk[i] ?? change, outcome);
          else done++;
        }
        if (outcomes.some(Boolean)) return stop();
      }
      continue;
    }
    try {
      if (change.action === 'create') await createItem(client, change.section, change.item, ws);
      else if (change.action === 'update') await updateItem(client, change.section, ws.idOf.get(change.current) ?? 0, change.item, change.current, ws.refs);
      else await deleteItem(client, change.section, ws.idOf.get(change.current) ?? 0);
      done++;
    } catch (error) {
      failed(change, error);
      return stop();
    }
  }
  io.stdout.write(`Applied: ${done} change(s).\n`);
  return 0;
}

/** `vigil export | plan | apply`: exit 0 (plan: no changes), 2 for plan's changes with --detailed-exitcode or a usage error, 1 for anything refused. */
export async function macCommand(command: Command, argv: string[], io: CliIo): Promise<number> {
  const values = parse(command, argv, io);
  if (!values) return 2;
  if (values.help) {
    io.stdout.write(`${MAC_USAGE}\n`);
    return 0;
  }
  const base = io.env.VIGIL_API_URL?.replace(/\/+$/, '');
  const key = io.env.VIGIL_API_KEY;
  if (!base || !URL.canParse(base)) return usage(io, command, 'set VIGIL_API_URL to your Vigil API (ending in /api)');
  if (!key) return usage(io, command, 'set VIGIL_API_KEY to an API key');
  let told = false;
  const client = new VigilClient(base, key, io.fetch, (seconds) => {
    if (!told) io.stderr.write(`vigil ${command}: the API key's rate limit is reached; waiting (${seconds} s) and going on where it stopped\n`);
    told = true;
  });
  try {
    if (command === 'export') {
      const text = writeVigilFile(exportedFile(await readWorkspace(client, MANAGED)), base);
      if (values.output) await io.writeFile(values.output, text);
      else io.stdout.write(text);
      return 0;
    }
    const name = values.file ?? 'vigil.yaml';
    let text: string;
    try {
      text = Buffer.from(await io.readFile(name)).toString('utf8');
    } catch (error) {
      io.stderr.write(`vigil ${command}: cannot read ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    const parsed = parseVigilFile(text);
    if (!parsed.ok) {
      io.stderr.write(`vigil ${command}: ${name} is not a valid Vigil file:\n${formatFileErrors(name, parsed.errors)}\n`);
      return 1;
    }
    const { desired, missing } = desiredOf(parsed.file, io.env);
    if (missing.length > 0) {
      io.stderr.write(`vigil ${command}: ${name} refers to environment variables that are not set: ${missing.join(', ')}\n`);
      return 1;
    }
    const ws = await readWorkspace(
      client,
      MANAGED.filter((s) => desired[s] !== undefined),
    );
    const plan = planChanges(desired, ws.file, { prune: values.prune === true });
    io.stdout.write(formatPlan(plan));
    if (command === 'plan') return values['detailed-exitcode'] && hasChanges(plan) ? 2 : 0;
    return hasChanges(plan) ? carryOut(client, ws, plan, io) : 0;
  } catch (error) {
    const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
    io.stderr.write(`vigil ${command}: ${error instanceof TypeError ? `cannot reach ${base}: ` : ''}${message}\n`);
    return 1;
  }
}
