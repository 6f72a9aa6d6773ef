/**
 * Command-line flags of `npm run chat`, over defaults taken from the service configuration
 * (AGENT_URL or http://127.0.0.1:PORT, AGENT_SHARED_SECRET): `--url`, `--secret`, `--user`,
 * `--anonymous`, `--disable maps,eats`, `--help`.
 */
import { parseArgs } from 'node:util';

export interface ChatOptions {
  url: string;
  secret: string | null;
  userId: string | null;
  disabledTools: string[];
  help: boolean;
}

export const USAGE = `Usage: npm run chat -- [--url http://127.0.0.1:5055] [--secret <token>] [--user <id>] [--anonymous] [--disable maps,eats]
  --url        service base URL (default: AGENT_URL, else http://127.0.0.1:PORT)
  --secret     bearer token (default: AGENT_SHARED_SECRET)
  --user       user id for memory (default: terminal-user); --anonymous for none
  --disable    tool groups to switch off: maps, courses, eats, guide, bus`;

/** Pure: flags over defaults. Throws (with a message naming the flag) on unknown flags. */
export function parseChatArgs(argv: string[], defaults: { url: string; secret: string | null }): ChatOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      secret: { type: 'string' },
      user: { type: 'string' },
      anonymous: { type: 'boolean', default: false },
      disable: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  return {
    url: (values.url ?? defaults.url).replace(/\/+$/, ''),
    secret: values.secret ?? defaults.secret,
    userId: values.anonymous ? null : values.user ?? 'terminal-user',
    disabledTools: (values.disable ?? []).flatMap((d) => d.split(',')).map((d) => d.trim()).filter(Boolean),
    help: values.help,
  };
}
