import { TokensRepository } from "../services/users/tokens.repository";
import { MongoTokensRepository, tokensMongoMigrations } from "../services/users/tokens.mongo";
import { RefreshTokenRow, SigningKeyRow } from "../services/users/tokens.rows";
import { sessionsMigrations } from "../services/users/sessions.schema";
import { sessionsMongoMigrations } from "../services/users/sessions.mongo";
import { RepositoryContract } from "../shared/persistence/repository.mixin";
import { newGuid } from "../shared/wire/guid";
import { onStore, storeEngines } from "./support/engines";

let made = 0;

/** A new unused refresh token of `sessionKey` with a unique Id; fields override. */
function newToken(sessionKey: string, fields: Partial<RefreshTokenRow> = {}): RefreshTokenRow {
	made += 1;
	return {
		Id: `token-${newGuid()}`,
		SessionKey: sessionKey,
		CreatedTime: 10_000 + made,
		ExpiresTime: 90_000_000_000 + made,
		...fields,
	};
}

function newSigningKey(fields: Partial<SigningKeyRow> = {}): SigningKeyRow {
	made += 1;
	const kid = `kid-${made}`;
	return {
		Kid: kid,
		SealedPrivateKey: `sealed-${newGuid()}`,
		PublicJwk: JSON.stringify({ kty: "RSA", n: "n", e: "AQAB", kid, alg: "RS256", use: "sig" }),
		CreatedTime: 10_000 + made,
		...fields,
	};
}

describe.each(storeEngines)("the tokens repository on %s", engine => {
	const under = onStore<RepositoryContract<TokensRepository>>(engine, {
		domain: "sessions",
		sql: { migrations: sessionsMigrations, create: db => new TokensRepository(db) },
		mongo: {
			migrations: [...sessionsMongoMigrations, ...tokensMongoMigrations],
			create: store => new MongoTokensRepository(store),
		},
	});

	test("a token is used once: the first use marks it, a second gives it back marked; unknown ones are not", async () => {
		const token = newToken(newGuid());
		await under.repo.addRefreshToken(token);
		expect(await under.repo.useRefreshToken(token.Id, 50_000)).toStrictEqual({
			row: { ...token, UsedTime: 50_000 },
			firstUse: true,
		});
		expect(await under.repo.useRefreshToken(token.Id, 60_000)).toStrictEqual({
			row: { ...token, UsedTime: 50_000 },
			firstUse: false,
		});
		expect(await under.repo.useRefreshToken("no such token", 60_000)).toBeUndefined();
	});

	test("a token added used is not used again", async () => {
		const token = newToken(newGuid(), { UsedTime: 40_000 });
		await under.repo.addRefreshToken(token);
		expect(await under.repo.useRefreshToken(token.Id, 50_000)).toStrictEqual({ row: token, firstUse: false });
	});

	test("of two uses at once, exactly one is the first", async () => {
		for (let i = 0; i < 5; i++) {
			const token = newToken(newGuid());
			await under.repo.addRefreshToken(token);
			const uses = await Promise.all([
				under.repo.useRefreshToken(token.Id, 70_000),
				under.repo.useRefreshToken(token.Id, 70_001),
			]);
			expect(uses.filter(use => use?.firstUse)).toHaveLength(1);
			const [first] = uses.filter(use => use?.firstUse);
			for (const use of uses) expect(use?.row).toStrictEqual(first?.row);
			expect([70_000, 70_001]).toContain(first?.row.UsedTime);
		}
	});

	test("the tokens of the sessions given are removed, the others kept", async () => {
		const [ada, bob, eve] = [newGuid(), newGuid(), newGuid()];
		const tokens = [newToken(ada), newToken(ada, { UsedTime: 20_000 }), newToken(bob), newToken(eve)];
		for (const token of tokens) await under.repo.addRefreshToken(token);
		await under.repo.removeRefreshTokensOf([ada, bob, newGuid()]);
		await under.repo.removeRefreshTokensOf([]);
		expect(await under.count("refresh_tokens", { session_key: ada })).toBe(0);
		expect(await under.count("refresh_tokens", { session_key: bob })).toBe(0);
		expect(await under.repo.useRefreshToken(tokens[0].Id, 80_000)).toBeUndefined();
		expect(await under.repo.useRefreshToken(tokens[3].Id, 80_000)).toMatchObject({ firstUse: true });
	});

	test("expired tokens are purged, the others kept: how many went", async () => {
		// Tokens of the other tests end after 90_000_000_000.
		const session = newGuid();
		const ended = newToken(session, { ExpiresTime: 1_000 });
		const endsNow = newToken(session, { ExpiresTime: 2_000, UsedTime: 1_500 });
		const open = newToken(session, { ExpiresTime: 2_001 });
		for (const token of [ended, endsNow, open]) await under.repo.addRefreshToken(token);
		expect(await under.repo.removeExpiredRefreshTokens(2_000)).toBe(2);
		expect(await under.repo.removeExpiredRefreshTokens(2_000)).toBe(0);
		expect(await under.count("refresh_tokens", { session_key: session })).toBe(1);
		expect(await under.repo.useRefreshToken(open.Id, 1_900)).toStrictEqual({
			row: { ...open, UsedTime: 1_900 },
			firstUse: true,
		});
		expect(await under.repo.useRefreshToken(ended.Id, 1_900)).toBeUndefined();
	});

	test("signing keys come newest first (ties by kid, last first), a kid is added once, old ones removed", async () => {
		expect(await under.repo.signingKeys()).toEqual([]);
		const oldest = newSigningKey({ CreatedTime: 1_000 });
		const tieA = newSigningKey({ Kid: "kid-a", CreatedTime: 2_000 });
		const tieB = newSigningKey({ Kid: "kid-b", CreatedTime: 2_000 });
		const newest = newSigningKey({ CreatedTime: 3_000 });
		for (const key of [tieA, oldest, newest, tieB]) await under.repo.addSigningKey(key);
		expect(await under.repo.signingKeys()).toStrictEqual([newest, tieB, tieA, oldest]);
		// A second key of a kid taken (another process made it first) leaves the first.
		await under.repo.addSigningKey({ ...newest, SealedPrivateKey: "other", CreatedTime: 4_000 });
		expect(await under.repo.signingKeys()).toStrictEqual([newest, tieB, tieA, oldest]);
		expect(await under.repo.removeSigningKeysBefore(2_000)).toBe(1);
		expect(await under.repo.signingKeys()).toStrictEqual([newest, tieB, tieA]);
		expect(await under.repo.removeSigningKeysBefore(3_000)).toBe(2);
		expect(await under.repo.removeSigningKeysBefore(3_000)).toBe(0);
		expect(await under.repo.signingKeys()).toStrictEqual([newest]);
	});
});
