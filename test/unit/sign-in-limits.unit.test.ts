import { Context } from "moleculer";
import { AddAttempts, AttemptTotals, WindowCount } from "../../shared/attempts";
import { defaultConfig } from "../../shared/config";
import { SignInLimits } from "../../services/users/sign-in-limits";

/**
 * The limits service's counters in memory, reached as `ctx.call` reaches them. `limits.windows`
 * answers only once `readers` attempts have all read: a burst whose reads all come before its counts,
 * as a loaded node serves one (CI saw it on PostgreSQL, where each call is a round trip).
 */
function countersReadTogether(readers: number) {
	const counts = new Map<string, Map<number, { windowMs: number; count: number }>>();
	let waiting: Array<() => void> = [];
	const windows = async (keys: string[]): Promise<WindowCount[]> => {
		await new Promise<void>(resolve => {
			waiting.push(resolve);
			if (waiting.length < readers) return;
			waiting.forEach(release => release());
			waiting = [];
		});
		return keys.flatMap(key => [...(counts.get(key) ?? [])].map(([window, c]) => ({ key, window, ...c })));
	};
	const add = ({ window, windowMs, counts: added }: AddAttempts): AttemptTotals =>
		Object.fromEntries(
			Object.entries(added).map(([key, n]) => {
				const perWindow = counts.get(key) ?? new Map<number, { windowMs: number; count: number }>();
				counts.set(key, perWindow);
				const now = (perWindow.get(window)?.count ?? 0) + n;
				perWindow.set(window, { windowMs, count: now });
				return [key, now];
			}),
		);
	const call = async (action: string, params: { keys: string[] } & AddAttempts) => {
		if (action === "limits.windows") return windows(params.keys);
		if (action === "limits.add") return add(params);
		if (action === "limits.clear") return (params.keys.forEach(key => counts.delete(key)), params.keys.length);
		throw new Error(`unexpected call ${action}`);
	};
	return { ctx: { call, requestID: "test" } as unknown as Context, release: () => (readers = 1) };
}

describe("failed sign-ins counted by SignInLimits", () => {
	test("a burst read together and refused for its pair spends nothing of the account's budget: the owner still signs in from a new address", async () => {
		const burst = 30;
		const counters = countersReadTogether(burst);
		const limits = new SignInLimits(
			{ ...defaultConfig().auth, maxFailuresPerAccount: 5, maxFailuresPerAddress: 20, accountFailureBudget: 10 },
			() => undefined,
		);
		const guesses = await Promise.allSettled(
			Array.from({ length: burst }, () =>
				limits.attempt(
					counters.ctx,
					{ login: "alice", accountId: "alice-id", address: "203.0.113.66" },
					async () => false,
				),
			),
		);
		// Five were tried (401 for the caller), the rest refused with 429 before any password was checked.
		expect(guesses.filter(g => g.status === "fulfilled")).toHaveLength(5);
		const refused = guesses.flatMap(g => (g.status === "rejected" ? [g.reason as unknown] : []));
		expect(refused).toEqual(Array(burst - 5).fill(expect.objectContaining({ code: 429 })));

		counters.release();
		await expect(
			limits.attempt(
				counters.ctx,
				{ login: "alice", accountId: "alice-id", address: "198.51.100.7" },
				async () => true,
			),
		).resolves.toBe(true);
	});
});
