import { ServerResponse } from "node:http";
import { PlazaConfig } from "../../shared/config";
import { callerOf, RequestMeta } from "../../shared/caller";
import { clientAddress } from "../client-address";
import { refuseCrossSiteStream } from "../cross-site";
import { sendJson } from "../respond";
import { GatewayRequest, PageHandler } from "../request";
import { EventStreams } from "./event-streams";

/**
 * ServiceStack's Server Events endpoints: the stream, its heartbeat and unregister (by the
 * subscription's id, from the address that opened it; a heartbeat also from its caller), the subscribers, and the two
 * requests
 * ServerEventsClient sends through the generic route (GetEventSubscribers, UpdateEventSubscriber).
 */
export function eventPages(config: PlazaConfig, streams: () => EventStreams): Record<string, PageHandler> {
	const address = (req: GatewayRequest) => clientAddress(req, config.trustProxy);
	const run = (work: (req: GatewayRequest, res: ServerResponse) => Promise<void> | void): PageHandler => {
		return (req, res, next) => {
			try {
				Promise.resolve(work(req, res)).catch(next);
			} catch (err) {
				next(err);
			}
		};
	};
	const heartbeat = run((req, res) => {
		streams().pulse(idOf(req.$params), address(req), callerOf(req.$ctx));
		res.statusCode = 200;
		res.end();
	});
	const unregister = run((req, res) => sendJson(req, res, 200, streams().unregister(idOf(req.$params), address(req))));
	const subscribers = run((req, res) =>
		sendJson(
			req,
			res,
			200,
			streams().subscribers(callerOf(req.$ctx), listOf(req.$params.channels ?? req.$params.channel)),
		),
	);
	const update = run((req, res) => {
		const p = req.$params;
		streams().update(
			idOf(p),
			address(req),
			listOf(p.subscribeChannels ?? p.SubscribeChannels),
			listOf(p.unsubscribeChannels ?? p.UnsubscribeChannels),
		);
		sendJson(req, res, 200, {});
	});
	return {
		"GET /event-stream": run(async (req, res) => {
			refuseCrossSiteStream(req, config);
			const channels = listOf(req.$params.channels ?? req.$params.channel);
			const lastEventId = req.headers["last-event-id"];
			await streams().open({
				ctx: req.$ctx,
				res,
				address: address(req),
				baseUrl: (req.$ctx.meta as RequestMeta).baseUrl ?? "",
				channels: channels.length ? channels : ["*"],
				lastEventId: typeof lastEventId === "string" && lastEventId !== "" ? lastEventId : undefined,
			});
		}),
		"POST /event-heartbeat": heartbeat,
		"GET /event-heartbeat": heartbeat,
		"POST /event-unregister": unregister,
		"GET /event-unregister": unregister,
		"DELETE /event-unregister": unregister,
		"GET /event-subscribers": subscribers,
		"GET /json/reply/GetEventSubscribers": subscribers,
		"POST /event-subscribers/:id": update,
		"POST /json/reply/UpdateEventSubscriber": update,
	};
}

/** The subscription id a request names (`?id=`, a path's `{id}`, a body's `Id`). */
function idOf(params: Record<string, unknown>): string {
	const id = params.id ?? params.Id;
	return typeof id === "string" ? id : "";
}

/**
 * Channels as a query or body gives them (`a,b`, repeated, or a JSON array): at most 50 plain names, which a frame's
 * selector can hold.
 */
function listOf(value: unknown): string[] {
	const items = Array.isArray(value) ? value.map(String) : typeof value === "string" ? value.split(",") : [];
	return [...new Set(items.map(s => s.trim()).filter(s => /^[\w.:*-]{1,100}$/.test(s)))].slice(0, 50);
}
