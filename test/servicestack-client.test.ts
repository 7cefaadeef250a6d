import { JsonServiceClient } from "@servicestack/client";
import { Authenticate, FindUser } from "./support/client-dtos";
import { plazaForSuite } from "./support/plaza";

describe("a real ServiceStack client (@servicestack/client)", () => {
	const { plaza } = plazaForSuite({ services: ["users"] });

	test("signs in with Authenticate {provider:'credentials'} and calls an operation with the session it got", async () => {
		const user = await plaza.signUp({ FirstName: "Client", LastName: "Side" });
		const client = new JsonServiceClient(plaza.url);
		const auth = await client.post(
			new Authenticate({ provider: "credentials", UserName: user.userName, Password: user.password }),
		);
		expect(auth.UserId).toBe(user.userId);
		expect(auth.SessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);

		const found = await client.get(new FindUser({ Id: user.userId }));
		expect(found).toMatchObject({ Id: user.userId, FirstName: "Client", LastName: "Side" });
	});

	test("gets a ResponseStatus error it understands for a wrong password", async () => {
		const client = new JsonServiceClient(plaza.url);
		await expect(
			client.post(new Authenticate({ provider: "credentials", UserName: "nobody", Password: "wrong password" })),
		).rejects.toMatchObject({
			responseStatus: { errorCode: "Unauthorized", message: "Invalid UserName or Password" },
		});
	});
});
