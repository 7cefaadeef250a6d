import { Body, CrashClient } from "./crash-client";
import { CrashFixture, CrashLedger, crashPassword, sha } from "./crash-writers";

/** What the checks after the last restart found. */
export interface CrashVerdict {
	acknowledgedChecked: number;
	/** Repaired: left pending by the kill, made whole by the retry the design relies on (conversions only). */
	cutOff: { whole: number; absent: number; repaired: number; broken: number };
	/**
	 * Each acknowledged write missing or changed, each broken cut-off write, each count that disagrees: empty when all is
	 * well.
	 */
	problems: string[];
}

type Judgement = keyof CrashVerdict["cutOff"];

/**
 * Reads everything back through the gateway: every acknowledged write present and intact, every
 * cut-off one whole or absent, every count equal to what it counts (both sides of a connection,
 * NumberOfMembers and the member list, a user's networks and the networks' members).
 */
export async function checkLedger(api: CrashClient, f: CrashFixture, ledger: CrashLedger): Promise<CrashVerdict> {
	const verdict: CrashVerdict = {
		acknowledgedChecked: 0,
		cutOff: { whole: 0, absent: 0, repaired: 0, broken: 0 },
		problems: [],
	};
	const acked = (ok: boolean, what: string) => {
		verdict.acknowledgedChecked++;
		if (!ok) verdict.problems.push(`acknowledged ${what} is missing or changed`);
	};
	const cut = (judgement: Judgement, what: string) => {
		verdict.cutOff[judgement]++;
		if (judgement === "broken") verdict.problems.push(`cut-off ${what} is half there`);
	};
	const sameSet = (a: unknown[], b: unknown[]) => a.length === b.length && a.every(x => b.includes(x));

	// Posts: with their tags and recipients, all or nothing.
	const feeds = new Map<string, Body>();
	const feedOf = async (author: string) =>
		feeds.get(author) ?? feeds.set(author, await api.all(`/Users/${author}/Feed`)).get(author)!;
	const postWhole = async (id: string, p: CrashLedger["posts"][number]) => {
		const post = (await api.send("GET", `/Posts/${id}`)).body;
		const tags = ((post?.Tags ?? []) as Array<{ Value: string }>).map(t => t.Value);
		const recipients = (await api.all(`/Posts/${id}/Recipients`)).map(r => r.Id);
		return post?.Content === p.content && sameSet(tags, p.tags) && sameSet(recipients, p.recipients);
	};
	for (const p of ledger.posts) {
		if (p.id) acked(await postWhole(p.id, p), `post ${p.content}`);
		else {
			const found = (await feedOf(p.author)).filter(x => x.Content === p.content);
			cut(
				found.length === 0 ? "absent" : found.length === 1 && (await postWhole(found[0].Id, p)) ? "whole" : "broken",
				`post ${p.content}`,
			);
		}
	}

	// Comments: single records, found under their post.
	const comments = new Map<string, Body>();
	for (const c of ledger.comments) {
		const list = comments.get(c.post) ?? comments.set(c.post, await api.all(`/Posts/${c.post}/Comments`)).get(c.post)!;
		const found = list.filter(x => x.Content === c.content);
		if (c.id)
			acked(
				found.length === 1 &&
					found[0].Id === c.id &&
					(await api.send("GET", `/Comments/${c.id}`)).body?.Content === c.content,
				`comment ${c.content}`,
			);
		else cut(found.length === 0 ? "absent" : found.length === 1 ? "whole" : "broken", `comment ${c.content}`);
	}

	// Connections: each side has its counterpart.
	const sides = new Set<string>();
	const connected = new Set([...f.users, ...ledger.connections.flatMap(c => [c.a, c.b])]);
	for (const user of connected)
		for (const c of await api.all(`/Users/${user}/Connections`)) sides.add(`${String(c.OwnerId)}>${String(c.UserId)}`);
	for (const side of sides)
		if (!sides.has(side.split(">").reverse().join(">"))) verdict.problems.push(`connection ${side} has one side only`);
	for (const c of ledger.connections) {
		const there = sides.has(`${c.a}>${c.b}`) && sides.has(`${c.b}>${c.a}`);
		if (c.acked) acked(there, `connection ${c.a}>${c.b}`);
		else
			cut(
				there ? "whole" : sides.has(`${c.a}>${c.b}`) || sides.has(`${c.b}>${c.a}`) ? "broken" : "absent",
				`connection ${c.a}>${c.b}`,
			);
	}

	// Memberships: NumberOfMembers counts the members; each member's networks name the network.
	const members = new Map<string, string[]>();
	for (const network of f.networks) {
		const list = (await api.all(`/Networks/${network}/Members`)).map(m => String(m.UserId));
		members.set(network, list);
		const count = (await api.send("GET", `/Networks/${network}`)).body.NumberOfMembers;
		if (count !== list.length)
			verdict.problems.push(`network ${network} has NumberOfMembers ${String(count)} but ${list.length} members`);
	}
	const networksOf = new Map<string, string[]>();
	const userNetworks = async (user: string) =>
		networksOf.get(user) ??
		networksOf
			.set(
				user,
				(await api.all(`/Users/${user}/Networks`)).map(n => n.Id),
			)
			.get(user)!;
	for (const user of new Set([...f.users, ...ledger.members.map(m => m.user)])) {
		const mine = await userNetworks(user);
		for (const network of f.networks)
			if (mine.includes(network) !== members.get(network)!.includes(user))
				verdict.problems.push(`user ${user} and network ${network} disagree on the membership`);
	}
	for (const m of ledger.members) {
		const there = members.get(m.network)!.includes(m.user);
		if (m.acked) acked(there, `membership ${m.user} in ${m.network}`);
		else cut(there ? "whole" : "absent", `membership ${m.user} in ${m.network}`);
	}

	// Registrations: the session still signs in, and so does the password; a cut-off one signs in or can register again.
	for (const r of ledger.registrations) {
		const signIn = await api.send("POST", "/auth/credentials", { UserName: r.userName, Password: crashPassword }, {});
		if (r.userId) {
			const session = await api.send("GET", "/auth", undefined, { "X-ss-id": r.session! });
			acked(
				signIn.status === 200 &&
					signIn.body.UserId === r.userId &&
					session.status === 200 &&
					session.body.UserId === r.userId,
				`registration ${r.userName}`,
			);
		} else if (signIn.status === 200) cut("whole", `registration ${r.userName}`);
		else {
			const again = await api.send(
				"POST",
				"/register",
				{ UserName: r.userName, Password: crashPassword, FirstName: "Reg", LastName: "Again" },
				{},
			);
			cut(
				again.status === 200 ? "absent" : "broken",
				`registration ${r.userName} (sign-in ${signIn.status}, registering again ${again.status})`,
			);
		}
	}

	// Profile updates: FirstName and LastName of one version, no older than the last acknowledged.
	for (const [user, v] of ledger.profiles) {
		const record = (await api.send("GET", `/Users/${user}`)).body;
		const version = Number(/^First(\d+)$/.exec(String(record.FirstName))?.[1] ?? 0);
		const whole = record.LastName === `Last${version}` || (version === 0 && v.acked === 0);
		acked(
			whole && version >= v.acked && version <= v.tried,
			`profile of ${user} (v${v.acked}..v${v.tried}, found ${String(record.FirstName)} ${String(record.LastName)})`,
		);
		if (v.tried > v.acked) cut(!whole ? "broken" : version > v.acked ? "whole" : "absent", `profile update of ${user}`);
	}

	// Reservation conversions: an account that signs in, with the venue and the network; or none, and the
	// reservation still converts. A conversion cut off midway stays pending, by design, until a retry after
	// its lease undoes it and converts afresh (reservations.conversion.ts): judged "repaired" when that works.
	const lacking = async (userId: string) => {
		const lacks = [];
		if (!(await api.all(`/Users/${userId}/Networks`)).some(n => n.Id === f.networks[0]))
			lacks.push("the user's networks lack the network");
		if (!(await api.all(`/Networks/${f.networks[0]}/Members`)).some(m => m.UserId === userId))
			lacks.push("the network's members lack the user");
		if (!(await api.all(`/Users/${userId}/Venues`)).some(v => v.Id === f.venue))
			lacks.push("the user's venues lack the venue");
		return lacks.join(", ");
	};
	const convertAgain = async (c: CrashLedger["conversions"][number]) => {
		const deadline = Date.now() + 60_000;
		for (let waited = false; ; waited = true) {
			const r = await api.send(
				"POST",
				`/Reservations/${c.reservation}/Convert`,
				{ UserName: c.userName, Password: crashPassword },
				{},
			);
			const pending = r.status === 409 && /being converted/.test(JSON.stringify(r.body));
			if (!pending || Date.now() > deadline) return { reply: r, waited };
			await new Promise(resolve => setTimeout(resolve, 1000));
		}
	};
	for (const c of ledger.conversions) {
		const signIn = await api.send("POST", "/auth/credentials", { UserName: c.userName, Password: crashPassword }, {});
		const lacks = signIn.status === 200 ? await lacking(String(signIn.body.UserId)) : `sign-in ${signIn.status}`;
		if (c.userId) acked(!lacks && signIn.body.UserId === c.userId, `conversion ${c.userName} (${lacks})`);
		else if (!lacks) cut("whole", `conversion ${c.userName}`);
		else {
			const { reply, waited } = await convertAgain(c);
			const after =
				reply.status === 200 ? await lacking(String(reply.body.UserId)) : `converting again ${reply.status}`;
			cut(
				after ? "broken" : signIn.status === 200 || waited ? "repaired" : "absent",
				`conversion ${c.userName} (${lacks}; then ${after || "converted"})`,
			);
		}
	}

	// Media: a record always has its bytes; acknowledged uploads come back byte-identical.
	const bytesOf = async (id: string) => {
		const r = await api.send("GET", `/media/${id}`);
		return r.status === 200 ? sha(r.bytes) : `status ${r.status}`;
	};
	const pictures = new Map<string, Body>();
	for (const m of ledger.media) {
		if (m.id) acked((await bytesOf(m.id)) === m.sha, `${m.kind} ${m.id}`);
		else if (m.kind === "picture") {
			const list =
				pictures.get(m.owner) ?? pictures.set(m.owner, await api.all(`/Users/${m.owner}/Pictures`)).get(m.owner)!;
			const shas = await Promise.all(list.filter(p => !ledger.media.some(x => x.id === p.Id)).map(p => bytesOf(p.Id)));
			cut(shas.includes(m.sha) ? "whole" : "absent", `picture of ${m.owner}`);
		}
	}
	for (const list of pictures.values())
		for (const p of list)
			if ((await api.send("GET", `/media/${p.Id}`)).status !== 200)
				verdict.problems.push(`picture ${p.Id} has a record but no bytes`);

	// Work items: no map without its item, every acknowledged item has its map; no reference is blocked.
	for (const w of ledger.workItems) {
		const maps = (await api.send("GET", `/ServiceMaps?ReferenceId=${w.ref}&SystemId=${f.system}`)).body.map(m =>
			String(m.WorkItemId),
		);
		if (w.id)
			acked(
				maps.length === 1 && maps[0] === w.id && (await api.send("GET", `/WorkItems/${w.id}`)).status === 200,
				`work item ${w.ref}`,
			);
		else if (maps.length)
			cut(
				maps.length === 1 && (await api.send("GET", `/WorkItems/${maps[0]}`)).status === 200 ? "whole" : "broken",
				`work item ${w.ref}`,
			);
		else
			cut(
				(
					await api.send("POST", "/WorkItems", {
						ShortDescription: "retry",
						ReferenceId: w.ref,
						SystemId: f.system,
						IsMappingRequired: true,
					})
				).status === 200
					? "absent"
					: "broken",
				`work item ${w.ref}`,
			);
	}

	// Blocks: an acknowledged one is there and ended the connection. A cut-off one is absent, whole, or there with the
	// connection left, which the block's retry ends (then judged repaired).
	const blockState = async (b: CrashLedger["blocks"][number]) => ({
		blocked: (await api.all(`/Users/${b.a}/Blocks`)).some(x => x.BlockedId === b.b),
		connected: (await api.all(`/Users/${b.b}/Connections`)).length > 0,
	});
	for (const b of ledger.blocks) {
		const { blocked, connected } = await blockState(b);
		if (b.acked) acked(blocked && !connected, `block ${b.a}>${b.b}`);
		else if (!blocked || !connected) cut(blocked ? "whole" : "absent", `block ${b.a}>${b.b}`);
		else {
			const retried = await api.send("POST", "/Blocks", { OwnerId: b.a, BlockedId: b.b });
			const after = await blockState(b);
			cut(retried.status === 200 && after.blocked && !after.connected ? "repaired" : "broken", `block ${b.a}>${b.b}`);
		}
	}

	// Account deletions: acknowledged ones end gone (the sweep finishes one left pending or cut off: the checks wait
	// for it), cut-off ones too, or untouched; never an account without its post, nor one marked and left so.
	const stateOf = async (d: CrashLedger["deletions"][number]) => {
		const [user, post] = [await api.send("GET", `/Users/${d.userId}`), await api.send("GET", `/Posts/${d.postId}`)];
		if (user.status === 404 && post.status === 404) return "gone";
		if (user.status === 200 && post.status === 200 && user.body.Cloaked !== true) return "untouched";
		return `under way (user ${user.status}, post ${post.status})`;
	};
	for (const d of ledger.deletions) {
		let state = await stateOf(d);
		for (const deadline = Date.now() + 20_000; state.startsWith("under way") && Date.now() < deadline;) {
			await new Promise(resolve => setTimeout(resolve, 500));
			state = await stateOf(d);
		}
		if (d.acked) acked(state === "gone", `deletion of ${d.userId} (${state})`);
		else cut(state === "gone" ? "whole" : state === "untouched" ? "absent" : "broken", `deletion of ${d.userId}`);
	}
	return verdict;
}
