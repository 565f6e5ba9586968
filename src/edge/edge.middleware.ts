import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { httpConfig, type HttpConfig } from '../config/configuration';
import { BodyBudgetMiddleware } from './body-budget.middleware';
import { ConnectionLimitMiddleware } from './connections';
import { CorsMiddleware } from './cors.middleware';
import { LoadSheddingMiddleware } from './load-shedding.middleware';
import { RequestChecksMiddleware } from './request-checks.middleware';
import { SecurityHeadersMiddleware } from './security-headers.middleware';

type Step = (req: Request, res: Response, next: (error?: unknown) => void) => void;

/** The connection's limit comes before CORS, so pipelined preflights are bounded too. Every step is synchronous: a refusal it throws reaches the filter. */
@Injectable()
export class EdgeMiddleware implements NestMiddleware {
  private readonly steps: Step[];
  private readonly postSteps: Step[];

  constructor(
    @Inject(httpConfig.KEY) http: HttpConfig,
    checks: RequestChecksMiddleware,
    headers: SecurityHeadersMiddleware,
    connection: ConnectionLimitMiddleware,
    cors: CorsMiddleware,
    bodies: BodyBudgetMiddleware,
    shedding: LoadSheddingMiddleware,
  ) {
    const before = [checks, headers, connection, ...(http.corsOrigins.length > 0 ? [cors] : [])];
    this.steps = [...before, shedding].map((step) => step.use.bind(step) as Step);
    this.postSteps = [...before, bodies, shedding].map((step) => step.use.bind(step) as Step);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const steps = req.method === 'POST' ? this.postSteps : this.steps;
    let at = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined) throw error;
      if (at === steps.length) return next();
      steps[at++](req, res, step);
    };
    step();
  }
}
