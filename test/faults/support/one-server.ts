import type { DataSource } from 'typeorm';
import { type FaultDatabase, FaultPostgres } from './fault-postgres';
import { seedResolvedMarkets, type SeededMarket } from './seed';
import { ServerProcess } from './server-process';

export interface OneServer {
  postgres: FaultPostgres;
  database: FaultDatabase;
  server: ServerProcess;
  /** The suite's own connection to the database, for seeding and checks. */
  dataSource: DataSource;
  markets: SeededMarket[];
}

/**
 * What most fault suites start from: their own PostgreSQL, a fresh database, the built server
 * on it, and `perPartner` resolved markets for each of `partners` partners.
 */
export async function startOneServer(options: {
  name: string;
  partners?: number;
  perPartner?: number;
  env?: Record<string, string>;
  /** PostgreSQL server settings, applied before the server under test starts (FaultPostgres.configure). */
  postgresSettings?: Record<string, string>;
}): Promise<OneServer> {
  const postgres = await FaultPostgres.start();
  let server: ServerProcess | undefined;
  try {
    if (options.postgresSettings) await postgres.configure(options.postgresSettings);
    const database = await postgres.createDatabase();
    server = await ServerProcess.start({ databaseUrl: database.url, name: options.name, env: options.env });
    const dataSource = await postgres.connect(database);
    const { markets } = await seedResolvedMarkets(dataSource, options.partners ?? 1, options.perPartner ?? 1);
    return { postgres, database, server, dataSource, markets };
  } catch (error) {
    // Nothing left running when a suite's beforeAll fails here.
    await server?.stop();
    await postgres.destroy();
    throw error;
  }
}
