import fs from "node:fs";
import { spawnSync } from "node:child_process";

/**
 * Debian's Chromium (the browser suites) and python3 with python3-zeep (the SOAP client suite): .ci/run installs both.
 */
export const chromiumPath = process.env.PLAZA_CHROMIUM ?? "/usr/bin/chromium";
export const zeepPython = process.env.PLAZA_ZEEP_PYTHON ?? "/usr/bin/python3";

const install = "sudo apt-get install chromium python3-zeep (what .ci/run does)";

/**
 * The `describe` of a suite that needs a program of the machine: without it, the suite is skipped
 * with one line saying how to install it, so `npm test` on a fresh machine still ends; in CI a missing
 * program fails the suite instead, as a skipped one would pass unseen.
 */
export function describeNeeding(program: string, present: () => boolean): jest.Describe {
	if (process.env.CI === "true" || present()) return describe;
	process.stderr.write(`Skipping the suites that need ${program}: ${install}\n`);
	return describe.skip;
}

export const hasChromium = () => fs.existsSync(chromiumPath);
export const hasZeep = () => spawnSync(zeepPython, ["-c", "import zeep"], { stdio: "ignore" }).status === 0;
