import net from "node:net";

/** A raw answer: the status line's code and everything after it, as bytes read as latin1. */
export interface RawAnswer {
	status: number;
	text: string;
}

/**
 * Sends a request exactly as written, byte for byte: a header with a NUL or bytes that are not UTF-8,
 * a request line with raw bytes, which fetch and every client library refuse to send. One request per
 * connection (Connection: close is added); the answer is read to the end.
 */
export function rawRequest(
	url: string,
	requestLine: Buffer | string,
	headers: Array<[string, Buffer | string]>,
	body: Buffer | string = "",
): Promise<RawAnswer> {
	const { hostname, port } = new URL(url);
	const bytes = (b: Buffer | string) => (typeof b === "string" ? Buffer.from(b, "latin1") : b);
	const payload = bytes(body);
	const lines = [
		bytes(requestLine),
		...[
			...headers,
			["Host", `${hostname}:${port}`] as const,
			["Connection", "close"] as const,
			["Content-Length", String(payload.length)] as const,
		].map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `), bytes(value)])),
	];
	const head = Buffer.concat([...lines.flatMap(line => [line, Buffer.from("\r\n")]), Buffer.from("\r\n")]);
	return new Promise((resolve, reject) => {
		const socket = net.connect(Number(port), hostname);
		const chunks: Buffer[] = [];
		socket.setTimeout(10_000, () => socket.destroy(new Error("No answer within 10 s")));
		socket.on("data", chunk => chunks.push(chunk));
		socket.on("error", reject);
		socket.on("close", () => {
			const text = Buffer.concat(chunks).toString("latin1");
			const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
			if (status) resolve({ status: Number(status[1]), text });
			else reject(new Error(`No HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
		});
		socket.write(Buffer.concat([head, payload]));
	});
}
