import { createHash } from "node:crypto";
import { CrashClient } from "./crash-client";
import { png } from "./png";

/** What the load was given before the first kill: every write of a cycle refers to these. */
export interface CrashFixture {
	/** Run-unique, so names never clash with another run on the same store. */
	tag: string;
	users: string[];
	networks: string[];
	venue: string;
	system: string;
	/** Posts the comments go to. */
	posts: string[];
}

/**
 * Every write tried, as sent: `acked` once Plaza answered 200 (it must then be there, intact);
 * otherwise it was cut off by the kill (or refused) and must be whole or absent.
 */
export interface CrashLedger {
	posts: Array<{ author: string; content: string; tags: string[]; recipients: string[]; id?: string }>;
	comments: Array<{ post: string; content: string; id?: string }>;
	connections: Array<{ a: string; b: string; acked: boolean }>;
	members: Array<{ network: string; user: string; acked: boolean }>;
	registrations: Array<{ userName: string; userId?: string; session?: string }>;
	/** Per user, the versions of its profile updates: the last acknowledged and the last tried. */
	profiles: Map<string, { acked: number; tried: number }>;
	conversions: Array<{ reservation: string; userName: string; userId?: string }>;
	media: Array<{ kind: "avatar" | "picture"; owner: string; sha: string; id?: string }>;
	workItems: Array<{ ref: string; id?: string }>;
	/** Accounts deleted (by an admin), each with a post of its own: acknowledged means gone, post and all. */
	deletions: Array<{ userId: string; postId: string; acked: boolean }>;
	/** Blocks between two users of their own, connected first: acknowledged means blocked and no longer connected. */
	blocks: Array<{ a: string; b: string; acked: boolean }>;
}

export const crashPassword = "crash passphrase";

export function emptyLedger(): CrashLedger {
	return {
		posts: [],
		comments: [],
		connections: [],
		members: [],
		registrations: [],
		profiles: new Map(),
		conversions: [],
		media: [],
		workItems: [],
		deletions: [],
		blocks: [],
	};
}

export const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Users, networks, a venue, a system and a few posts to comment on, made before any kill. */
export async function makeFixture(api: CrashClient, writers: number): Promise<CrashFixture> {
	const tag = `r${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
	const ok = async (method: string, route: string, body: unknown) => {
		const reply = await api.send(method, route, body);
		if (reply.status !== 200)
			throw new Error(`${method} ${route}: ${reply.status} ${reply.bytes.toString("utf8").slice(0, 300)}`);
		return reply.body.Id;
	};
	const users = await Promise.all(
		Array.from({ length: Math.max(12, writers) }, (_, i) =>
			ok("POST", "/Users", { FirstName: `Crash${i}`, LastName: "Test" }),
		),
	);
	const networks = await Promise.all(
		users.slice(0, 3).map((owner, i) => ok("POST", "/Networks", { OwnerId: owner, Name: `Net ${tag} ${i}` })),
	);
	const venue = await ok("POST", "/Venues", { OwnerId: users[0], Name: `Venue ${tag}` });
	const system = await ok("POST", "/Systems", { Name: `Tracker ${tag}` });
	const posts = await Promise.all(
		users.slice(0, 3).map(author => ok("POST", "/Posts", { AuthorId: author, Content: `commented ${tag}` })),
	);
	return { tag, users, networks, venue, system, posts };
}

/**
 * Everyone to connect and make members: the fixture's users and those registered so far (the newest first picked), so
 * most of these writes are new ones, not repeats.
 */
const people = (f: CrashFixture, ledger: CrashLedger) => [
	...f.users,
	...ledger.registrations.flatMap(r => (r.userId ? [r.userId] : [])),
];

/** The kinds of write, each one step of a writer: sends one request and notes it in the ledger. */
type Step = (
	api: CrashClient,
	f: CrashFixture,
	ledger: CrashLedger,
	at: { cycle: number; w: number; i: number },
) => Promise<void>;

const steps: Step[] = [
	async (api, f, ledger, { cycle, w, i }) => {
		const author = f.users[w % f.users.length];
		const recipients = [f.users[(w + i + 1) % f.users.length], f.users[(w + 2 * i + 3) % f.users.length]].filter(
			(u, k, all) => u !== author && all.indexOf(u) === k,
		);
		const entry = {
			author,
			content: `post ${f.tag} ${cycle}-${w}-${i}`,
			tags: [`w${w}`, `c${cycle}i${i}`],
			recipients,
			id: undefined as string | undefined,
		};
		ledger.posts.push(entry);
		const r = await api.send("POST", "/Posts", {
			AuthorId: author,
			Content: entry.content,
			Tags: entry.tags,
			RecipientIds: recipients,
			IsPrivate: true,
		});
		if (r.status === 200) entry.id = r.body.Id;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const entry = {
			post: f.posts[(w + i) % f.posts.length],
			content: `comment ${f.tag} ${cycle}-${w}-${i}`,
			id: undefined as string | undefined,
		};
		ledger.comments.push(entry);
		const r = await api.send("POST", `/Posts/${entry.post}/Comments`, {
			AuthorId: f.users[(w + i) % f.users.length],
			Content: entry.content,
		});
		if (r.status === 200) entry.id = r.body.Id;
	},
	async (api, f, ledger, { w, i }) => {
		const pool = people(f, ledger);
		const [a, b] = [
			f.users[(w * 7 + i) % f.users.length],
			pool[pool.length - 1 - ((w * 3 + i * 5) % Math.min(pool.length, 40))],
		];
		if (a === b) return;
		const entry = { a, b, acked: false };
		ledger.connections.push(entry);
		entry.acked = (await api.send("POST", "/Connections", { OwnerId: a, ConnectToId: b })).status === 200;
	},
	async (api, f, ledger, { w, i }) => {
		const pool = people(f, ledger);
		const entry = {
			network: f.networks[i % f.networks.length],
			user: pool[pool.length - 1 - ((w + i * 11) % Math.min(pool.length, 40))],
			acked: false,
		};
		ledger.members.push(entry);
		entry.acked = (await api.send("POST", `/Networks/${entry.network}/Members`, { UserId: entry.user })).status === 200;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const entry = {
			userName: `reg.${f.tag}.${cycle}.${w}.${i}`,
			userId: undefined as string | undefined,
			session: undefined as string | undefined,
		};
		ledger.registrations.push(entry);
		const r = await api.send(
			"POST",
			"/register",
			{ UserName: entry.userName, Password: crashPassword, FirstName: "Reg", LastName: "Crash", AutoLogin: true },
			{},
		);
		if (r.status === 200) [entry.userId, entry.session] = [String(r.body.UserId), String(r.body.SessionId)];
	},
	async (api, f, ledger, { w }) => {
		// Only writer w updates user w, one update at a time: versions only grow.
		const user = f.users[w];
		const versions = ledger.profiles.get(user) ?? { acked: 0, tried: 0 };
		ledger.profiles.set(user, versions);
		const version = ++versions.tried;
		if (
			(await api.send("PUT", `/Users/${user}`, { FirstName: `First${version}`, LastName: `Last${version}` })).status ===
			200
		)
			versions.acked = version;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const invited = await api.send("POST", "/Reservations", {
			Email: `guest.${f.tag}.${cycle}.${w}.${i}@example.org`,
			FirstName: "Gue",
			LastName: "St",
			VenueId: f.venue,
			NetworkId: f.networks[0],
		});
		if (invited.status !== 200) return;
		const entry = {
			reservation: invited.body.Id,
			userName: `guest.${f.tag}.${cycle}.${w}.${i}`,
			userId: undefined as string | undefined,
		};
		ledger.conversions.push(entry);
		const r = await api.send(
			"POST",
			`/Reservations/${entry.reservation}/Convert`,
			{ UserName: entry.userName, Password: crashPassword },
			{},
		);
		if (r.status === 200) entry.userId = String(r.body.UserId);
	},
	async (api, f, ledger, { w, i }) => {
		const owner = f.users[w % f.users.length];
		const bytes = png(4 + (i % 29), 4 + (w % 7), 1 + Math.floor(Math.random() * 254));
		const entry = {
			kind: i % 2 ? ("picture" as const) : ("avatar" as const),
			owner,
			sha: sha(bytes),
			id: undefined as string | undefined,
		};
		ledger.media.push(entry);
		const body = { ContentType: "image/png", Data: bytes.toString("base64") };
		const r =
			entry.kind === "avatar"
				? await api.send("POST", `/Users/${owner}/Avatars`, body)
				: await api.send("POST", "/Pictures", { ...body, OwnerId: owner });
		if (r.status === 200) entry.id = r.body.Id;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const entry = { ref: `ref-${f.tag}-${cycle}-${w}-${i}`, id: undefined as string | undefined };
		ledger.workItems.push(entry);
		const r = await api.send("POST", "/WorkItems", {
			ShortDescription: "crash",
			ReferenceId: entry.ref,
			SystemId: f.system,
			IsMappingRequired: true,
		});
		if (r.status === 200) entry.id = r.body.Id;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const user = await api.send("POST", "/Users", { FirstName: "Leaving", LastName: `${f.tag}-${cycle}-${w}-${i}` });
		if (user.status !== 200) return;
		const post = await api.send("POST", "/Posts", { AuthorId: user.body.Id, Content: `last words ${f.tag}` });
		if (post.status !== 200) return;
		const entry = { userId: String(user.body.Id), postId: String(post.body.Id), acked: false };
		ledger.deletions.push(entry);
		entry.acked = (await api.send("DELETE", `/Users/${entry.userId}`, {})).status === 200;
	},
	async (api, f, ledger, { cycle, w, i }) => {
		const pair = [];
		for (const side of ["A", "B"]) {
			const user = await api.send("POST", "/Users", {
				FirstName: `Block${side}`,
				LastName: `${f.tag}-${cycle}-${w}-${i}`,
			});
			if (user.status !== 200) return;
			pair.push(String(user.body.Id));
		}
		const [a, b] = pair;
		if ((await api.send("POST", "/Connections", { OwnerId: a, ConnectToId: b })).status !== 200) return;
		const entry = { a, b, acked: false };
		ledger.blocks.push(entry);
		entry.acked = (await api.send("POST", "/Blocks", { OwnerId: a, BlockedId: b })).status === 200;
	},
];

/**
 * One writer: steps through every kind of write until told to stop. A request that throws (the
 * server went away) ends it; a refusal is noted and it goes on.
 */
export async function writer(
	api: CrashClient,
	f: CrashFixture,
	ledger: CrashLedger,
	cycle: number,
	w: number,
	running: () => boolean,
): Promise<void> {
	for (let i = 0; running(); i++) {
		try {
			await steps[(w + i) % steps.length](api, f, ledger, { cycle, w, i });
		} catch {
			if (!running()) return;
		}
	}
}
