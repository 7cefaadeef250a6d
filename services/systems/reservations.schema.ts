import { Migration } from "../../shared/persistence/sql/migrations";

/**
 * The reservations domain's table: an invitation and the state of its conversion into an account
 * (open → pending, claimed by one attempt with the account it makes → done). A pending claim whose
 * attempt went silent (claimed_time long past) is taken over by a retry, which undoes what that
 * attempt did first (see reservations.conversion.ts).
 */
export const reservationsMigrations: Migration[] = [
	{
		version: 1,
		description: "user_reservations with their conversion state",
		statements: () => [
			`CREATE TABLE user_reservations (
				id TEXT PRIMARY KEY, email TEXT NOT NULL, first_name TEXT, last_name TEXT, venue_id TEXT, network_id TEXT, invited_by TEXT,
				expiration_date BIGINT NOT NULL, created_time BIGINT NOT NULL,
				conversion_state TEXT NOT NULL DEFAULT 'open' CHECK (conversion_state IN ('open', 'pending', 'done')),
				conversion_id TEXT, conversion_user_id TEXT, claimed_time BIGINT, converted_time BIGINT)`,
		],
	},
];
