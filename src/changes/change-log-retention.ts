import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { changesConfig, type ChangesConfig } from '../config/configuration';
import { ChangeLogRepository } from './change-log.repository';

/** How often events past CHANGES_RETENTION_DAYS are deleted, and how many a statement deletes. */
const RETENTION_INTERVAL_MS = 60 * 60_000;
const RETENTION_BATCH = 10_000;

/** Deletes the change log's events past CHANGES_RETENTION_DAYS, hourly. */
@Injectable()
export class ChangeLogRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeLog');
  private readonly retentionDays: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(changesConfig.KEY) config: ChangesConfig,
    private readonly repository: ChangeLogRepository,
  ) {
    this.retentionDays = config.retentionDays;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.deleteExpired(), RETENTION_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Events older than CHANGES_RETENTION_DAYS, deleted a batch at a time (by one instance at a time). */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    try {
      for (let batch = RETENTION_BATCH; batch === RETENTION_BATCH; deleted += batch) {
        batch = await this.repository.deleteExpired(this.retentionDays, RETENTION_BATCH);
      }
    } catch (error) {
      this.logger.warn(`deleting events past their retention failed (tried again within the hour): ${(error as Error).message}`);
    }
    return deleted;
  }
}
