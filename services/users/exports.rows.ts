import { Caller } from "../../shared/caller";

export type ExportStatus = "Pending" | "Running" | "Ready" | "Failed";

/** The statuses of an export still to be finished: what the sweep takes up when their run went quiet. */
export const unfinished: readonly ExportStatus[] = ["Pending", "Running"];

/** An export of one user's data, as the exports domain keeps it. Times in ms. */
export interface ExportRow {
	Id: string;
	UserId: string;
	Status: ExportStatus;
	Progress: number;
	/** Whom the archive is read as: the caller who asked, without the session or key they came with. */
	Caller: Caller;
	/** The run that holds the export: a restart takes the next, and what an older run still writes is refused. */
	Run: number;
	CreatedTime: number;
	/** The last sign of life of its run (each page read): the sweep restarts a run quiet for a minute. */
	UpdatedTime: number;
	CompletedTime?: number;
}

/** A finished export's archive: the API's JSON text, and its ETag. */
export interface ArchiveRow {
	ExportId: string;
	Data: string;
	ETag: string;
}
