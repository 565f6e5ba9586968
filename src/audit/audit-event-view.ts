/** One event of the audit trail as GET /admin/audit answers it (the back office page reads it too). */
export interface AuditEventView {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}
