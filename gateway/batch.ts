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
 * Runs ServiceStack's auto-batched requests (`POST /json/reply/FindPost[]` with a JSON array of
 * FindPost requests) in order, each as the same caller and through the same checks as a single call
 * (access, validation and actor fields in the operations middleware; each request after the first
 * spends one more of the caller's request budget, so a batch buys no extra requests), and returns
 * their answers written for the wire, with `X-AutoBatch-Completed` set to their number (none on an
 * empty batch, as in ServiceStack). The first failure stops the batch: it is thrown with the header
 * set to the number of requests completed before it, whose changes stay (as ServiceStack's do), and
 * `req.$autoBatchIndex` set to its index. The whole body is read under one request's limit.
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
