import { Collection, Document, UpdateFilter } from "mongodb";
import { failures } from "../../shared/errors";
import { Profile } from "../../shared/profiles";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { duplicateIndexOf, isDuplicateKey } from "../../shared/persistence/mongo/errors";
import { pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import {
	AccountRow,
	duplicateField,
	keyOf,
	listColumns,
	NewUser,
	textColumns,
	UserChanges,
	UserRow,
	UsersRepository,
	Viewer,
} from "./users.repository";

/**
 * A user as MongoDB keeps it: the SQL table's columns as fields, `_id` for id, lists as arrays;
 * an empty field is absent (so that the sparse unique indexes let many users leave it out).
 */
interface UserDocument {
	_id: string;
	user_name?: string;
	user_name_key?: string;
	email?: string;
	email_key?: string;
	display_name?: string;
	password_hash?: string;
	digest_ha1?: string;
	roles: string[];
	cloaked: boolean;
	created_time: number;
	updated_time: number;
	[column: string]: unknown;
}

interface NonceDocument {
	_id: string;
	nc: number;
	first_used: number;
}

export const usersMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "users: unique case-folded user name and e-mail address, creation order; Digest nonce counts",
		apply: async db => {
			// Sparse: users without an e-mail address (the field absent) do not collide.
			await db
				.collection("users")
				.createIndex({ user_name_key: 1 }, { name: "user_name_key", unique: true, sparse: true });
			await db.collection("users").createIndex({ email_key: 1 }, { name: "email_key", unique: true, sparse: true });
			await db.collection("users").createIndex({ created_time: 1, _id: 1 }, { name: "users_by_created" });
			await db.collection("digest_nonces").createIndex({ first_used: 1 }, { name: "digest_nonces_by_first_use" });
		},
	},
];

const credentials = { password_hash: 0, digest_ha1: 0 } as const;
const profileFields = { _id: 1, first_name: 1, last_name: 1, job_title: 1, default_venue_id: 1 } as const;

/** Every field of a new user that has a value. */
function documentOf(user: NewUser): UserDocument {
	const doc: UserDocument = {
		_id: user.Id,
		roles: user.Roles ?? [],
		cloaked: user.Cloaked ?? false,
		created_time: user.CreatedTime,
		updated_time: user.UpdatedTime,
	};
	const set = (field: string, value: string | string[] | undefined) => {
		if (value !== undefined && value !== "") doc[field] = value;
	};
	set("user_name", user.UserName);
	set("user_name_key", keyOf(user.UserName));
	set("email", user.Email);
	set("email_key", keyOf(user.Email));
	set("display_name", user.DisplayName);
	set("password_hash", user.PasswordHash);
	set("digest_ha1", user.DigestHa1);
	for (const [field, column] of Object.entries(textColumns)) set(column, user[field as keyof typeof textColumns]);
	for (const [field, column] of Object.entries(listColumns)) set(column, user[field as keyof typeof listColumns]);
	return doc;
}

/** A document as its record: the fields it has, credentials only where they were read. */
function toUser<T extends UserRow>(doc: UserDocument): T {
	const record: Record<string, unknown> = { Id: doc._id };
	const copy = (field: string, column: string) => {
		if (doc[column] !== undefined && doc[column] !== null) record[field] = doc[column];
	};
	copy("UserName", "user_name");
	copy("Email", "email");
	copy("DisplayName", "display_name");
	for (const [field, column] of Object.entries({ ...textColumns, ...listColumns })) copy(field, column);
	record.Roles = doc.roles ?? [];
	record.Cloaked = doc.cloaked === true;
	record.CreatedTime = doc.created_time;
	record.UpdatedTime = doc.updated_time;
	copy("PasswordHash", "password_hash");
	copy("DigestHa1", "digest_ha1");
	return record as T;
}

/** The update of `changes`: a field given "" is unset, a field left undefined is kept. */
function updateOf(changes: UserChanges, now: number): UpdateFilter<UserDocument> {
	const set: Document = { updated_time: now };
	const unset: Document = {};
	const change = (column: string, value: string | string[] | undefined) => {
		if (value === undefined) return;
		if (value === "") unset[column] = "";
		else set[column] = value;
	};
	change("user_name", changes.UserName);
	change("user_name_key", keyOf(changes.UserName));
	change("email", changes.Email);
	change("email_key", keyOf(changes.Email));
	for (const [field, column] of Object.entries(textColumns)) change(column, changes[field as keyof typeof textColumns]);
	for (const [field, column] of Object.entries(listColumns)) change(column, changes[field as keyof typeof listColumns]);
	if (changes.Cloaked !== undefined) set.cloaked = changes.Cloaked;
	// MongoDB before 5.0 refuses an empty operator.
	return Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set };
}

/** Users on MongoDB: what `UsersRepository` does on SQL, with the same keys unique. */
export class MongoUsersRepository implements RepositoryContract<UsersRepository> {
	private readonly users: Collection<UserDocument>;
	private readonly nonces: Collection<NonceDocument>;
	private readonly deletions: Collection<{ _id: string; attempted_time: number }>;

	constructor(private readonly store: MongoStore) {
		this.users = store.collection<UserDocument>("users");
		this.nonces = store.collection<NonceDocument>("digest_nonces");
		this.deletions = store.collection<{ _id: string; attempted_time: number }>("account_deletions");
	}

	async create(user: NewUser): Promise<UserRow> {
		const doc = documentOf(user);
		try {
			await this.users.insertOne(doc);
		} catch (err) {
			if (isDuplicateKey(err)) throw failures.alreadyExists(duplicateField({ message: duplicateIndexOf(err) }));
			throw err;
		}
		return toUser({ ...doc, password_hash: undefined, digest_ha1: undefined });
	}

	async importUser(user: NewUser): Promise<boolean> {
		return this.store.insertOnce(this.users, documentOf(user));
	}

	async find(id: string): Promise<UserRow | undefined> {
		const doc = await this.users.findOne({ _id: id }, { projection: credentials });
		return doc ? toUser(doc) : undefined;
	}

	async page(page: Page, viewer: Viewer): Promise<UserRow[]> {
		const visible = viewer.admin ? {} : { $or: [{ cloaked: false }, { _id: viewer.userId ?? "" }] };
		return (await pageOfList(this.users, page, visible, { time: "created_time" }, credentials)).map(doc => toUser(doc));
	}

	async profiles(ids: string[]): Promise<Profile[]> {
		if (ids.length === 0) return [];
		const docs = await this.users.find({ _id: { $in: ids } }, { projection: profileFields }).toArray();
		return docs.map(doc => {
			const user = toUser(doc);
			const profile: Profile = { Id: user.Id };
			if (user.FirstName !== undefined) profile.FirstName = user.FirstName;
			if (user.LastName !== undefined) profile.LastName = user.LastName;
			if (user.JobTitle !== undefined) profile.JobTitle = user.JobTitle;
			if (user.DefaultVenueId !== undefined) profile.DefaultVenueId = user.DefaultVenueId;
			return profile;
		});
	}

	async update(id: string, changes: UserChanges, now: number): Promise<UserRow | undefined> {
		try {
			const doc = await this.users.findOneAndUpdate({ _id: id }, updateOf(changes, now), {
				returnDocument: "after",
				projection: credentials,
			});
			return doc ? toUser(doc) : undefined;
		} catch (err) {
			if (isDuplicateKey(err)) throw failures.alreadyExists(duplicateField({ message: duplicateIndexOf(err) }));
			throw err;
		}
	}

	async remove(id: string): Promise<boolean> {
		return (await this.users.deleteOne({ _id: id })).deletedCount > 0;
	}

	/** The record first: a crash after it leaves a deletion the sweep finishes (users.repository.ts, beginDeletion). */
	async beginDeletion(id: string, now: number): Promise<boolean> {
		if (!(await this.users.findOne({ _id: id }, { projection: { _id: 1 } }))) return false;
		await this.deletions.updateOne({ _id: id }, { $set: { attempted_time: now } }, { upsert: true });
		const marked = await this.users.updateOne(
			{ _id: id },
			{ $unset: { password_hash: "", digest_ha1: "" }, $set: { cloaked: true, updated_time: now } },
		);
		return marked.matchedCount > 0;
	}

	async deletionsBefore(time: number): Promise<string[]> {
		return (await this.deletions.find({ attempted_time: { $lt: time } }).toArray()).map(doc => doc._id);
	}

	async touchDeletion(id: string, now: number): Promise<void> {
		await this.deletions.updateOne({ _id: id }, { $set: { attempted_time: now } });
	}

	/** The account, then its record: a crash between leaves a record whose next run finds nothing left to remove. */
	async finishDeletion(id: string): Promise<void> {
		await this.users.deleteOne({ _id: id });
		await this.deletions.deleteOne({ _id: id });
	}

	async account(login: string): Promise<AccountRow | undefined> {
		const key = login.toLowerCase();
		const byName = () => this.users.findOne({ user_name_key: key });
		const byEmail = () => this.users.findOne({ email_key: key });
		const doc = key.includes("@") ? ((await byEmail()) ?? (await byName())) : ((await byName()) ?? (await byEmail()));
		return doc ? toUser<AccountRow>(doc) : undefined;
	}

	async accountById(id: string): Promise<AccountRow | undefined> {
		const doc = await this.users.findOne({ _id: id });
		return doc ? toUser<AccountRow>(doc) : undefined;
	}

	async replaceHash(id: string, previous: string, next: string): Promise<boolean> {
		return (
			(await this.users.updateOne({ _id: id, password_hash: previous }, { $set: { password_hash: next } }))
				.matchedCount > 0
		);
	}

	async setCredentials(id: string, passwordHash: string, digestHa1: string | undefined): Promise<boolean> {
		const update: UpdateFilter<UserDocument> =
			digestHa1 === undefined
				? { $set: { password_hash: passwordHash }, $unset: { digest_ha1: "" } }
				: { $set: { password_hash: passwordHash, digest_ha1: digestHa1 } };
		return (await this.users.updateOne({ _id: id }, update)).matchedCount > 0;
	}

	/**
	 * One conditional upsert: the count moves only upwards, and of two replays at once the second meets the first's key.
	 */
	async useDigestNonce(nonce: string, nc: number, now: number, forgetBefore: number): Promise<boolean> {
		await this.nonces.deleteMany({ first_used: { $lt: forgetBefore } });
		try {
			const counted = await this.nonces.updateOne(
				{ _id: nonce, nc: { $lt: nc } },
				{ $set: { nc }, $setOnInsert: { first_used: now } },
				{ upsert: true },
			);
			return counted.matchedCount + counted.upsertedCount > 0;
		} catch (err) {
			if (isDuplicateKey(err)) return false;
			throw err;
		}
	}
}
