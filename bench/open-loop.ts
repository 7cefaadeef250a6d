import http from "node:http";

/** One request of an open-loop load, and the kind it is counted under. */
export interface OpenRequest {
	kind: string;
	method: "GET" | "POST";
	path: string;
	headers: Record<string, string>;
	body?: string;
}

/** One step of the ladder: latencies from when each request was due, over the requests due after the warm-up. */
export interface StepResult {
	rate: number;
	/** Answers to the measured requests a second, over the step (longer if the last answers came late). */
	achieved: number;
	p50: number;
	p99: number;
	max: number;
	non2xx: number;
	/** Sockets that failed, and requests unanswered after 10 s. */
	errors: number;
	/** p99 of each kind alone. */
	p99ByKind: Record<string, number>;
	/** How late the generator sent requests (p99): when high, it, not Plaza, was the bottleneck. */
	sendLagP99: number;
	passed: boolean;
}

/** The bar of a step: every answer a 2xx, and p99 within this. */
export const passP99Ms = 50;
const timeoutMs = 10_000;

const ascending = (values: number[]) => values.sort((a, b) => a - b);
const percentile = (sorted: number[], p: number) =>
	sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;

/**
 * Sends `next()`'s requests at `rate` a second with exponential gaps (Poisson arrivals) for
 * `warmupSeconds + seconds`, never waiting for answers (a socket per request in flight: `agent`
 * needs keep-alive and no small cap). Each latency counts from when the request was due, so a
 * stalled server (or generator) shows in it instead of slowing the load down (coordinated omission).
 */
export async function openLoopStep(
	base: string,
	agent: http.Agent,
	next: () => OpenRequest,
	rand: () => number,
	rate: number,
	seconds: number,
	warmupSeconds: number,
): Promise<StepResult> {
	const { hostname, port } = new URL(base);
	const start = performance.now();
	const measuredFrom = start + warmupSeconds * 1000;
	const end = measuredFrom + seconds * 1000;
	const latencies: Array<{ kind: string; ms: number }> = [];
	const lags: number[] = [];
	let non2xx = 0;
	let errors = 0;
	let lastAnswer = measuredFrom;
	const sent: Array<Promise<void>> = [];
	const send = (request: OpenRequest, due: number) => {
		const measured = due >= measuredFrom;
		if (measured) lags.push(performance.now() - due);
		const body = request.body === undefined ? undefined : Buffer.from(request.body);
		const headers = body
			? { ...request.headers, "Content-Type": "application/json", "Content-Length": String(body.length) }
			: request.headers;
		const done = new Promise<void>(resolve => {
			let settled = false;
			// Once per request: an answer read to its end, or a failure (a socket error, a timeout, an answer cut short).
			const settle = (status?: number) => {
				if (settled) return;
				settled = true;
				const now = performance.now();
				if (!measured) return resolve();
				if (status === undefined) errors++;
				else {
					latencies.push({ kind: request.kind, ms: now - due });
					if (status < 200 || status > 299) non2xx++;
					lastAnswer = Math.max(lastAnswer, now);
				}
				resolve();
			};
			const req = http.request(
				{ hostname, port, method: request.method, path: request.path, headers, agent, timeout: timeoutMs },
				res => {
					res.resume();
					res.on("end", () => settle(res.statusCode ?? 0));
					res.on("close", () => settle());
				},
			);
			req.on("timeout", () => req.destroy(new Error("timed out")));
			req.on("error", () => settle());
			req.end(body);
		});
		sent.push(done);
	};
	for (let due = start - (Math.log(1 - rand()) * 1000) / rate; due < end; due -= (Math.log(1 - rand()) * 1000) / rate) {
		const wait = due - performance.now();
		// setTimeout sleeps a whole millisecond at least: requests due sooner go now, on time or a little late.
		if (wait >= 1) await new Promise(resolve => setTimeout(resolve, wait));
		send(next(), due);
	}
	await Promise.all(sent);
	const all = ascending(latencies.map(l => l.ms));
	const byKind: Record<string, number[]> = {};
	for (const { kind, ms } of latencies) (byKind[kind] ??= []).push(ms);
	const p99 = percentile(all, 99);
	return {
		rate,
		achieved: all.length / (Math.max(end, lastAnswer) / 1000 - measuredFrom / 1000),
		p50: percentile(all, 50),
		p99,
		max: all.at(-1) ?? 0,
		non2xx,
		errors,
		p99ByKind: Object.fromEntries(Object.entries(byKind).map(([kind, ms]) => [kind, percentile(ascending(ms), 99)])),
		sendLagP99: percentile(ascending(lags), 99),
		passed: non2xx === 0 && errors === 0 && all.length > 0 && p99 <= passP99Ms,
	};
}

/**
 * The steps of `rates` in turn, up to the first that fails; capacity is the highest rate that passed (0 if none did).
 */
export async function openLoopLadder(
	base: string,
	next: () => OpenRequest,
	rand: () => number,
	rates: number[],
	seconds: number,
	warmupSeconds: number,
	report: (step: StepResult) => void,
): Promise<{ capacity: number; steps: StepResult[] }> {
	// A socket per request in flight, kept between requests: opening them is not what is measured.
	const agent = new http.Agent({ keepAlive: true, maxSockets: 4096, maxFreeSockets: 4096 });
	const steps: StepResult[] = [];
	try {
		for (const rate of rates) {
			const step = await openLoopStep(base, agent, next, rand, rate, seconds, warmupSeconds);
			steps.push(step);
			report(step);
			if (!step.passed) break;
		}
	} finally {
		agent.destroy();
	}
	return { capacity: Math.max(0, ...steps.filter(s => s.passed).map(s => s.rate)), steps };
}

/** A step as one line: asked and achieved rate, p50, p99, max, failures. */
export function formatStep(step: StepResult): string {
	const ms = (v: number) => `${v.toFixed(1)} ms`;
	const kinds = Object.entries(step.p99ByKind)
		.map(([kind, p99]) => `${kind} ${ms(p99)}`)
		.join(", ");
	const rates = `${String(step.rate).padStart(5)} req/s asked, ${step.achieved.toFixed(1).padStart(6)} achieved`;
	const figures = `p50 ${ms(step.p50)}, p99 ${ms(step.p99)}, max ${ms(step.max)}, non-2xx ${step.non2xx}, errors ${step.errors}`;
	return `  ${rates}: ${figures} (p99 by kind: ${kinds}; sent late p99 ${ms(step.sendLagP99)}) ${step.passed ? "pass" : "FAIL"}`;
}
