import { operations, route } from "./operation";
import { newPassword, paging, requiredText, text, textList, userName } from "./fields";
import { w } from "../wire/schema";
import { User } from "../records/users";

/** Profile fields a user keeps for themselves (SPEC.md §4.2 UpdateUserInternal, less Cloaked). */
export const profile = {
	FirstName: requiredText(100),
	MiddleName: text(100),
	LastName: requiredText(100),
	Suffix: text(20),
	Email: text(254).email({ tlds: { allow: false } }),
	AboutMe: text(4000),
	JobTitle: text(),
	CompanyName: text(),
	CompanyAddress: text(),
	CompanyCity: text(),
	CompanyStateProvince: text(),
	CompanyPostalCode: text(20),
	CompanyCountry: text(),
	TimeZone: text(100),
	Experiences: textList(),
	Certifications: textList(),
	Interests: textList(),
	DefaultVenueId: w.guid().allow(""),
};

/** Internal properties only administrators set. */
const internal = { Cloaked: w.boolean() };

export const usersOperations = operations({
	CreateUser: {
		summary: "Create a user with a profile (administrators only)",
		action: "users.create",
		routes: [route("POST /Users")],
		// CreatedTime lets an administrator import users with their original creation time.
		request: w.object({ ...profile, ...internal, UserName: userName().allow(""), CreatedTime: w.timestamp() }),
		response: User,
		access: "admin",
	},
	FindUser: {
		summary: "Retrieve one user",
		action: "users.find",
		routes: [route("GET /Users/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: User,
		access: "user",
		reads: true,
	},
	AllUsers: {
		summary: "Retrieve all users, oldest first (cloaked users are left out for others)",
		action: "users.list",
		routes: [route("GET /Users")],
		request: w.object(paging),
		response: w.array().items(User),
		access: "user",
		reads: true,
		// Pages embed connections, networks and subscriptions with names: kept until users or the graph change.
		cacheResponse: { domains: ["users", "graph"] },
	},
	UpdateUser: {
		summary:
			"Update one's own profile (administrators: anyone's); fields sent empty are cleared; a new Password needs the CurrentPassword (administrators: not)",
		action: "users.update",
		routes: [route("PUT /Users/:Id")],
		request: w.object({
			Id: w.guid().required(),
			...profile,
			Password: newPassword(),
			CurrentPassword: w.string().max(200),
		}),
		response: User,
		access: "user",
		actors: ["Id"],
	},
	UpdateUserInternal: {
		summary: "Update a user's information, including internal properties (administrators only)",
		action: "users.updateInternal",
		routes: [route("PUT /Internal/Users/:Id")],
		request: w.object({ Id: w.guid().required(), ...profile, ...internal, Password: newPassword() }),
		response: User,
		access: "admin",
	},
});
