import fs from "node:fs";
import http from "node:http";

/**
 * The reference a scenario is measured against: a raw node:http server that reads the request and
 * answers the same bytes Plaza answered (status, content type, body), with no work in between.
 * Usage: node reference-server.js <answer.json>; prints the port it listens on.
 */
const answer = JSON.parse(fs.readFileSync(process.argv[2], "utf8")) as {
	status: number;
	contentType: string;
	body: string;
};
const body = Buffer.from(answer.body, "base64");

const server = http.createServer((req, res) => {
	req.resume();
	req.on("end", () => {
		res.writeHead(answer.status, { "Content-Type": answer.contentType, "Content-Length": body.length });
		res.end(body);
	});
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(String((server.address() as { port: number }).port)));
