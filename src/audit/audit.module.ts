import { Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail';

/** The audit trail: admin writes append to it (Auth, Markets, Review); Review reads it. */
@Module({
  providers: [AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
