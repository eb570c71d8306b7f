/* Reading content by its id for the front ends: a unified diff between two
 * blobs, which the app's conflict pane shows between the sides of a content
 * conflict (each side names its content by hash, not by path or version). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/history/blob.h"
#include "model/diff.h"
#include "model/array.h"

/* SHA-256 of no bytes: an empty file may have no chunk to read. */
static const char EMPTY_CONTENT[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/* Reads at most max bytes of the blob named by hash_hex into out; NULL or
 * "" is no content. Sets *binary when it is longer or holds a NUL. */
static int
read_blob(struct hearth *home, const char *hash_hex, size_t max, struct buffer *out,
    bool *binary, struct hearth_error *error)
{
	struct hash blob;
	bool truncated = false;

	buffer_reset(out);
	if (hash_hex == NULL || hash_hex[0] == '\0' || strcmp(hash_hex, EMPTY_CONTENT) == 0)
		return 0;
	if (strlen(hash_hex) != HASH_BYTES * 2 || !hex_decode(hash_hex, blob.bytes, HASH_BYTES))
		return hearth_fail(error, HEARTH_USAGE, "%s is not a content id (64 hex digits)",
		    hash_hex);
	int status = blob_read(home, &blob, max, out, &truncated, error);
	if (status == 0 && (truncated || !diff_is_text((const char *)out->data, out->length)))
		*binary = true;
	return status;
}

int
hearth_diff_blobs(hearth *home, const char *old_hash, const char *new_hash,
    const char *old_label, const char *new_label, size_t max_bytes, struct hearth_text *out,
    struct hearth_error *error)
{
	struct buffer before, after, text;

	memset(out, 0, sizeof *out);
	hearth_error_clear(error);
	buffer_init(&before);
	buffer_init(&after);
	buffer_init(&text);
	int status = read_blob(home, old_hash, max_bytes, &before, &out->binary, error);
	if (status == 0)
		status = read_blob(home, new_hash, max_bytes, &after, &out->binary, error);
	if (status == 0 && !out->binary)
		diff_unified((const char *)before.data, before.length, (const char *)after.data,
		    after.length, old_label, new_label, 3, &text);
	out->length = status == 0 ? text.length : 0;
	out->text = array_strdup(out->length ? buffer_string(&text) : "");
	buffer_free(&before);
	buffer_free(&after);
	buffer_free(&text);
	return status;
}
