#!/bin/sh
test_description='a peer URL hearth cannot sync with (another scheme, a malformed ssh:// URL, a path that is not there or not a Home) is refused naming the URL and what is wrong: at clone, at sync, and written in the config'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

# Each line: a URL, then what the refusal must say about it.
cat >bad-urls <<EOF
http://example.com/home	unknown kind of peer 'http://'
HTTPS://example.com/home	unknown kind of peer 'HTTPS://'
file://$TEST_ROOT/a	unknown kind of peer 'file://'
ssh://laptop	an ssh URL needs a path
ssh://laptop/	an ssh URL needs a path
ssh:///home/me	an ssh URL needs a host
ssh://laptop:99999/home	bad port '99999'
ssh://laptop:x/home	bad port 'x'
ssh://[::1/home	unclosed '[' in the host
ssh://@laptop/home	bad user name
ssh://-oProxyCommand=x/home	the user or host holds characters ssh would misread
$TEST_ROOT/nowhere	no such folder (a peer is a Home's folder or its config file, or ssh://
laptop:notes	no such folder; a folder over ssh is written ssh://laptop/~/notes
me@laptop:/srv/home	no such folder; a folder over ssh is written ssh://me@laptop/srv/home
$TEST_ROOT/plain	is not a Home: no .hearth/ there
EOF

# Runs $1 (a function of a URL that succeeds when hearth refused it) for
# each bad URL; the error must name the URL and say what is wrong.
each_bad_url() {
	while IFS='	' read -r url why; do
		"$1" "$url" 2>err || { echo "$1 $url:"; cat err; return 1; }
		grep -F -q -e "$url" err && grep -F -q -e "$why" err ||
			{ echo "$1 $url said:"; cat err; echo "(wanted: $why)"; return 1; }
	done <bad-urls
}

test_expect_success 'setup: a Home with a version, a folder that is not a Home' '
	hearth init a >/dev/null && echo one >a/one.txt &&
	(cd a && hearth record -m one >/dev/null) &&
	mkdir plain && echo mine >plain/mine.txt &&
	cp a/.hearth/config.yaml config.good
'

# Nothing half-made is left behind.
clone_into() {
	test_must_fail hearth clone "$1" copy && ! test -e copy
}

test_expect_success 'clone refuses each, leaving no folder behind' '
	each_bad_url clone_into
'

sync_with() {
	(cd a && test_must_fail hearth sync "$1")
}

test_expect_success 'sync refuses each, and the Home and the folder are as they were' '
	(cd a && hearth log --oneline) >before &&
	sed -i "s|^$TEST_ROOT/nowhere	.*|$TEST_ROOT/nowhere	is neither a peer in the config|" bad-urls &&
	each_bad_url sync_with &&
	(cd a && hearth log --oneline) >after &&
	test_cmp before after &&
	test "$(cat plain/mine.txt)" = mine && ! test -e plain/.hearth
'

# The URL as the config's peer "p".
config_with() {
	cp config.good a/.hearth/config.yaml &&
	printf "peers:\n  - name: p\n    url: \"%s\"\n" "$1" >>a/.hearth/config.yaml
}

# A URL that can never work fails the check; a path that is not there or
# not a Home now (a disk not mounted) is a note.
checked_in_config() {
	config_with "$1" &&
	case $1 in
	"$TEST_ROOT"/*)
		(cd a && hearth config check >/dev/null) && grep -q "^Note: " err &&
		    grep -q "a sync with it fails until it is" err ;;
	*)
		(cd a && test_expect_code 2 hearth config check >/dev/null) ;;
	esac &&
	grep -F -q "peer 'p' (peers: in $TEST_ROOT/a/.hearth/config.yaml)" err
}

synced_by_name() {
	config_with "$1" &&
	(cd a && test_must_fail hearth sync p >/dev/null) &&
	grep -F -q "peer 'p' (peers: in $TEST_ROOT/a/.hearth/config.yaml)" err
}

test_expect_success 'config check refuses each written in the config, or notes a path not there now, naming the peer and the file' '
	sed -i "s|^$TEST_ROOT/nowhere	.*|$TEST_ROOT/nowhere	no such folder (a peer is|" bad-urls &&
	test_when_finished "cp config.good a/.hearth/config.yaml" &&
	each_bad_url checked_in_config
'

test_expect_success 'sync with such a peer by its name says the same; the rest of the Home works' '
	test_when_finished "cp config.good a/.hearth/config.yaml" &&
	each_bad_url synced_by_name &&
	(cd a && hearth status >/dev/null && hearth log >/dev/null)
'

test_expect_success 'config check accepts the peers hearth can sync with, without connecting' '
	test_when_finished "cp config.good a/.hearth/config.yaml" &&
	hearth clone a b >/dev/null &&
	cp config.good a/.hearth/config.yaml &&
	cat >>a/.hearth/config.yaml <<-EOF &&
	peers:
	  - name: b
	    url: $TEST_ROOT/b
	  - name: b-config
	    url: $TEST_ROOT/b/.hearth/config.yaml
	  - name: laptop
	    url: ssh://me@laptop:2222/~/notes
	  - name: server
	    url: ssh://[::1]/srv/home
	EOF
	(cd a && hearth config check >../out) && grep "ssh://me@laptop:2222/~/notes" out &&
	(cd a && hearth sync b >/dev/null)
'

test_done
