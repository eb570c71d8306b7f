#!/bin/sh
test_description='a folder'"'"'s identity lives in its xattr; .hearth-id is a user'"'"'s name like any; folders hearth cannot write or read'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

getfattr --version >/dev/null 2>&1 || test_skip_all 'getfattr (package attr) is not installed'

# id_of HOME PATH: the node id of PATH in HOME's working-tree index.
id_of() {
	folder=$(dirname "$2")
	[ "$folder" = . ] && folder=
	(cd "$1" && hearth ls --tree -i $folder) | awk -v name="$(basename "$2")" \
		'{ id = $1; sub(/^[^ ]* /, ""); sub(/\/$/, ""); if ($0 == name) print id }'
}

# folder_basics DIR: on the file system holding DIR, a Home's folders carry
# their id in user.hearth.id, no .hearth-id file is written, and a renamed
# folder is a move.
folder_basics() {
	hearth init "$1/h" >/dev/null && mkdir -p "$1/h/docs/deep" &&
	echo text >"$1/h/docs/deep/f.txt" && (cd "$1/h" && hearth record -m ids >/dev/null) &&
	test -z "$(find "$1/h" -name .hearth-id)" &&
	test "$(getfattr --only-values -n user.hearth.id "$1/h/docs")" = "$(id_of "$1/h" docs)" &&
	test "$(getfattr --only-values -n user.hearth.id "$1/h/docs/deep")" = \
	    "$(id_of "$1/h" docs/deep)" &&
	before=$(id_of "$1/h" docs/deep) &&
	mv "$1/h/docs/deep" "$1/h/deeper" && (cd "$1/h" && hearth status --porcelain) >"$1/st" &&
	grep "^R docs/deep -> deeper" "$1/st" &&
	(cd "$1/h" && hearth record -m moved >/dev/null) && test "$(id_of "$1/h" deeper)" = "$before" &&
	test -z "$(find "$1/h" -name .hearth-id)"
}

test_expect_success 'on ext4 a folder carries its id in an xattr, and no marker file' '
	mkdir ext4 && folder_basics "$TEST_ROOT/ext4"
'

test_expect_success 'a folder without its id, at a gone folder'"'"'s inode, is it moved only if it holds what it held' '
	hearth init reuse >/dev/null && mkdir reuse/a reuse/b &&
	echo 1 >reuse/a/one && echo 2 >reuse/b/two && (cd reuse && hearth record -m x >/dev/null) &&
	mv reuse/a reuse/a2 && setfattr -x user.hearth.id reuse/a2 &&
	mv reuse/b reuse/b2 && setfattr -x user.hearth.id reuse/b2 && mv reuse/b2/two reuse/two.moved &&
	(cd reuse && hearth status --porcelain) >st && grep -v "^#" st >actual &&
	printf "%s\n" "R a -> a2" "D b" "A b2" "R b/two -> two.moved" >expect &&
	test_cmp expect actual
'

test_expect_success 'on tmpfs too' '
	test "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs || exit 0
	shm=$(mktemp -d /dev/shm/hearth-t0130.XXXXXX) &&
	folder_basics "$shm"; status=$?; rm -rf "$shm"; exit $status
'

test_expect_success 'a git repository inside the Home sees nothing of hearth'"'"'s' '
	git --version >/dev/null 2>&1 || exit 0
	mkdir -p ext4/h/src && (cd ext4/h/src && git init -q && echo code >main.c &&
	    git add main.c && git -c user.name=t -c user.email=t@t commit -qm one) &&
	(cd ext4/h && hearth record -m src >/dev/null) &&
	(cd ext4/h/src && git status --porcelain) >git.out && test ! -s git.out
'

test_expect_success 'a user'"'"'s own .hearth-id file, link and folder are recorded as theirs' '
	echo "my own notes" >ext4/h/docs/.hearth-id &&
	ln -s somewhere ext4/h/deeper/.hearth-id &&
	mkdir -p ext4/h/keep/.hearth-id && echo inside >ext4/h/keep/.hearth-id/x &&
	(cd ext4/h && hearth status --porcelain) >st &&
	grep "^A docs/.hearth-id$" st && grep "^A deeper/.hearth-id$" st &&
	grep "^A keep/.hearth-id/x$" st &&
	(cd ext4/h && hearth record -m "their files" >/dev/null) &&
	test "$(cat ext4/h/docs/.hearth-id)" = "my own notes" &&
	test "$(readlink ext4/h/deeper/.hearth-id)" = somewhere &&
	(cd ext4/h && hearth show --cat head docs/.hearth-id) >cat.out &&
	test "$(cat cat.out)" = "my own notes"
'

test_expect_success 'they survive a move of their folder and a checkout of an older version' '
	mv ext4/h/docs ext4/h/papers && (cd ext4/h && hearth status --porcelain) >st &&
	grep "^R docs -> papers" st &&
	(cd ext4/h && hearth record -m renamed >/dev/null) &&
	test "$(cat ext4/h/papers/.hearth-id)" = "my own notes" &&
	(cd ext4/h && hearth checkout --yes head~1 >/dev/null && hearth checkout >/dev/null) &&
	test "$(cat ext4/h/papers/.hearth-id)" = "my own notes" &&
	(cd ext4/h && hearth status --porcelain) | sed "/^#/d" >st && test ! -s st
'

test_expect_success 'a peer takes a user'"'"'s .hearth-id in like any file' '
	hearth clone ext4/h ext4/peer >/dev/null &&
	test "$(cat ext4/peer/papers/.hearth-id)" = "my own notes" &&
	echo "edited there" >ext4/peer/papers/.hearth-id &&
	(cd ext4/peer && hearth record -m edit >/dev/null) &&
	(cd ext4/h && hearth sync --checkout ../peer >/dev/null) &&
	test "$(cat ext4/h/papers/.hearth-id)" = "edited there"
'

# Where the file system keeps no user xattrs (ramfs), folders get a
# .hearth-id marker file, and a user's file of that name is left alone.
test_expect_success 'without xattrs: markers, a move is a move, a user'"'"'s file is kept' '
	unshare -m true 2>/dev/null || exit 0
	mkdir ramfs &&
	unshare -m sh -c "
	    mount -t ramfs none \"$TEST_ROOT/ramfs\" || exit 0
	    set -e
	    cd \"$TEST_ROOT/ramfs\"
	    \"$HEARTH_BIN\" init h >/dev/null && mkdir -p h/a h/b && echo one >h/a/f &&
	    echo mine >h/b/.hearth-id
	    cd h && \"$HEARTH_BIN\" record -m one >/dev/null
	    test -f a/.hearth-id && test \"\$(cat b/.hearth-id)\" = mine
	    \"$HEARTH_BIN\" status --porcelain >../st && ! grep \"a/.hearth-id\" ../st
	    \"$HEARTH_BIN\" ls head b >../ls && grep .hearth-id ../ls
	    mv a c && \"$HEARTH_BIN\" status --porcelain >../st && grep \"^R a -> c\" ../st
	    mv b d && \"$HEARTH_BIN\" status --porcelain >../st && grep \"^R b -> d\" ../st
	    \"$HEARTH_BIN\" record -m moved >/dev/null && test \"\$(cat d/.hearth-id)\" = mine
	    echo done >\"$TEST_ROOT/ramfs.done\"
	"
'

# The rest runs as an ordinary user: root may write into any folder.
. "$HEARTH_SOURCE_DIR/tests/lib/as-user.sh"

test_expect_success 'a folder hearth cannot write is recorded; its weaker identity is noted' '
	test -n "$user_root" || exit 0
	cd "$user_root" && as_user "$HEARTH_BIN" init h >/dev/null &&
	as_user mkdir -p h/ro h/open && as_user sh -c "echo r >h/ro/r.txt && echo o >h/open/o.txt" &&
	chmod 555 h/ro &&
	(cd h && as_user "$HEARTH_BIN" record -m first) >out 2>&1 &&
	grep "^Recorded" out && grep "ro: .*rests on its inode" out &&
	(cd h && as_user "$HEARTH_BIN" ls head ro) | grep r.txt &&
	as_user mv h/ro h/ro2 && (cd h && as_user "$HEARTH_BIN" status --porcelain) >st &&
	grep "^R ro -> ro2" st
'

test_expect_success 'a folder hearth cannot read is named; the rest is recorded, none of it deleted' '
	test -n "$user_root" || exit 0
	cd "$user_root" && as_user mkdir h/secret &&
	as_user sh -c "echo s >h/secret/s.txt" && (cd h && as_user "$HEARTH_BIN" record -m s >/dev/null) &&
	chmod 000 h/secret && as_user sh -c "echo more >h/open/more.txt" &&
	(cd h && as_user "$HEARTH_BIN" status) >out 2>&1 &&
	grep "secret: cannot be read" out && ! grep "deleted" out &&
	(cd h && as_user "$HEARTH_BIN" record -m more) >out 2>&1 &&
	grep "secret: cannot be read" out && grep "open/more.txt" out &&
	(cd h && as_user "$HEARTH_BIN" ls head secret) | grep s.txt
'

test_expect_success 'cleanup: the ordinary user'"'"'s folder' '
	test -n "$user_root" || exit 0
	chmod -R u+rwx "$user_root" && rm -rf "$user_root"
'

test_done
