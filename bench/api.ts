/** Calls to Plaza's API outside a measured load (sign-ups, seeding, checks), and running them a few at a time. */

/** One JSON call; anything but a 2xx throws with the answer's text. */
export async function call(
	base: string,
	method: string,
	path: string,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
	const res = await fetch(base + path, {
		method,
		headers: { "Content-Type": "application/json", ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
	return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Runs `work` for 0…count−1, `concurrency` at a time (PostgreSQL takes several; SQLite serialises anyway). */
export async function each(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) await work(next++);
		}),
	);
}

/** `attempt`, again every 100 ms until it succeeds (for up to a minute): the other nodes have been found. */
export async function untilAnswered<T>(attempt: () => Promise<T>): Promise<T> {
	for (let i = 0; ; i++) {
		try {
			return await attempt();
		} catch (err) {
			if (i >= 600) throw err;
			await new Promise(resolve => setTimeout(resolve, 100));
		}
	}
}
