/* Unit tests of model/node_set: a sealed set answers by its members, and
 * the closure over placements grows to children or to parents, never to
 * the top or TRASH. */
#include <string.h>

#include "model/node_set.h"
#include "tests/unit/tap.h"

static struct node_id
id(int n)
{
	struct node_id out;
	memset(&out, 0, sizeof out);
	out.bytes[0] = 0x40;
	out.bytes[15] = (unsigned char)n;
	return out;
}

static void
test_seal(void)
{
	struct node_set set = { 0 };

	for (int n = 9; n > 0; n--) {
		node_set_add(&set, id(n));
		node_set_add(&set, id(n));
	}
	node_set_seal(&set);
	ok(set.count == 9, "sealing keeps each id once (%zu)", set.count);
	bool sorted = true;
	for (size_t i = 1; i < set.count; i++)
		sorted &= node_id_compare(set.ids[i - 1], set.ids[i]) < 0;
	ok(sorted, "sealed ids are in order");
	ok(node_set_has(&set, id(1)) && node_set_has(&set, id(9)) && !node_set_has(&set, id(10)),
	    "members are found, others not");
	node_set_free(&set);
	ok(!node_set_has(&set, id(1)), "an empty set holds nothing");
}

/* Placements: 1 at the top, 2 and 3 in 1, 4 in 3, 5 in 4 then in TRASH,
 * 6 in 2 then moved to the top. */
static void
test_close(void)
{
	struct node_id children[] = { id(1), id(2), id(3), id(4), id(5), id(5), id(6), id(6) };
	struct node_id parents[] = { NODE_ROOT, id(1), id(1), id(3), id(4), NODE_TRASH, id(2),
		NODE_ROOT };
	size_t count = sizeof children / sizeof *children;
	struct node_set below = { 0 }, above = { 0 };

	node_set_add(&below, id(3));
	node_set_close(&below, children, parents, count, false);
	ok(below.count == 3 && node_set_has(&below, id(4)) && node_set_has(&below, id(5)) &&
	    !node_set_has(&below, id(2)), "below 3: itself, 4 and 5 (%zu)", below.count);
	node_set_add(&above, id(5));
	node_set_add(&above, id(6));
	node_set_close(&above, children, parents, count, true);
	ok(above.count == 6 && node_set_has(&above, id(1)) && node_set_has(&above, id(2)) &&
	    node_set_has(&above, id(3)) && node_set_has(&above, id(4)) &&
	    !node_set_has(&above, NODE_TRASH) && !node_set_has(&above, NODE_ROOT),
	    "above 5 and 6: every folder either was ever in, not the top or TRASH (%zu)",
	    above.count);
	node_set_free(&below);
	node_set_free(&above);
}

int
main(void)
{
	test_seal();
	test_close();
	return tap_done();
}
