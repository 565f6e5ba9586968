import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Generated from the WebhookEndpoint entity (npm run migration:generate); the fill from the
 * deliveries already made is written by hand. Kept on the webhook, the greatest sequence delivered
 * outlives the deliveries' rows, which are deleted some days after they finish.
 */
export class WebhookLastDelivered1796411404699 implements MigrationInterface {
    name = 'WebhookLastDelivered1796411404699'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "webhooks" ADD "last_delivered_sequence" bigint`);
        await queryRunner.query(`
            UPDATE webhooks w SET last_delivered_sequence = d.sequence
            FROM (SELECT webhook_id, max(sequence) AS sequence FROM webhook_deliveries WHERE state = 'delivered' GROUP BY webhook_id) d
            WHERE d.webhook_id = w.id`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE "webhooks" DROP COLUMN "last_delivered_sequence"`);
    }

}
