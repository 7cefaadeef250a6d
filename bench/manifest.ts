/** What `npm run seed` wrote, for the benchmark to aim at: written beside the data as seed-manifest.json. */
export interface SeedManifest {
	users: number;
	posts: number;
	/** Every seeded user's password. */
	password: string;
	/** A sample of seeded users (the first ones), who sign in to drive the load. */
	userNames: string[];
	userIds: string[];
	/** Public posts with exactly 10 comments (R2). */
	postsWithComments: string[];
	/** A tag on about a fifth of the posts, and one on about one post in ten thousand (R3). */
	commonTag: string;
	rareTag: string;
	seconds: number;
	/** The rate of the posts phase alone (each post with its tags, recipients and comments). */
	postsPerSecond: number;
}

export function parseArgs(argv: string[]): Record<string, string> {
	const args: Record<string, string> = {};
	for (let i = 0; i < argv.length; i++) {
		const name = /^--(.+)$/.exec(argv[i])?.[1];
		if (!name) continue;
		const next = argv[i + 1];
		if (next === undefined || next.startsWith("--")) args[name] = "true";
		else args[name] = argv[++i];
	}
	return args;
}
