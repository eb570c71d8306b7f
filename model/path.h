/* Paths from parent links: every table of nodes (the head state, the
 * working-tree index, a derived state) knows each node's parent and name;
 * this walks up once and writes the path top down. */
#ifndef HEARTH_MODEL_PATH_H
#define HEARTH_MODEL_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/buffer.h"
#include "model/id.h"

/* Gives a node's parent and name (valid until the next call); false when
 * the node is unknown. */
typedef bool (*path_step_fn)(void *context, struct node_id node, struct node_id *parent,
    const uint8_t **name, size_t *name_length);

enum path_end { PATH_AT_TOP, PATH_IN_TRASH, PATH_BROKEN };

/* Writes node's path ("a/b/c", "" for the top) to out and says where the
 * walk ended: at the top, in the trash, or at an unknown node or a loop. */
enum path_end path_from_parents(struct node_id node, path_step_fn step, void *context,
    struct buffer *out);

#endif
