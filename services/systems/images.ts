import { createHash } from "node:crypto";
import { failures } from "../../shared/errors";

/** The largest image Plaza keeps. */
export const maxImageBytes = 5 * 1024 * 1024;

/** The image types Plaza takes, each with the bytes its files begin with. */
const signatures: Record<string, (bytes: Buffer) => boolean> = {
	"image/png": b => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	"image/jpeg": b => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	"image/gif": b => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")),
	"image/webp": b => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
};

export interface Image {
	bytes: Buffer;
	contentType: string;
	/** A strong validator of the bytes: their SHA-256. */
	etag: string;
}

/**
 * The image behind base64 `Data` declared as `ContentType`, or a clear failure: 400 for a type Plaza
 * does not take, bytes that are not base64 or not of the declared type, 413 above 5 MB.
 */
export function checkImage(contentType: string, data: string): Image {
	const type = contentType === "image/jpg" ? "image/jpeg" : contentType;
	const matches = signatures[type];
	if (!matches)
		throw failures.field("ContentType", "InvalidValue", `Only ${Object.keys(signatures).join(", ")} are taken`);
	const base64 = data.replace(/^data:[\w/+.-]+;base64,/, "").replace(/\s+/g, "");
	if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1)
		throw failures.field("Data", "InvalidValue", "Data is not base64");
	if ((base64.length * 3) / 4 > maxImageBytes + 3) throw failures.payloadTooLarge(maxImageBytes, "The image");
	const bytes = Buffer.from(base64, "base64");
	if (bytes.length === 0) throw failures.field("Data", "NotEmpty", "Data is empty");
	if (bytes.length > maxImageBytes) throw failures.payloadTooLarge(maxImageBytes, "The image");
	if (!matches(bytes))
		throw failures.field(
			"Data",
			"InvalidValue",
			`The bytes are not a ${type.slice("image/".length).toUpperCase()} image`,
		);
	return { bytes, contentType: type, etag: createHash("sha256").update(bytes).digest("hex") };
}
