#!/bin/sh
test_description='a peer sending ops no honest replica makes is refused, naming the peer, the op and the reason, and nothing of the batch is written'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# What a Home holds, to compare before and after a refused sync.
snapshot() {
	(cd "$1" && { hearth log --oneline; hearth ls -l head 2>&1; true; } &&
	 hearth stats | grep -E "^(ops|versions|nodes|chunks|blobs|packs) ")
	find "$1" -path "$1/.hearth" -prune -o -print | sort
}

clean() {
	(cd "$1" && hearth fsck) >fsck.out && grep "no problems" fsck.out
}

# A pull from a fake server standing in for ssh (hearth-test-tool fake-peer).
faked() {
	HEARTH_SSH="$HEARTH_TEST_TOOL fake-peer $1" hearth sync --pull "ssh://fake$TEST_ROOT/a"
}

home_of() { sed -n "s/^home: //p" "$1/.hearth/root"; }

test_expect_success 'setup: a Home with a folder and a file' '
	hearth init a >/dev/null &&
	mkdir a/docs && echo text >a/docs/file &&
	(cd a && hearth record -m first >/dev/null)
'

test_expect_success 'the fake peer is honest when asked: its plain folder is taken' '
	hearth init control >/dev/null && test_tool join-home control a &&
	(cd control && HEARTH_SSH="$HEARTH_TEST_TOOL fake-peer good" \
	    hearth sync --pull "ssh://fake$TEST_ROOT/a") >out &&
	grep "received 1 op" out && clean control
'

# case : the reason the error must give. Each is one op no honest replica
# makes, or (the last cases) a plain op followed by one misusing it, so
# that refusing the batch means refusing the plain one too.
while IFS=: read -r case reason; do
	test_expect_success "refused: $case ($reason)" '
		snapshot a >before &&
		(cd a && test_expect_code 1 faked '"$case"' 2>../err) &&
		cat err &&
		grep "^hearth: ssh://fake$TEST_ROOT/a sent op fafafafa/[12], a [a-z]* " err &&
		grep "'"$reason"'" err &&
		grep "nothing of this sync was taken in" err &&
		snapshot a >after && test_cmp before after && clean a
	'
done <<'CASES'
slash:does not decode: a name holding ./. at byte
dotdot:does not decode: the name .\.\.. at byte
dot:does not decode: the name .\.. at byte
nul:does not decode: a name holding a NUL byte
empty:does not decode: an empty name
long:does not decode: a name over 255 bytes
state:the name .hearth at the top, where the Home.s state lives
self:it puts a node inside itself
root-name:its root name is not 1 to 64 letters
under-file:it puts a node under a file, which is no folder
under-link:it puts a node under a symlink, which is no folder
rekind:it makes a file of a node created as a dir
set-folder:it gives content to a folder
CASES

test_expect_success 'content for the top folder is refused, naming the op' '
	snapshot a >before &&
	(cd a && test_expect_code 1 faked set-root 2>../err) &&
	grep "ssh://fake$TEST_ROOT/a sent op fafafafa/1, a set of the Home.s top folder, which no replica makes" err &&
	snapshot a >after && test_cmp before after && clean a
'

test_expect_success 'the peer status names the refusal' '
	(cd a && hearth peers --porcelain) >peers &&
	grep "it gives content to a folder\|top folder" peers
'

# The server side runs the same checks on what a client pushes.
for case in slash dotdot long state self under-link rekind set-folder; do
	test_expect_success "serve refuses a pushed batch: $case" '
		snapshot a >before &&
		test_tool fake-push '"$case"' $(home_of a) >stream &&
		test_expect_code 1 hearth serve a <stream >reply 2>err &&
		grep "the client sent op fbfbfbfb/[12], a [a-z]* " err &&
		test_tool frames <reply >frames && grep "^ERROR .*fbfbfbfb" frames &&
		snapshot a >after && test_cmp before after && clean a
	'
done

test_expect_success 'after it all, an honest sync still works both ways' '
	hearth clone a b >/dev/null &&
	echo more >b/more && (cd b && hearth record -m more >/dev/null) &&
	(cd a && hearth sync ../b >/dev/null && hearth checkout >/dev/null) &&
	test "$(cat a/more)" = more && clean a && clean b
'

test_done
