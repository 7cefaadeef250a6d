export const crashAdminKey = "crash-admin-key-0123456789abcdef0123456789";

/** A record or a list of them, as the crash checks read them. */
export type Body = Record<string, unknown> & { Id: string } & Array<Record<string, unknown> & { Id: string }>;

export interface Reply {
	status: number;
	body: Body;
	bytes: Buffer;
}

/**
 * Requests to Plaza's gateway, as the administrator unless other headers say otherwise. A request
 * the server never answered (killed, reset) throws; the caller then counts the write as cut off.
 */
export class CrashClient {
	constructor(public url: string) {}

	async send(
		method: string,
		route: string,
		body?: unknown,
		headers: Record<string, string> = { Authorization: `Bearer ${crashAdminKey}` },
		timeoutMs = 20_000,
	): Promise<Reply> {
		const res = await fetch(this.url + route, {
			method,
			headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(timeoutMs),
		});
		const bytes = Buffer.from(await res.arrayBuffer());
		const text = bytes.toString("utf8");
		return {
			status: res.status,
			bytes,
			body: (text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : undefined) as Body,
		};
	}

	/** Every page of a list route (Limit 1000 each). */
	async all(route: string): Promise<Body> {
		const out: Array<Record<string, unknown> & { Id: string }> = [];
		for (let offset = 0; ; offset += 1000) {
			const page = await this.send("GET", `${route}${route.includes("?") ? "&" : "?"}Limit=1000&Offset=${offset}`);
			if (page.status !== 200)
				throw new Error(`GET ${route}: ${page.status} ${page.bytes.toString("utf8").slice(0, 200)}`);
			out.push(...page.body);
			if (page.body.length < 1000) return out as Body;
		}
	}
}
