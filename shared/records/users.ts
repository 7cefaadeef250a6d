import { record, w } from "../wire/schema";
import { Connection, Network, Subscription } from "./graph";

/** SPEC.md §2.1, in its field order. */
export const User = record("User", {
	Id: w.guid(),
	FirstName: w.string(),
	MiddleName: w.string(),
	LastName: w.string(),
	Suffix: w.string(),
	Email: w.string(),
	AboutMe: w.string(),
	JobTitle: w.string(),
	CompanyName: w.string(),
	CompanyAddress: w.string(),
	CompanyCity: w.string(),
	CompanyStateProvince: w.string(),
	CompanyPostalCode: w.string(),
	CompanyCountry: w.string(),
	TimeZone: w.string(),
	Experiences: w.list(w.string()),
	Certifications: w.list(w.string()),
	Interests: w.list(w.string()),
	Connections: w.list(Connection),
	Networks: w.list(Network),
	Subscriptions: w.list(Subscription),
	CreatedTime: w.timestamp(),
	UpdatedTime: w.timestamp(),
	DefaultVenueId: w.guid(),
	Cloaked: w.boolean(),
});
