import { Browser, chromium } from "playwright-core";
import { chromiumPath } from "./machine-tools";

/**
 * Debian's Chromium (.ci/run installs it); these flags keep it off the closed network. Playwright gives it a fresh
 * profile.
 */
const args = [
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];

/** A headless Chromium for the browser suites. */
export function launchChromium(): Promise<Browser> {
	return chromium.launch({ executablePath: chromiumPath, args, headless: true });
}
