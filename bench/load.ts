import autocannon from "autocannon";

/** One request of a scenario: what to send, varied per request by its sequence number. */
export interface RequestSpec {
	method: "GET" | "POST" | "PUT";
	path: (i: number, connection: number) => string;
	/** The body of request `i`, sent on `connection` (whose headers say who sends it). */
	body?: (i: number, connection: number) => unknown;
	/** Headers of one connection (its credentials), chosen once per connection. */
	headers?: (connection: number) => Record<string, string>;
}

export interface LoadResult {
	rps: number;
	/** Answers received in all (any status). */
	requests: number;
	p50: number;
	p99: number;
	/** Connection errors and timeouts, and answers that were not 2xx. */
	errors: number;
	non2xx: number;
}

/**
 * Drives `base` with `connections` concurrent clients for `seconds` (autocannon, one request in flight per connection).
 */
export async function load(base: string, spec: RequestSpec, seconds: number, connections = 50): Promise<LoadResult> {
	let sequence = 0;
	let nextConnection = 0;
	const result = await autocannon({
		url: base,
		connections,
		duration: seconds,
		timeout: 10,
		requests: [
			{
				setupRequest: (request, context: { connection?: number }) => {
					context.connection ??= nextConnection++;
					const i = sequence++;
					const body = spec.body?.(i, context.connection);
					return {
						...request,
						method: spec.method,
						path: spec.path(i, context.connection),
						headers: {
							...(body === undefined ? {} : { "content-type": "application/json" }),
							...(spec.headers?.(context.connection) ?? {}),
						},
						body: body === undefined ? undefined : JSON.stringify(body),
					};
				},
			},
		],
	});
	return {
		rps: result.requests.average,
		requests: result.requests.total,
		p50: result.latency.p50,
		p99: result.latency.p99,
		errors: result.errors + result.timeouts,
		non2xx: result.non2xx,
	};
}

/** One answer of Plaza to the scenario's first request: the bytes a reference server answers. */
export async function sample(
	url: string,
	spec: RequestSpec,
): Promise<{ status: number; contentType: string; body: Buffer }> {
	const body = spec.body?.(0, 0);
	const res = await fetch(url + spec.path(0, 0), {
		method: spec.method,
		headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(spec.headers?.(0) ?? {}) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const bytes = Buffer.from(await res.arrayBuffer());
	if (res.status !== 200) throw new Error(`${spec.method} ${spec.path(0, 0)}: ${res.status} ${bytes.toString()}`);
	return { status: res.status, contentType: res.headers.get("content-type") ?? "application/json", body: bytes };
}
