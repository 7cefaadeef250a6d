import { createHash } from "node:crypto";
import { SqlDatabase } from "../../shared/persistence/sql/database";
import { Page, pageOf } from "../../shared/persistence/sql/paging";
import { present } from "../../shared/persistence/sql/rows";

export interface DeviceRow {
	Id: string;
	UserId: string;
	DeviceToken: string;
	Platform?: string;
	Name?: string;
	CreatedTime: number;
}

const deviceColumns =
	'id AS "Id", user_id AS "UserId", device_token AS "DeviceToken", platform AS "Platform", name AS "Name", created_time AS "CreatedTime"';
const insertDevice =
	"INSERT INTO user_devices (id, user_id, device_token, token_hash, platform, name, created_time) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING";

/** The key a device token is unique by (tokens can be long; the index holds their hashes). */
export const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Users' devices, one per (user, token) however often registered at once. */
export class DevicesRepository {
	constructor(private readonly db: SqlDatabase) {}

	/** Registers a device unless the user has it: the new record, or the one registered before. */
	async register(device: DeviceRow): Promise<DeviceRow> {
		const hash = hashOf(device.DeviceToken);
		for (;;) {
			const inserted = await this.db.get<DeviceRow>(`${insertDevice} RETURNING ${deviceColumns}`, [
				device.Id,
				device.UserId,
				device.DeviceToken,
				hash,
				device.Platform,
				device.Name,
				device.CreatedTime,
			]);
			if (inserted) return present(inserted);
			const existing = await this.db.get<DeviceRow>(
				`SELECT ${deviceColumns} FROM user_devices WHERE user_id = $1 AND token_hash = $2`,
				[device.UserId, hash],
			);
			// Gone between the two statements (unregistered at that moment): register it afresh.
			if (existing) return present(existing);
		}
	}

	/** A device as the former store held it; nothing when it (or the same user and token) is there already. */
	async importDevice(device: DeviceRow): Promise<void> {
		await this.db.run(insertDevice, [
			device.Id,
			device.UserId,
			device.DeviceToken,
			hashOf(device.DeviceToken),
			device.Platform,
			device.Name,
			device.CreatedTime,
		]);
	}

	/** A page of a user's devices, in the order registered; the cursor is a device's Id. */
	async ofUser(userId: string, page: Page): Promise<DeviceRow[]> {
		const list = {
			table: "user_devices",
			columns: deviceColumns,
			owner: "user_id",
			time: "created_time",
			tiebreak: "id",
		};
		return (await pageOf<DeviceRow>(this.db, list, userId, page)).map(present);
	}

	/** Removes a user's device: the removed record, or undefined when the user has no such device. */
	async unregister(userId: string, id: string): Promise<DeviceRow | undefined> {
		const row = await this.db.get<DeviceRow>(
			`DELETE FROM user_devices WHERE id = $1 AND user_id = $2 RETURNING ${deviceColumns}`,
			[id, userId],
		);
		return row && present(row);
	}

	/** Removes every device of a user (an account deleted): how many there were. */
	async removeAllOf(userId: string): Promise<number> {
		return this.db.run("DELETE FROM user_devices WHERE user_id = $1", [userId]);
	}
}
