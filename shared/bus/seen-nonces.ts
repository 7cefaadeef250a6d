/**
 * The nonces of the packets opened lately, so that a packet replayed within its time window is
 * seen again. Two generations, each living one lifespan (window + skew): a nonce is remembered at
 * least a lifespan, as long as its packet may still be accepted, and memory stays bounded.
 */
export class SeenNonces {
	private current = new Set<string>();
	private previous = new Set<string>();
	private rotatedAt: number;

	constructor(
		private readonly lifespanMs: number,
		private readonly maxPerGeneration: number,
		private readonly now: () => number,
	) {
		this.rotatedAt = now();
	}

	/**
	 * "new" the first time a nonce is added; "replayed" after; "overloaded" when the memory is full (refused, never let
	 * through unchecked).
	 */
	add(nonce: string): "new" | "replayed" | "overloaded" {
		this.rotate();
		if (this.current.has(nonce) || this.previous.has(nonce)) return "replayed";
		if (this.current.size >= this.maxPerGeneration) return "overloaded";
		this.current.add(nonce);
		return "new";
	}

	private rotate(): void {
		const now = this.now();
		if (now - this.rotatedAt < this.lifespanMs) return;
		// After two lifespans without a packet, the previous generation is past any window too.
		this.previous = now - this.rotatedAt < 2 * this.lifespanMs ? this.current : new Set();
		this.current = new Set();
		this.rotatedAt = now;
	}
}
