/** Characters XML 1.0 cannot carry at all, not even as references: written as U+FFFD. */
const unrepresentable =
	// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
	/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text content; a CR is written as a reference, since a parser would turn a literal one into LF. */
export function escapeText(text: string): string {
	return text
		.replace(unrepresentable, "\uFFFD")
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/\r/g, "&#xD;");
}

/** An attribute value in double quotes. */
export function escapeAttribute(text: string): string {
	return escapeText(text).replace(/"/g, "&quot;").replace(/\n/g, "&#xA;").replace(/\t/g, "&#x9;");
}
