/* Sets of node ids and their closure over placements (node_set.h). */
#include "model/node_set.h"

#include <stdlib.h>

#include "model/array.h"

void
node_set_add(struct node_set *set, struct node_id id)
{
	set->ids = array_grow(set->ids, &set->capacity, set->count + 1, sizeof *set->ids);
	set->ids[set->count++] = id;
}

static int
compare_node_ids(const void *a, const void *b)
{
	return node_id_compare(*(const struct node_id *)a, *(const struct node_id *)b);
}

void
node_set_seal(struct node_set *set)
{
	size_t kept = 0;

	if (set->count > 1)
		qsort(set->ids, set->count, sizeof *set->ids, compare_node_ids);
	for (size_t i = 0; i < set->count; i++)
		if (kept == 0 || !node_id_equal(set->ids[kept - 1], set->ids[i]))
			set->ids[kept++] = set->ids[i];
	set->count = kept;
}

bool
node_set_has(const struct node_set *set, struct node_id id)
{
	return set->count > 0 &&
	    bsearch(&id, set->ids, set->count, sizeof *set->ids, compare_node_ids) != NULL;
}

void
node_set_free(struct node_set *set)
{
	free(set->ids);
	set->ids = NULL;
	set->count = set->capacity = 0;
}

static bool
is_folder_id(struct node_id id)
{
	return !node_id_equal(id, NODE_ROOT) && !node_id_equal(id, NODE_TRASH);
}

void
node_set_close(struct node_set *set, const struct node_id *children,
    const struct node_id *parents, size_t count, bool to_parents)
{
	size_t before;

	node_set_seal(set);
	do {
		struct node_set fresh = { 0 };
		before = set->count;
		for (size_t i = 0; i < count; i++) {
			struct node_id from = to_parents ? children[i] : parents[i];
			struct node_id to = to_parents ? parents[i] : children[i];
			if ((!to_parents || is_folder_id(to)) && node_set_has(set, from) &&
			    !node_set_has(set, to))
				node_set_add(&fresh, to);
		}
		for (size_t i = 0; i < fresh.count; i++)
			node_set_add(set, fresh.ids[i]);
		node_set_free(&fresh);
		node_set_seal(set);
	} while (set->count != before);
}
