/* Building a path from parent links (see path.h): the names are gathered
 * bottom up into one buffer, each followed by its length, then copied out
 * in reverse, so no name is copied twice and nothing else is allocated. */
#include "model/path.h"

#include <string.h>

#define PATH_DEPTH_MAX 100000

enum path_end
path_from_parents(struct node_id node, path_step_fn step, void *context, struct buffer *out)
{
	struct buffer reversed;
	enum path_end end = PATH_AT_TOP;
	int depth = 0;

	buffer_init(&reversed);
	buffer_reset(out);
	while (!node_id_equal(node, NODE_ROOT)) {
		const uint8_t *name;
		size_t length;
		if (node_id_equal(node, NODE_TRASH)) {
			end = PATH_IN_TRASH;
			break;
		}
		if (depth++ > PATH_DEPTH_MAX || !step(context, node, &node, &name, &length)) {
			end = PATH_BROKEN;
			break;
		}
		buffer_append(&reversed, name, length);
		buffer_append(&reversed, &length, sizeof length);
	}
	size_t at = reversed.length;
	while (at > 0) {
		size_t length;
		memcpy(&length, reversed.data + at - sizeof length, sizeof length);
		at -= sizeof length + length;
		if (out->length > 0)
			buffer_append_byte(out, '/');
		buffer_append(out, reversed.data + at, length);
	}
	buffer_string(out);
	buffer_free(&reversed);
	return end;
}
