import { Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail';
import { AuditRepository } from './audit.repository';

/** The audit trail: admin writes append to it (Auth, Markets, Review); Review reads it. */
@Module({
  providers: [AuditRepository, AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
