const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { fileURLToPath } = require("node:url");

/**
 * Adds the coverage of the child processes (dist/main.js, started by the process and cluster
 * tests) to Jest's: each child writes V8's counters as it exits (NODE_V8_COVERAGE, set by
 * child-coverage.setup.js); after each test file, this hands the production scripts among them to
 * Jest's coverage reporter as if the test had run them, with dist/'s source maps, so the summary
 * and the threshold count them against the TypeScript sources. Jest calls reporters in order and
 * its coverage reporter last, so it sees what this adds. A child killed with SIGKILL writes nothing.
 */
class ChildCoverageReporter {
	constructor(globalConfig) {
		this.rootDir = globalConfig.rootDir;
		this.dist = path.join(this.rootDir, "dist");
		if (!globalConfig.collectCoverage) return;
		// Set before Jest starts its workers, which inherit it (and pass it on to the tests' children).
		this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "plaza-child-coverage-"));
		process.env.PLAZA_CHILD_COVERAGE_DIR = this.dir;
	}

	onTestResult(_test, testResult) {
		if (!this.dir) return;
		const scripts = this.takeChildCoverage();
		if (scripts.length > 0) testResult.v8Coverage = [...(testResult.v8Coverage ?? []), ...scripts];
	}

	onRunComplete() {
		if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
	}

	/** The production scripts' coverage in the files children have finished writing, which it removes. */
	takeChildCoverage() {
		const scripts = [];
		for (const name of fs.readdirSync(this.dir)) {
			const file = path.join(this.dir, name);
			let dump;
			try {
				dump = JSON.parse(fs.readFileSync(file, "utf8"));
			} catch {
				continue; // still being written: the next test file's result takes it
			}
			fs.rmSync(file, { force: true });
			for (const script of dump.result) {
				const entry = this.asJestCoverage(script);
				if (entry) scripts.push(entry);
			}
		}
		return scripts;
	}

	/** A script of dist/ built from production code, in the shape Jest's V8 coverage takes; else undefined. */
	asJestCoverage(script) {
		if (!script.url.startsWith("file://")) return undefined;
		const jsPath = fileURLToPath(script.url);
		const relative = path.relative(this.dist, jsPath);
		if (!/^(services|shared|gateway)\/.*\.js$|^(main|plaza)\.js$/.test(relative)) return undefined;
		// The MongoDB code, left out of the figures without a MongoDB server, as jest.config.js's collectCoverageFrom says.
		if (!process.env.MONGO_URI && /\.mongo\.js$|^shared\/persistence\/mongo\//.test(relative)) return undefined;
		const tsPath = path.join(this.rootDir, relative.replace(/\.js$/, ".ts"));
		const sourceMapPath = `${jsPath}.map`;
		if (!fs.existsSync(tsPath) || !fs.existsSync(sourceMapPath)) return undefined; // a stale build's leftover
		return {
			codeTransformResult: {
				code: fs.readFileSync(jsPath, "utf8"),
				originalCode: fs.readFileSync(tsPath, "utf8"),
				sourceMapPath,
				wrapperLength: 0,
			},
			result: { ...script, url: jsPath },
		};
	}
}

module.exports = ChildCoverageReporter;
