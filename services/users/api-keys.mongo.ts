import { Collection, Document, Filter } from "mongodb";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { ApiKeysRepository } from "./api-keys.repository";
import { ApiKeyChanges, ApiKeyFilter, ApiKeyRow } from "./api-keys.rows";

interface ApiKeyDocument {
	_id: number;
	key_hash: string;
	visible_key: string;
	name: string;
	user_id: string;
	user_name?: string;
	scopes: string[];
	notes?: string;
	created_date: number;
	expiry_date?: number;
	cancelled_date?: number;
}

export const apiKeysMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "api_keys by hash (unique) and by user",
		apply: async db => {
			await db.collection("api_keys").createIndex({ key_hash: 1 }, { name: "api_keys_by_hash", unique: true });
			await db.collection("api_keys").createIndex({ user_id: 1, created_date: 1 }, { name: "api_keys_by_user" });
		},
	},
];

const documentOf = (k: ApiKeyRow): ApiKeyDocument => ({
	_id: k.Id,
	key_hash: k.KeyHash,
	visible_key: k.VisibleKey,
	name: k.Name,
	user_id: k.UserId,
	...(k.UserName !== undefined ? { user_name: k.UserName } : {}),
	scopes: k.Scopes,
	...(k.Notes !== undefined ? { notes: k.Notes } : {}),
	created_date: k.CreatedDate,
	...(k.ExpiryDate !== undefined ? { expiry_date: k.ExpiryDate } : {}),
	...(k.CancelledDate !== undefined ? { cancelled_date: k.CancelledDate } : {}),
});

const toKey = (d: ApiKeyDocument): ApiKeyRow => ({
	Id: d._id,
	KeyHash: d.key_hash,
	VisibleKey: d.visible_key,
	Name: d.name,
	UserId: d.user_id,
	...(d.user_name != null ? { UserName: d.user_name } : {}),
	Scopes: d.scopes ?? [],
	...(d.notes != null ? { Notes: d.notes } : {}),
	CreatedDate: d.created_date,
	...(d.expiry_date != null ? { ExpiryDate: d.expiry_date } : {}),
	...(d.cancelled_date != null ? { CancelledDate: d.cancelled_date } : {}),
});

/** `text` matched literally inside a regular expression. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** API keys on MongoDB: what `ApiKeysRepository` does on SQL, with the same keys unique. */
export class MongoApiKeysRepository implements RepositoryContract<ApiKeysRepository> {
	private readonly keys: Collection<ApiKeyDocument>;

	constructor(private readonly store: MongoStore) {
		this.keys = store.collection<ApiKeyDocument>("api_keys");
	}

	async create(row: ApiKeyRow): Promise<boolean> {
		return this.store.insertOnce(this.keys, documentOf(row));
	}

	async byHash(hash: string): Promise<ApiKeyRow | undefined> {
		const doc = await this.keys.findOne({ key_hash: hash });
		return doc ? toKey(doc) : undefined;
	}

	async find(id: number): Promise<ApiKeyRow | undefined> {
		const doc = await this.keys.findOne({ _id: id });
		return doc ? toKey(doc) : undefined;
	}

	async page(filter: ApiKeyFilter, skip: number, take: number): Promise<ApiKeyRow[]> {
		// A limit of 0 is no limit on MongoDB.
		if (take <= 0) return [];
		const query: Filter<ApiKeyDocument> = {};
		if (filter.userId !== undefined) query.user_id = filter.userId;
		if (filter.search) {
			const contains = { $regex: literally(filter.search), $options: "i" };
			query.$or = [{ name: contains }, { notes: contains }];
		}
		const docs = await this.keys.find(query).sort({ created_date: -1, _id: -1 }).skip(skip).limit(take).toArray();
		return docs.map(toKey);
	}

	async update(id: number, changes: ApiKeyChanges): Promise<ApiKeyRow | undefined> {
		const set: Document = {};
		const unset: Document = {};
		const change = (field: string, value: string | string[] | number | null | undefined) => {
			if (value === null) unset[field] = "";
			else if (value !== undefined) set[field] = value;
		};
		change("name", changes.Name);
		change("scopes", changes.Scopes);
		change("notes", changes.Notes);
		change("expiry_date", changes.ExpiryDate);
		change("cancelled_date", changes.CancelledDate);
		// MongoDB before 5.0 refuses an empty operator.
		const update = {
			...(Object.keys(set).length ? { $set: set } : {}),
			...(Object.keys(unset).length ? { $unset: unset } : {}),
		};
		if (!Object.keys(update).length) return this.find(id);
		const doc = await this.keys.findOneAndUpdate({ _id: id }, update, { returnDocument: "after" });
		return doc ? toKey(doc) : undefined;
	}

	async remove(id: number): Promise<ApiKeyRow | undefined> {
		const doc = await this.keys.findOneAndDelete({ _id: id });
		return doc ? toKey(doc) : undefined;
	}

	async hashesOf(userId: string): Promise<string[]> {
		const docs = await this.keys
			.find({ user_id: userId }, { projection: { key_hash: 1 } })
			.sort({ created_date: 1, _id: 1 })
			.toArray();
		return docs.map(doc => doc.key_hash);
	}
}
