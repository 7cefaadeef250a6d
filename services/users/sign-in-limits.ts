import { AuthConfig } from "../../shared/config";
import { FailureWindow } from "../../shared/attempts";
import { failures } from "../../shared/errors";

/** Failed sign-ins counted per account and per client address; past the limit, 429 until the window passes. */
export class SignInLimits {
	private readonly byAccount: FailureWindow;
	private readonly byAddress: FailureWindow;

	constructor(
		config: AuthConfig,
		private readonly audit: (message: string, details: Record<string, unknown>) => void,
	) {
		this.byAccount = new FailureWindow(config.maxFailuresPerAccount, config.failureWindowSeconds * 1000);
		this.byAddress = new FailureWindow(config.maxFailuresPerAddress, config.failureWindowSeconds * 1000);
	}

	/** Throws 429 TooManyRequests (with the seconds to wait) while the account or the address is locked out. */
	check(account: string, address: string | undefined): void {
		const wait = Math.max(this.byAccount.retryAfter(account), address ? this.byAddress.retryAfter(address) : 0);
		if (wait > 0) {
			this.audit("audit: sign-in refused, too many failed attempts", { account, address, retryAfterSeconds: wait });
			throw failures.tooManyRequests(wait, "Too many failed sign-in attempts; try again later");
		}
	}

	failed(account: string, address: string | undefined): void {
		this.byAccount.fail(account);
		if (address) this.byAddress.fail(address);
		this.audit("audit: sign-in failed", { account, address });
	}

	succeeded(account: string): void {
		this.byAccount.forget(account);
	}
}
