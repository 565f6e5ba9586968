import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpConfig, type HttpConfig } from '../config/configuration';
import { hostProblem, listenAddress } from '../config/listening';
import { StartupError } from '../config/startup-error';
import { MetricsService } from './metrics.service';

/** On METRICS_PORT, apart from the public port, so only the internal scraper reaches it; scrapes arriving together share one rendering. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private readonly server: Server;
  private rendering: Promise<string> | null = null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
  ) {
    this.server = createServer({ headersTimeout: 5_000, requestTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      this.render().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    });
    this.server.maxHeadersCount = 50;
  }

  /** The port it listens on (METRICS_PORT, or the one the system chose for 0). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort: port, host } = this.config;
    await new Promise<void>((listening, failed) => {
      this.server.once('error', failed).listen({ port, host }, () => {
        this.server.off('error', failed);
        listening();
      });
    }).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'is already in use' : `cannot be opened (${error.code ?? error.message})`;
      throw new StartupError(hostProblem(host, error.code) ?? `METRICS_PORT ${port} ${why}: set METRICS_PORT to a free port`);
    });
    this.logger.log(`metrics on ${listenAddress(host, this.port)} (GET /metrics)`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((closed) => this.server.close(closed));
  }

  private render(): Promise<string> {
    this.rendering ??= this.metrics.registry.metrics().finally(() => (this.rendering = null));
    return this.rendering;
  }
}
