import { Context } from "moleculer";

/** Who is calling, as the gateway established it; travels in `ctx.meta.user` to every service. */
export interface Caller {
	/** The signed-in user's id; absent for the administrator's API key. */
	userId?: string;
	roles: string[];
}

export interface CallerMeta {
	user?: Caller | null;
}

export const ADMIN = "Admin";

export function callerOf(ctx: Context): Caller | undefined {
	return (ctx.meta as CallerMeta).user ?? undefined;
}

export function isAdmin(caller: Caller | undefined): boolean {
	return !!caller?.roles.includes(ADMIN);
}
