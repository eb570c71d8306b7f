#!/bin/sh
test_description='config errors name file:line:column; config check prints the effective config'
. "${HEARTH_SOURCE_DIR:-.}/tests/lib/test-lib.sh"

write_config() {
	printf 'roots:\n  - name: main\n    path: %s/root\nstate: %s/state\n' \
		"$TEST_ROOT" "$TEST_ROOT" >"$1"
}

test_expect_success 'config check prints the effective config of an init Home' '
	hearth init home >/dev/null &&
	(cd home && hearth config check >../out) &&
	grep "^durability: group" out &&
	grep "found by marker" out &&
	grep "^poll_interval: 5s" out
'

test_expect_success 'an unknown key is refused with the nearest valid key' '
	write_config c.yaml && echo "durabilty: full" >>c.yaml &&
	test_expect_code 1 hearth -c c.yaml config check 2>err &&
	grep "c.yaml:5:1: unknown key .durabilty.; did you mean .durability.?" err
'

test_expect_success 'a wrong type names what was expected and where' '
	echo "roots: 5" >d.yaml &&
	test_expect_code 1 hearth -c d.yaml config check 2>err &&
	grep "d.yaml:1:8: expected a list" err
'

test_expect_success 'a value out of range says the range' '
	write_config e.yaml && echo "poll_interval: 1ms" >>e.yaml &&
	test_expect_code 1 hearth -c e.yaml config check 2>err &&
	grep "e.yaml:5:16: poll_interval must be between 500ms and 1h" err
'

test_expect_success 'a bad durability names the choices' '
	write_config f.yaml && echo "durability: sometimes" >>f.yaml &&
	test_expect_code 1 hearth -c f.yaml config check 2>err &&
	grep "f.yaml:5:13:" err && grep "full" err
'

test_expect_success 'YAML syntax errors have a position too' '
	printf "roots: [\n" >g.yaml &&
	test_expect_code 1 hearth -c g.yaml config check 2>err &&
	grep "g.yaml:[0-9]*:[0-9]*:" err
'

test_expect_success 'a broken config stops every command before it touches anything' '
	test_expect_code 1 hearth -c c.yaml init 2>err &&
	test ! -e state && test ! -e root
'

test_expect_success 'a joined Home from a config: init, record, status' '
	write_config j.yaml && echo "durability: full" >>j.yaml &&
	hearth -c j.yaml init >/dev/null &&
	test -f root/.hearth/root && test -f state/store.db &&
	echo hello >root/file &&
	hearth -c j.yaml record -m first >/dev/null &&
	(cd root && hearth status >../out) && grep "Nothing changed" out &&
	hearth -c j.yaml config check >out && grep "^durability: full" out
'

test_expect_success 'HEARTH_CONFIG works like -c' '
	HEARTH_CONFIG="$TEST_ROOT/j.yaml" hearth log --oneline >out &&
	grep "first" out
'

test_expect_success 'the XDG config is the last resort' '
	mkdir -p "$XDG_CONFIG_HOME/hearth" && cp j.yaml "$XDG_CONFIG_HOME/hearth/config.yaml" &&
	mkdir elsewhere && (cd elsewhere && hearth log --oneline >../out) &&
	grep "first" out
'

test_done
