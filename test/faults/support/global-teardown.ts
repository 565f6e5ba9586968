import { rm } from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  const snapshot = process.env.FAULTS_SERVER_DIR;
  if (snapshot) await rm(snapshot, { recursive: true, force: true });
}
