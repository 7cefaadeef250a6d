import { operations, route } from "./operation";
import { w } from "../wire/schema";
import { DataExport, DataExportContent } from "../records/exports";

/**
 * Exports of one's own data (the GDPR's right of access and to portability): an archive made in the background, the
 * owner's alone.
 */
export const exportsOperations = operations({
	CreateDataExport: {
		summary:
			"Start an archive of everything Plaza holds about oneself, in the API's own JSON; answers at once (Pending), " +
			"or with one's export already under way",
		action: "exports.create",
		routes: [route("POST /exports")],
		request: w.object({}),
		response: DataExport,
		access: "user",
	},
	FindDataExport: {
		summary:
			"One's export: its Status (Pending, Running, Ready, Failed), Progress (0-100) and, once Ready, DownloadUrl",
		action: "exports.find",
		routes: [route("GET /exports/:Id")],
		request: w.object({ Id: w.guid().required() }),
		response: DataExport,
		access: "user",
		reads: true,
	},
	DataExportFile: {
		summary: "The archive of one's Ready export (application/json; the bytes on REST), with an ETag",
		action: "exports.file",
		routes: [route("GET /exports/:Id/file")],
		request: w.object({ Id: w.guid().required() }),
		response: DataExportContent,
		access: "user",
		reads: true,
		download: true,
	},
});
