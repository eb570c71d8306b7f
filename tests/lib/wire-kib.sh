# Sourced by the tests that weigh a sync's traffic: wire_kib FILE [WAY]
# prints the KiB (rounded up) a sync's output says went on the wire, WAY
# received (the default) or sent.
wire_kib() {
	sed -n "s/^  ${2:-received} .*; \([0-9.]*\) \([KMG]*i*B\) on the wire\$/\1 \2/p" "$1" |
	    awk '{ n = $1; if ($2 == "B") n /= 1024; if ($2 == "MiB") n *= 1024;
		if ($2 == "GiB") n *= 1048576; printf "%d\n", n + 0.999 }'
}
