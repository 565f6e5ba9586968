/** A webhook as the admin API lists it (webhooks.repository.ts builds it; the back office page reads it too). */
export interface WebhookView {
  webhook_id: number;
  url: string;
  description: string | null;
  created_at: string;
  disabled_at: string | null;
  last_delivery: { at: string; http_status: number | null; error: string | null } | null;
  pending: number;
}
