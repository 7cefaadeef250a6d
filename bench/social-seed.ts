import { call, each } from "./api";
import { between, sampleOf } from "./random";
import { SocialGraph } from "./social-graph";

/** The community as Plaza knows it after seeding: each graph user's id, name and session (X-ss-id). */
export interface Community {
	graph: SocialGraph;
	ids: string[];
	names: string[];
	sessions: string[];
}

/**
 * Where a user's own timeline is read: UserPosts (GET /Users/{id}/Posts), or a search of the posts in their context
 * (their wall), for a Plaza without it.
 */
export type TimelineRoute = "posts" | "wall";

const password = "social password";
const words = [
	"plaza",
	"coffee",
	"meeting",
	"weekend",
	"photo",
	"concert",
	"today",
	"city",
	"project",
	"garden",
	"match",
	"recipe",
	"travel",
	"music",
	"news",
	"book",
];

/**
 * A post's body as DeathStarBench's compose-post makes it: some text with "@name" mentions of
 * `mentioned` and `links` links (https://example.com/…), public, the mentioned users its recipients.
 * On the wall route a post's context is its author, so that the wall search finds it.
 */
export function postBody(
	community: Community,
	rand: () => number,
	author: number,
	mentioned: number[],
	links: number,
	timeline: TimelineRoute,
): Record<string, unknown> {
	const parts = Array.from({ length: between(rand, 8, 30) }, () => words[Math.floor(rand() * words.length)]);
	const extras = [
		...mentioned.map(m => `@${community.names[m]}`),
		...Array.from({ length: links }, () => `https://example.com/${Math.floor(rand() * 36 ** 8).toString(36)}`),
	];
	for (const extra of extras) parts.splice(Math.floor(rand() * (parts.length + 1)), 0, extra);
	return {
		AuthorId: community.ids[author],
		Content: parts.join(" "),
		IsPrivate: false,
		...(mentioned.length ? { RecipientIds: mentioned.map(m => community.ids[m]) } : {}),
		...(timeline === "wall" ? { ContextId: community.ids[author] } : {}),
	};
}

/** `count` of the author's friends, drawn at random (fewer if they have fewer). */
export const mentionsOf = (community: Community, rand: () => number, author: number, count: number) =>
	sampleOf(rand, community.graph.friends[author], count);

/**
 * Seeds a fresh Plaza through its API, so that whatever a write does happens: each user signs up
 * (POST /register, AutoLogin: its session is kept), connects to its friends (POST /Connections as
 * the lower-numbered of each pair: mutual, one call an edge), then posts `postsPerUser` times, round
 * by round, so that every timeline mixes authors in time; at last each reads their home timeline once.
 */
export async function seedCommunity(
	base: string,
	graph: SocialGraph,
	postsPerUser: number,
	rand: () => number,
	timeline: TimelineRoute,
	concurrency = 8,
): Promise<Community> {
	const community: Community = {
		graph,
		ids: new Array<string>(graph.users),
		names: new Array<string>(graph.users),
		sessions: new Array<string>(graph.users),
	};
	const as = (user: number) => ({ "X-ss-id": community.sessions[user] });
	await phase("sign-ups", graph.users, concurrency, async i => {
		const UserName = `social_${i}`;
		const user = await call(base, "POST", "/register", {
			UserName,
			Password: password,
			FirstName: `First${i}`,
			LastName: `Last${i}`,
			AutoLogin: true,
		});
		community.ids[i] = String(user.UserId);
		community.names[i] = UserName;
		community.sessions[i] = String(user.SessionId);
	});
	await phase("connections", graph.edges.length, concurrency, async e => {
		const [owner, friend] = graph.edges[e];
		await call(
			base,
			"POST",
			"/Connections",
			{ OwnerId: community.ids[owner], ConnectToId: community.ids[friend] },
			as(owner),
		);
	});
	// Bodies drawn first, in order: the same seed makes the same posts whatever order the calls end in.
	const posts = Array.from({ length: graph.users * postsPerUser }, (_, p) => {
		const author = p % graph.users;
		return {
			author,
			body: postBody(
				community,
				rand,
				author,
				mentionsOf(community, rand, author, between(rand, 0, 2)),
				between(rand, 0, 1),
				timeline,
			),
		};
	});
	await phase("posts", posts.length, concurrency, async p =>
		call(base, "POST", "/Posts", posts[p].body, as(posts[p].author)),
	);
	// Each user opens their home timeline once, as the active users of a social network have: what a
	// first read costs (building it from its sources) is paid here, not in the measured load.
	await phase("home timelines read once", graph.users, concurrency, async i =>
		call(base, "GET", `/Users/${community.ids[i]}/Feed?Limit=10`, undefined, as(i)),
	);
	return community;
}

/** Runs one seeding phase, printing its progress at each quarter and its rate at the end. */
async function phase(
	name: string,
	count: number,
	concurrency: number,
	work: (i: number) => Promise<unknown>,
): Promise<void> {
	const started = performance.now();
	let done = 0;
	await each(count, concurrency, async i => {
		await work(i);
		done++;
		if (done < count && Math.floor((4 * done) / count) > Math.floor((4 * (done - 1)) / count))
			console.log(`    ${name}: ${done}/${count}`);
	});
	const seconds = (performance.now() - started) / 1000;
	console.log(`    ${name}: ${count} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)`);
}
