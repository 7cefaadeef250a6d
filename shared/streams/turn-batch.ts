/**
 * Items added during one turn of the event loop, sent together on the next: a commit group answers
 * its writes in one turn, so their announcements leave as one packet instead of one each. Every
 * `add` of a turn settles with that turn's one `send`.
 */
export class TurnBatch<T> {
	private pending: T[] = [];

	private sent: Promise<void> | undefined;

	constructor(private readonly send: (items: T[]) => Promise<unknown>) {}

	add(item: T): Promise<void> {
		this.pending.push(item);
		this.sent ??= new Promise<void>(resolve => setImmediate(resolve)).then(() => {
			const items = this.pending;
			this.pending = [];
			this.sent = undefined;
			return this.send(items).then(() => undefined);
		});
		return this.sent;
	}
}
