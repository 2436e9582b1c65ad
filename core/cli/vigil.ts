import { importCommand, IMPORT_USAGE, type CliIo } from './importCommand.js';
import { MAC_USAGE, macCommand } from './macCommands.js';

const USAGE = `usage: vigil <command> ...
  import   bring checks from Healthchecks, Uptime Kuma or Grafana OnCall
  export, plan, apply   monitoring as code: the workspace as a YAML file (docs/guide/monitoring-as-code.md)

${IMPORT_USAGE}

${MAC_USAGE}`;

/** `vigil`: one subcommand each, all clients of the Integration API (VIGIL_API_URL, VIGIL_API_KEY). Returns the exit code. */
export async function vigil(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'import') return importCommand(rest, io);
  if (command === 'export' || command === 'plan' || command === 'apply') return macCommand(command, rest, io);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  io.stderr.write(`vigil: unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
  return 2;
}
