import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { RequestSpec } from "./load";
import { SeedManifest } from "./manifest";
import { mainScript } from "../test/support/process";

/** What the benchmark scripts share: seeding, signing in, and the requests of each scenario. */

/** Seeds `target` (--dir or --database-url) through `npm run seed`'s script; its manifest is written under `work`. */
export function seed(work: string, target: Record<string, string>, userCount: number, postCount: number): SeedManifest {
	const manifest = path.join(work, `manifest-${Date.now()}.json`);
	const flags = Object.entries({ ...target, users: String(userCount), posts: String(postCount), manifest }).flatMap(
		([k, v]) => [`--${k}`, v],
	);
	execFileSync(process.execPath, [path.join(path.dirname(mainScript), "bench", "seed.js"), ...flags], {
		stdio: ["ignore", "ignore", "inherit"],
	});
	return JSON.parse(fs.readFileSync(manifest, "utf8")) as SeedManifest;
}

/** Sessions of the manifest's first `count` users, signed in at `url`. */
export async function signIn(url: string, manifest: SeedManifest, count: number): Promise<string[]> {
	const sessions: string[] = [];
	for (const UserName of manifest.userNames.slice(0, count)) {
		const res = await fetch(`${url}/auth/credentials`, {
			method: "POST",
			headers: { "Content-Type": "application/json" },
			body: JSON.stringify({ UserName, Password: manifest.password }),
		});
		if (res.status !== 200) throw new Error(`sign-in of ${UserName}: ${res.status} ${await res.text()}`);
		sessions.push(((await res.json()) as { SessionId: string }).SessionId);
	}
	return sessions;
}

/** The read and write scenarios of one Plaza. */
export function scenarios(manifest: SeedManifest, sessions: string[]) {
	const as = (connection: number) => ({ "X-ss-id": sessions[connection % sessions.length] });
	const userOf = (connection: number) => manifest.userIds[connection % sessions.length];
	const pick = <T>(list: T[], i: number) => list[i % list.length];
	return {
		R1: {
			method: "GET",
			path: i => `/Users?Limit=50&Offset=${(i * 50) % Math.max(1, manifest.users - 50)}`,
			headers: as,
		} as RequestSpec,
		R2: { method: "GET", path: i => `/Posts/${pick(manifest.postsWithComments, i)}`, headers: as } as RequestSpec,
		R3common: {
			method: "GET",
			path: () => `/Search/Posts?TagNames=${manifest.commonTag}&Limit=20`,
			headers: as,
		} as RequestSpec,
		R3rare: {
			method: "GET",
			path: () => `/Search/Posts?TagNames=${manifest.rareTag}&Limit=20`,
			headers: as,
		} as RequestSpec,
		R4: { method: "GET", path: (_i, c) => `/Users/${userOf(c)}/Feed?Limit=20`, headers: as } as RequestSpec,
		// Second pages are never kept at the gateway: every request reads the store (what a first page costs after a
		// write).
		R3page2: {
			method: "GET",
			path: () => `/Search/Posts?TagNames=${manifest.commonTag}&Limit=20&Offset=20`,
			headers: as,
		} as RequestSpec,
		R4page2: {
			method: "GET",
			path: (_i, c) => `/Users/${userOf(c)}/Feed?Limit=20&Offset=20`,
			headers: as,
		} as RequestSpec,
		W1: {
			method: "POST",
			path: () => "/Posts",
			body: (i, c) => ({ AuthorId: userOf(c), Content: `Benchmark post ${i}`, Tags: ["bench", `t${i % 100}`] }),
			headers: as,
		} as RequestSpec,
		W2: {
			method: "POST",
			path: i => `/Posts/${pick(manifest.postsWithComments, i)}/Comments`,
			body: (i, c) => ({ AuthorId: userOf(c), Content: `Benchmark comment ${i}` }),
			headers: as,
		} as RequestSpec,
	};
}
