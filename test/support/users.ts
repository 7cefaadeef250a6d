import { TestPlaza, WireRecord } from "./plaza";

let counter = 0;

/** Creates a user as the administrator and returns its record; fields override the defaults. */
export async function createUser(plaza: TestPlaza, fields: Record<string, unknown> = {}): Promise<WireRecord> {
	counter += 1;
	const reply = await plaza.admin("POST", "/Users", {
		FirstName: `First${counter}`,
		LastName: `Last${counter}`,
		...fields,
	});
	if (reply.status !== 200) throw new Error(`CreateUser failed: ${reply.status} ${reply.text}`);
	return reply.body;
}
