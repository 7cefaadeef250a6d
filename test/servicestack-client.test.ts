import { JsonServiceClient, IReturn } from "@servicestack/client";
import { startPlaza, TestPlaza } from "./support/plaza";

/** Request DTOs as a ServiceStack client project declares them (its "Add ServiceStack Reference" output). */
class AuthenticateResponse {
	UserId?: string;
	SessionId?: string;
	UserName?: string;
	DisplayName?: string;
}

class Authenticate implements IReturn<AuthenticateResponse> {
	provider?: string;
	UserName?: string;
	Password?: string;
	RememberMe?: boolean;
	constructor(init?: Partial<Authenticate>) {
		Object.assign(this, init);
	}
	getTypeName() {
		return "Authenticate";
	}
	getMethod() {
		return "POST";
	}
	createResponse() {
		return new AuthenticateResponse();
	}
}

class User {
	Id?: string;
	FirstName?: string;
	LastName?: string;
}

class FindUser implements IReturn<User> {
	Id?: string;
	constructor(init?: Partial<FindUser>) {
		Object.assign(this, init);
	}
	getTypeName() {
		return "FindUser";
	}
	getMethod() {
		return "GET";
	}
	createResponse() {
		return new User();
	}
}

describe("a real ServiceStack client (@servicestack/client)", () => {
	let plaza: TestPlaza;
	beforeAll(async () => {
		plaza = await startPlaza();
	});
	afterAll(() => plaza.stop());

	test("signs in with Authenticate {provider:'credentials'} and calls an operation with the session it got", async () => {
		const user = await plaza.signUp({ FirstName: "Client", LastName: "Side" });
		const client = new JsonServiceClient(plaza.url);
		const auth = await client.post(new Authenticate({ provider: "credentials", UserName: user.userName, Password: user.password }));
		expect(auth.UserId).toBe(user.userId);
		expect(auth.SessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);

		const found = await client.get(new FindUser({ Id: user.userId }));
		expect(found).toMatchObject({ Id: user.userId, FirstName: "Client", LastName: "Side" });
	});

	test("gets a ResponseStatus error it understands for a wrong password", async () => {
		const client = new JsonServiceClient(plaza.url);
		await expect(client.post(new Authenticate({ provider: "credentials", UserName: "nobody", Password: "wrong password" }))).rejects.toMatchObject({
			responseStatus: { errorCode: "Unauthorized", message: "Invalid UserName or Password" },
		});
	});
});
