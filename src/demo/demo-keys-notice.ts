/** On stdout, not in a JSON log line, so they can be pasted into a shell as they are, with `notes` (in bold) below; `npm run demo:keys` issues new ones. */
export function printDemoKeys(keys: { apiKey: string; adminKey: string | null }, heading: string, notes: string[] = []): void {
  // On a terminal, set apart and in bold; the export lines themselves stay plain, to copy as they are.
  const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
  const rule = '='.repeat(78);
  const lines = [
    '',
    rule,
    bold(`${heading} Paste these lines into the shell you will call the API from; the keys are shown only now:`),
    '',
    `    export API_KEY=${keys.apiKey}`,
    ...(keys.adminKey ? [`    export ADMIN_KEY=${keys.adminKey}`] : []),
    '',
    ...notes.map(bold),
    ...(notes.length > 0 ? [''] : []),
    'Lost them? `npm run demo:keys` issues new ones (the server may be running or not).',
    rule,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** What `npm run demo:keys` adds: the admin key the user may have exported is now refused. */
export const ADMIN_KEY_REPLACED = [
  'The ADMIN_KEY issued before no longer works (local-admin has one key at a time): export the new one',
  'in every shell that has the old one. API keys issued before still work.',
];

export const DEMO_KEYS_HINT = 'demo data exists (partner source "demo"); `npm run demo:keys` issues new demo keys';
