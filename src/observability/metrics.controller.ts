import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RawResponse } from '../common/raw-response.decorator';
import { MetricsService } from './metrics.service';

@Controller('metrics')
@RawResponse()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  /** Prometheus text format, for the scraper (not the envelope). */
  @Get()
  async scrape(@Res() response: Response): Promise<void> {
    response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
