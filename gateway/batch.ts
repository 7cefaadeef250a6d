import { ServerResponse } from "node:http";
import { Operation } from "../shared/catalogue";
import { failures, PlazaError } from "../shared/errors";
import { writerFor } from "../shared/wire/write";
import { performOperation, recordPerformed } from "./perform";
import { GatewayRequest } from "./request";

/** The most requests one batch may hold: each runs an operation, and every answer is held until the last. */
export const maxBatchRequests = 100;

/**
 * ServiceStack's header on a batch's answer: how many of its requests completed (before the failure, on a failed one).
 */
export const batchCompletedHeader = "X-AutoBatch-Completed";

/**
 * Runs ServiceStack's auto-batched requests (`POST /json/reply/FindPost[]`) in order, each through a single call's
 * checks and spending one more of the caller's budget; the body is read under one request's limit. Sets
 * `X-AutoBatch-Completed` (none on an empty batch); the first failure stops the batch, keeps what ran before it (as
 * ServiceStack does) and sets `req.$autoBatchIndex`.
 */
export async function performBatch(
	op: Operation,
	req: GatewayRequest,
	res: ServerResponse,
	spendOneMore: () => Promise<void>,
): Promise<unknown[]> {
	const requests = batchRequestsOf(req.body);
	const write = writerFor(op.response);
	const answers: unknown[] = [];
	for (const [completed, params] of requests.entries()) {
		try {
			if (completed > 0) await spendOneMore();
			answers.push(write(await performOperation(req.$ctx, req, op, "generic", params)));
		} catch (err) {
			res.setHeader(batchCompletedHeader, String(completed));
			req.$autoBatchIndex = completed;
			throw err;
		}
		// Each request is counted in the metrics once: the failure's own status is counted where it is answered.
		recordPerformed(req.$ctx, req, 200);
		req.$operation = undefined;
	}
	if (answers.length) res.setHeader(batchCompletedHeader, String(answers.length));
	return answers;
}

/** The batch's requests, all checked before any runs (as ServiceStack reads the whole array first). */
function batchRequestsOf(body: unknown): Record<string, unknown>[] {
	if (!Array.isArray(body)) throw failures.invalidBody("A batch's body must be a JSON array of requests");
	if (body.length > maxBatchRequests)
		throw new PlazaError(
			413,
			"PayloadTooLarge",
			`A batch holds at most ${maxBatchRequests} requests; this one holds ${body.length}`,
		);
	return body.map((request: unknown, i) => {
		if (request === null || typeof request !== "object" || Array.isArray(request))
			throw failures.invalidBody(`Request ${i} of the batch is not a JSON object`);
		// A null prototype: a request's own "__proto__" key stays a field and never becomes the object's prototype.
		return Object.assign(Object.create(null) as Record<string, unknown>, request);
	});
}
