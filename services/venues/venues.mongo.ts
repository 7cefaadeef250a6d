import { Collection } from "mongodb";
import { Page } from "../../shared/persistence/sql/paging";
import { MongoStore } from "../../shared/persistence/mongo/store";
import { MongoMigration } from "../../shared/persistence/mongo/migrations";
import { pageOfJoined, pageOfList } from "../../shared/persistence/mongo/paging";
import { RepositoryContract } from "../../shared/persistence/repository.mixin";
import { VenueMemberRow, VenueRow, VenuesRepository } from "./venues.repository";

interface VenueDocument {
	_id: string;
	name: string;
	owner_id: string;
	created_time: number;
}

/** A member; `_id` is the (venue, user) pair, so that a member is one document however often added. */
interface MemberDocument {
	_id: string;
	venue_id: string;
	user_id: string;
	role_id?: string;
	created_time: number;
	updated_time?: number;
}

export const venuesMongoMigrations: MongoMigration[] = [
	{
		version: 1,
		description: "venue members by venue and by user, in the order they joined",
		apply: async db => {
			await db
				.collection("venue_members")
				.createIndex({ venue_id: 1, created_time: 1, user_id: 1 }, { name: "venue_members_by_venue" });
			await db
				.collection("venue_members")
				.createIndex({ user_id: 1, created_time: 1, venue_id: 1 }, { name: "venue_members_by_user" });
		},
	},
];

const memberKey = (venueId: string, userId: string) => `${venueId}:${userId}`;
const memberFields = { _id: 0, venue_id: 1, user_id: 1, role_id: 1, created_time: 1 } as const;

const toVenue = (doc: VenueDocument): VenueRow => ({
	Id: doc._id,
	Name: doc.name,
	OwnerId: doc.owner_id,
	CreatedTime: doc.created_time,
});

const toMember = (doc: Pick<MemberDocument, "venue_id" | "user_id" | "role_id" | "created_time">): VenueMemberRow => ({
	VenueId: doc.venue_id,
	UserId: doc.user_id,
	...(doc.role_id !== undefined ? { RoleId: doc.role_id } : {}),
	CreatedTime: doc.created_time,
});

/** Venues and their members on MongoDB: what `VenuesRepository` does on SQL. */
export class MongoVenuesRepository implements RepositoryContract<VenuesRepository> {
	private readonly venues: Collection<VenueDocument>;
	private readonly memberships: Collection<MemberDocument>;

	constructor(private readonly store: MongoStore) {
		this.venues = store.collection<VenueDocument>("venues");
		this.memberships = store.collection<MemberDocument>("venue_members");
	}

	/**
	 * The owner's membership first, then the venue: the venue is what makes both visible (every read
	 * starts from it, `venuesOf` joins it), so a crash between leaves a membership of no venue that
	 * nobody can see, and never a venue without its owner.
	 */
	async create(venue: VenueRow): Promise<VenueRow> {
		await this.addMember(venue.Id, venue.OwnerId, undefined, venue.CreatedTime);
		await this.venues.insertOne({
			_id: venue.Id,
			name: venue.Name,
			owner_id: venue.OwnerId,
			created_time: venue.CreatedTime,
		});
		return venue;
	}

	async importVenue(venue: VenueRow): Promise<void> {
		await this.store.insertOnce(this.venues, {
			_id: venue.Id,
			name: venue.Name,
			owner_id: venue.OwnerId,
			created_time: venue.CreatedTime,
		});
	}

	async find(id: string): Promise<VenueRow | undefined> {
		const doc = await this.venues.findOne({ _id: id });
		return doc ? toVenue(doc) : undefined;
	}

	async findMany(ids: string[]): Promise<VenueRow[]> {
		if (ids.length === 0) return [];
		return (await this.venues.find({ _id: { $in: ids } }).toArray()).map(toVenue);
	}

	async addMember(
		venueId: string,
		userId: string,
		roleId: string | undefined,
		now: number,
	): Promise<VenueMemberRow | undefined> {
		const doc: MemberDocument = {
			_id: memberKey(venueId, userId),
			venue_id: venueId,
			user_id: userId,
			...(roleId !== undefined ? { role_id: roleId } : {}),
			created_time: now,
		};
		return (await this.store.insertOnce(this.memberships, doc)) ? toMember(doc) : undefined;
	}

	async setRole(
		venueId: string,
		userId: string,
		roleId: string | undefined,
		now: number,
	): Promise<VenueMemberRow | undefined> {
		const update =
			roleId === undefined
				? { $set: { updated_time: now }, $unset: { role_id: "" as const } }
				: { $set: { role_id: roleId, updated_time: now } };
		const doc = await this.memberships.findOneAndUpdate({ _id: memberKey(venueId, userId) }, update, {
			returnDocument: "after",
			projection: memberFields,
		});
		return doc ? toMember(doc) : undefined;
	}

	async isMember(venueId: string, userId: string): Promise<boolean> {
		return (await this.memberships.countDocuments({ _id: memberKey(venueId, userId) }, { limit: 1 })) > 0;
	}

	async removeMember(venueId: string, userId: string): Promise<boolean> {
		return (await this.memberships.deleteOne({ _id: memberKey(venueId, userId) })).deletedCount > 0;
	}

	async forgetUser(userId: string): Promise<number> {
		return (await this.memberships.deleteMany({ user_id: userId })).deletedCount;
	}

	async members(venueId: string, page: Page): Promise<VenueMemberRow[]> {
		return (
			await pageOfList(
				this.memberships,
				page,
				{ venue_id: venueId },
				{ time: "created_time", cursor: "user_id", tiebreak: "user_id" },
				memberFields,
			)
		).map(toMember);
	}

	/**
	 * Memberships in order joined with their venues; one whose venue is missing is passed over before the page is cut, as
	 * SQL's join does.
	 */
	async venuesOf(userId: string, page: Page): Promise<VenueRow[]> {
		const docs = await pageOfJoined<MemberDocument, VenueDocument>(
			this.memberships,
			page,
			{ user_id: userId },
			{ time: "created_time", cursor: "venue_id", tiebreak: "venue_id" },
			{ from: "venues", localField: "venue_id" },
		);
		return docs.map(toVenue);
	}
}
