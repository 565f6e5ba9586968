import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { RawResponse } from '../common/raw-response.decorator';
import { MetricsService } from './metrics.service';

const PROMETHEUS_CONTENT_TYPE = new Registry().contentType;

@ApiTags('operations')
@Controller('metrics')
@RawResponse()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  /** Prometheus text format, for the scraper (not the envelope). */
  @Get()
  @ApiOperation({ summary: 'Prometheus metrics (text format, no envelope): keep it on the internal network' })
  @ApiProduces(PROMETHEUS_CONTENT_TYPE)
  @ApiOkResponse({ description: 'The metrics', content: { [PROMETHEUS_CONTENT_TYPE]: { schema: { type: 'string' } } } })
  async scrape(@Res() response: Response): Promise<void> {
    response.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
