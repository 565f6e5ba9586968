// deploy/ read as data, beside what the service reads (Environment) and how its image runs it
// (Dockerfile, package.json): the deployment files cannot run here, so they are held to the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { environmentDefaults } from '../../src/config/environment';

export const read = (path: string): string => readFileSync(join(process.cwd(), path), 'utf8');

/** Every environment variable the service reads. */
export const KNOWN_VARIABLES: ReadonlySet<string> = new Set(Object.keys(environmentDefaults()));

/** Names the service does not read, each with the known name it was likely meant to be. */
export function unknownVariables(names: Iterable<string>): string[] {
  return [...names]
    .filter((name) => !KNOWN_VARIABLES.has(name))
    .map((name) => {
      const [closest] = [...KNOWN_VARIABLES].sort((a, b) => distance(name, a) - distance(name, b));
      return distance(name, closest) <= Math.min(3, Math.floor(name.length / 4)) ? `${name} (did you mean ${closest}?)` : name;
    });
}

/** Levenshtein distance. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The Dockerfile's runtime stage: its CMD, EXPOSE, ENV and HEALTHCHECK. */
export function dockerfile() {
  const lines = read('Dockerfile').replace(/\\\n\s*/g, ' ').split('\n');
  const runtime = lines.slice(lines.findIndex((line) => /^FROM .* AS runtime$/.test(line)));
  const instruction = (name: string) => runtime.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());
  const env = Object.fromEntries(instruction('ENV').flatMap((args) => args.split(/\s+/).map((pair) => pair.split('=') as [string, string])));
  return {
    cmd: JSON.parse(instruction('CMD')[0]) as string[],
    expose: instruction('EXPOSE').flatMap((args) => args.split(/\s+/)).map(Number),
    env: env as Record<string, string>,
    user: instruction('USER')[0],
    healthcheck: instruction('HEALTHCHECK')[0],
  };
}

/** What a container of the image runs with before its own settings: Environment's defaults, then the image's ENV. */
export function imageDefaults(): Record<string, string> {
  const defaults = Object.entries(environmentDefaults()).filter(([, value]) => value !== undefined);
  return { ...Object.fromEntries(defaults.map(([name, value]) => [name, String(value)])), ...dockerfile().env };
}

/** How long the service waits after SHUTDOWN_GRACE_MS before it exits 1 (src/shutdown.ts). */
export function finalShutdownMs(): number {
  const [, ms] = /const FINAL_SHUTDOWN_MS = ([\d_]+);/.exec(read('src/shutdown.ts')) ?? [];
  if (ms === undefined) throw new Error('src/shutdown.ts no longer declares FINAL_SHUTDOWN_MS');
  return Number(ms.replaceAll('_', ''));
}

/** A duration as Compose writes it (`25s`, `1m30s`, `500ms`), in milliseconds. */
export function composeDurationMs(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.map(([part]) => part).join('') !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * units[unit], 0);
}

/** Kubernetes' quantity of memory (`256Mi`, `268435456`, `256M`) in bytes. */
export function memoryBytes(quantity: string): number {
  const units: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  const [, amount, unit] = /^(\d+(?:\.\d+)?)(|k|M|G|Ki|Mi|Gi)$/.exec(quantity) ?? [];
  if (amount === undefined) throw new Error(`not a memory quantity: ${quantity}`);
  return Number(amount) * units[unit];
}

/** The `${NAME}`, `${NAME:?message}`, `${NAME:-default}` a Compose value interpolates. */
export const interpolated = (text: string): string[] => [...text.matchAll(/\$\{([A-Za-z0-9_]+)[^}]*\}/g)].map(([, name]) => name);

/** A stand-in for each interpolation (24+ characters: ADMIN_MASTER_KEY's minimum). */
export const withStandIns = (text: string): string => text.replace(/\$\{[^}]*\}/g, 'standin'.repeat(4));

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  expose?: (string | number)[];
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
  [key: string]: unknown;
}

export function compose(): { services: Record<string, ComposeService>; text: string } {
  const text = read('deploy/compose.yaml');
  return { ...(parse(text, { merge: true }) as { services: Record<string, ComposeService> }), text };
}

/** A service's environment as a map, whichever form (map or `KEY=value` list) it is written in. */
export function composeEnvironment(service: ComposeService): Record<string, string> {
  const { environment = {} } = service;
  const pairs = Array.isArray(environment)
    ? environment.map((item) => [item.split('=')[0], item.slice(item.indexOf('=') + 1)])
    : Object.entries(environment).map(([name, value]) => [name, value === null ? '' : String(value)]);
  return Object.fromEntries(pairs);
}

/** `key = value` lines by section, `;` and `#` lines skipped (pgbouncer.ini). */
export function ini(path: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let section: Record<string, string> = (sections[''] = {});
  for (const line of read(path).split('\n').map((text) => text.trim())) {
    if (line === '' || /^[;#]/.test(line)) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = sections[header[1]] ??= {};
    else section[line.slice(0, line.indexOf('=')).trim()] = line.slice(line.indexOf('=') + 1).trim();
  }
  return sections;
}
