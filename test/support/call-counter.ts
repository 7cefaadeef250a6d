import { CallingOptions, Middleware } from "moleculer";

/** A broker middleware that counts the calls made to each action, between services included. */
export class CallCounter {
	private counts = new Map<string, number>();

	readonly middleware: Middleware = {
		name: "CallCounter",
		call: ((next: (name: string, params?: unknown, opts?: CallingOptions) => Promise<unknown>) =>
			(actionName: string, params?: unknown, opts?: CallingOptions) => {
				this.counts.set(actionName, (this.counts.get(actionName) ?? 0) + 1);
				return next(actionName, params, opts);
			}) as unknown as Middleware["call"], // Moleculer types the hook as returning a promise; it returns the wrapped call
	};

	reset(): void {
		this.counts.clear();
	}

	/**
	 * Calls per action since the last reset, without the gateway's own and the request budget's
	 * (limits.add: its counts go in batches on a timer, not one call per request).
	 */
	snapshot(): Record<string, number> {
		return Object.fromEntries(
			[...this.counts]
				.filter(([name]) => !name.startsWith("gateway.") && !name.startsWith("$") && name !== "limits.add")
				.sort(),
		);
	}
}
