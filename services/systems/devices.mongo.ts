import { Collection } from "mongodb";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { DeviceRow, DevicesRepository, hashOf } from "./devices.repository";
import { definedFields } from "../../shared/persistence/mongo/documents";

interface DeviceDocument {
	_id: string;
	user_id: string;
	device_token: string;
	token_hash: string;
	platform?: string;
	name?: string;
	created_time: number;
}

export const devicesMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "devices: one per user and token (its hash), a user's in the order registered",
		apply: async db => {
			await db
				.collection("user_devices")
				.createIndex({ user_id: 1, token_hash: 1 }, { name: "user_device_key", unique: true });
			await db
				.collection("user_devices")
				.createIndex({ user_id: 1, created_time: 1, _id: 1 }, { name: "user_devices_by_user" });
		},
	},
];

const documentOf = (d: DeviceRow): DeviceDocument =>
	definedFields({
		_id: d.Id,
		user_id: d.UserId,
		device_token: d.DeviceToken,
		token_hash: hashOf(d.DeviceToken),
		platform: d.Platform,
		name: d.Name,
		created_time: d.CreatedTime,
	});
const toDevice = (d: DeviceDocument): DeviceRow =>
	definedFields({
		Id: d._id,
		UserId: d.user_id,
		DeviceToken: d.device_token,
		Platform: d.platform,
		Name: d.name,
		CreatedTime: d.created_time,
	});

const withoutHash = { token_hash: 0 } as const;

/** Users' devices on MongoDB: what `DevicesRepository` does on SQL. */
export class MongoDevicesRepository implements RepositoryContract<DevicesRepository> {
	private readonly devices: Collection<DeviceDocument>;

	constructor(private readonly store: MongoStore) {
		this.devices = store.collection<DeviceDocument>("user_devices");
	}

	async register(device: DeviceRow): Promise<DeviceRow> {
		const doc = documentOf(device);
		for (;;) {
			if (await this.insert(doc)) return toDevice(doc);
			const existing = await this.devices.findOne(
				{ user_id: doc.user_id, token_hash: doc.token_hash },
				{ projection: withoutHash },
			);
			// Gone between the two (unregistered at that moment): register it afresh.
			if (existing) return toDevice(existing);
		}
	}

	async importDevice(device: DeviceRow): Promise<void> {
		await this.insert(documentOf(device));
	}

	async ofUser(userId: string, page: Page): Promise<DeviceRow[]> {
		return (await pageOfList(this.devices, page, { user_id: userId }, { time: "created_time" }, withoutHash)).map(
			toDevice,
		);
	}

	async unregister(userId: string, id: string): Promise<DeviceRow | undefined> {
		const doc = await this.devices.findOneAndDelete({ _id: id, user_id: userId }, { projection: withoutHash });
		return doc ? toDevice(doc) : undefined;
	}

	async removeAllOf(userId: string): Promise<number> {
		return (await this.devices.deleteMany({ user_id: userId })).deletedCount;
	}

	/** Inserts a device: false when its Id, or its user and token, are there already. */
	private async insert(doc: DeviceDocument): Promise<boolean> {
		return this.store.insertOnce(this.devices, doc);
	}
}
