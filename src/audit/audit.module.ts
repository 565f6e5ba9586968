import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditRecord } from './audit-record.entity';
import { AuditTrail } from './audit-trail';
import { AuditRepository } from './audit.repository';

/** The audit trail: admin writes append to it (Auth, Markets, Review); Review reads it. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditRecord])],
  providers: [AuditRepository, AuditTrail],
  exports: [AuditTrail],
})
export class AuditModule {}
