import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { DeliveryQueue } from './delivery-queue';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookFanoutHead } from './webhook-fanout-head.entity';
import { WebhookFanout } from './webhook-fanout';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks (contract §7): the admin API of partners' endpoints, the fan-out of events to them, their delivery on pg-boss. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery, WebhookFanoutHead]), AuditModule, AuthModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, DeliveryQueue, WebhookFanout, WebhookDeliverer],
})
export class WebhooksModule {}
