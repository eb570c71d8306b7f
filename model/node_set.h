/* A set of node ids: added to freely, then sealed (sorted, each id once)
 * to be asked by binary search; and the closure of a set over placements
 * (child, parent pairs), which the history of a path needs twice. */
#ifndef HEARTH_MODEL_NODE_SET_H
#define HEARTH_MODEL_NODE_SET_H

#include <stdbool.h>
#include <stddef.h>

#include "model/id.h"

struct node_set {
	struct node_id *ids;
	size_t count, capacity;
};

void node_set_add(struct node_set *set, struct node_id id);
void node_set_seal(struct node_set *set);
/* Only on a sealed set. */
bool node_set_has(const struct node_set *set, struct node_id id);
void node_set_free(struct node_set *set);

/* Seals set and grows it until no pair adds to it: with to_parents, the
 * parent of each pair whose child is in it (NODE_ROOT and NODE_TRASH
 * left out); else the child of each pair whose parent is in it. */
void node_set_close(struct node_set *set, const struct node_id *children,
    const struct node_id *parents, size_t count, bool to_parents);

#endif
