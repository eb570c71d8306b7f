#!/bin/sh
# Remakes the fuzzers' seed corpora (tests/fuzz/corpus/NAME) from what the
# real program writes: ops from a store, packs from packs/, protocol
# streams relayed by the test tool's proxy during real syncs, configs and
# ignore patterns as users write them. Seeds a crash added by hand
# (named crash-*, regression-*) are kept.
#
#   sh tests/fuzz/make-corpus.sh [BUILD_DIR]     (default build/release)
set -eu
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$source_dir/build/release}" && pwd)
hearth=$build/hearth
[ -x "$hearth" ] || hearth=$source_dir/hearth
tool=$build/tests/hearth-test-tool
corpus=$source_dir/tests/fuzz/corpus
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hearth-corpus.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" LC_ALL=C TZ=UTC HEARTH_BIN="$hearth"
mkdir -p "$HOME"
cd "$scratch"

fresh() {
	mkdir -p "$corpus/$1"
	find "$corpus/$1" -type f ! -name 'crash-*' ! -name 'regression-*' -delete
}

# ---- a Home with a little of everything ----------------------------------
"$hearth" init a >/dev/null
printf 'hello\n' >a/hello.txt
mkdir -p a/docs/deep && printf 'notes\n' >a/docs/notes.md
seq 1 2000 >a/docs/deep/numbers.txt
ln -s docs/notes.md a/link
: >a/empty
(cd a && "$hearth" record -m "first version" >/dev/null)
mv a/hello.txt a/docs/hello.txt && printf 'more\n' >>a/docs/notes.md
rm a/empty && chmod 600 a/docs/deep/numbers.txt
(cd a && "$hearth" record -m "moved, edited, deleted" >/dev/null)

# ---- op: each op of the store, one a file -------------------------------------
fresh op
n=0
"$tool" ops a | while read -r hex; do
	n=$((n + 1))
	printf '%s' "$hex" | xxd -r -p >"$corpus/op/op-$n"
done

# ---- pack: the packs that record wrote (small ones) ----------------------------
fresh pack
n=0
for pack in a/.hearth/packs/*; do
	n=$((n + 1))
	cp "$pack" "$corpus/pack/record-$n.pack" && chmod 644 "$corpus/pack/record-$n.pack"
done
# Frames of their own (chunks of 64 KiB or more), raw and compressed.
"$hearth" init b >/dev/null
head -c 70000 /dev/urandom >b/random
seq 1 15000 >b/text
(cd b && "$hearth" record -m frames >/dev/null)
for pack in b/.hearth/packs/*; do
	n=$((n + 1))
	cp "$pack" "$corpus/pack/frames-$n.pack" && chmod 644 "$corpus/pack/frames-$n.pack"
done

# ---- wire: both directions of real syncs, big CHUNK frames left out -------------
fresh wire
"$hearth" clone a c >/dev/null
printf 'from c\n' >c/c.txt && (cd c && "$hearth" record -m "from c" >/dev/null)
head -c 3000000 /dev/urandom >a/big && (cd a && "$hearth" record -m big >/dev/null)
(cd c && HEARTH_PROXY_DUMP="$scratch/sync" HEARTH_REMOTE_COMMAND="$hearth" \
    HEARTH_SSH="$tool sync-proxy down:any:0:none" \
    "$hearth" sync "ssh://localhost$scratch/a" >/dev/null)
"$tool" frames --filter 4096 <sync.up >"$corpus/wire/sync-up"
"$tool" frames --filter 4096 <sync.down >"$corpus/wire/sync-down"
HEARTH_PROXY_DUMP="$scratch/probe" HEARTH_REMOTE_COMMAND="$hearth" \
    HEARTH_SSH="$tool sync-proxy down:any:0:none" "$tool" probe "ssh://localhost$scratch/a" >/dev/null
cat probe.up probe.down >"$corpus/wire/probe"
# A repair's fetch (protocol 2): c lost its pack, a lost its first one, so
# the answer holds CHUNK frames and LACK frames.
rm c/.hearth/packs/*
rm "a/.hearth/packs/$(ls -tr a/.hearth/packs | head -1)"
(cd c && HEARTH_PROXY_DUMP="$scratch/fetch" HEARTH_REMOTE_COMMAND="$hearth" \
    HEARTH_SSH="$tool sync-proxy down:any:0:none" \
    "$hearth" fsck --repair "ssh://localhost$scratch/a" >/dev/null 2>&1) || true
"$tool" frames --filter 4096 <fetch.up >"$corpus/wire/fetch-up"
"$tool" frames --filter 4096 <fetch.down >"$corpus/wire/fetch-down"
"$tool" frame hello 1 1 00112233445566778899aabbccddeeff 00112233445566778899aabbccddeeff \
    >"$corpus/wire/hello"
"$hearth" serve a <"$corpus/wire/hello" >"$corpus/wire/refusal" 2>/dev/null || true

# ---- config: the defaults, and what the manual's examples look like -------------
fresh config
cp "$source_dir/config/default.yaml" "$corpus/config/default.yaml"
cat >"$corpus/config/joined.yaml" <<'YAML'
roots:
  - name: ssd
    path: ~/home-ssd
  - name: hdd
    path: /mnt/big/home-hdd
state: ~/.local/state/hearth
poll_interval: 500ms
durability: full
theme: light
peers:
  - name: laptop
    url: ssh://me@laptop:2222/home/me/.hearth
  - name: usb
    url: /media/usb/home
ignore: ["*.swp", "/build", "docs/**/tmp/", "!keep.swp", "[a-c]?.o"]
place:
  - pattern: "Videos/**"
    root: hdd
auto_checkout: true
max_delete: 25%
ssh_command: ssh -o BatchMode=yes
author: Me <me@example.org>
YAML
printf 'roots:\n  - name: main\n    path: .\nstate: .hearth\n' >"$corpus/config/init.yaml"
printf 'rots: []\n' >"$corpus/config/misspelt.yaml"
printf 'poll_interval: 2 weeks\n' >"$corpus/config/bad-value.yaml"
printf 'roots:\n  - name: a\n    path: /x\n  - name: a\n    path: /x/y\n' \
    >"$corpus/config/bad-roots.yaml"
printf '%%YAML 1.1\n---\n&anchor {theme: *anchor, peers: [ {name: x, url: !!str 1} ]}\n' \
    >"$corpus/config/anchors.yaml"

# ---- ignore: patterns (one a line), a NUL, then NUL-separated paths ---------------
fresh ignore
{ printf '*.swp\n*~\n.cache/\0'; printf 'a/b.swp\0x~\0.cache/y\0src/.cache\0'; } \
    >"$corpus/ignore/defaults"
{ printf '/build\ndocs/**/tmp/\n!keep.swp\n*.swp\n[a-c]?.o\n**/node_modules\n\0'
  printf 'build/x\0docs/a/b/tmp/f\0keep.swp\0k.swp\0b1.o\0d1.o\0a/node_modules/z\0'; } \
    >"$corpus/ignore/mixed"
{ printf '[[:alpha:]][!0-9]*\n\\*literal\na/**\n?\n\0'
  printf 'ab\0a1\0*literal\0a/b/c\0a\0z\0'; } >"$corpus/ignore/classes"
{ printf '**/**/**/**/*a*a*a*a*a*b\n\0'
  printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac\0'; } \
    >"$corpus/ignore/stars"

for name in op pack wire config ignore; do
	printf '%-7s %3d seeds, %6d bytes\n' "$name" "$(ls "$corpus/$name" | wc -l)" \
	    "$(cat "$corpus/$name"/* | wc -c)"
done
