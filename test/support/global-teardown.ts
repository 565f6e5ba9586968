import { stopEmbedded } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  await stopEmbedded();
}
