# What the docs tests (t08xx) share: the program's own lists, read from
# `hearth --dump-docs` (the command table the CLI dispatches and parses by), and the
# pages' lists, read from the mdoc sources and from mandoc's rendering.
# Source it after test-lib.sh.

command -v mandoc >/dev/null 2>&1 || test_skip_all 'mandoc is not installed (make deps)'

MAN_DIR=$HEARTH_SOURCE_DIR/man
BACKSPACE=$(printf '\b')

# The records of one kind from `hearth --dump-docs`, without the kind.
docs_dump() {
	"$HEARTH_BIN" --dump-docs | awk -F'\t' -v kind="$1" 'BEGIN { OFS = "\t" }
		$1 == kind { $1 = ""; sub(/^\t/, ""); print }'
}

# A page as mandoc renders it for a terminal, without bold and underline.
docs_render() {
	mandoc -Tascii "$1" | sed "s/.$BACKSPACE//g"
}

# The flags of the option texts of the command table: "-m, --message MSG"
# gives "-m" and "--message". Lines "COMMAND FLAG"; options the table marks
# "(global)" are the program's own, given before the command, and come out
# as "COMMAND FLAG global".
docs_table_flags() {
	docs_dump option | awk -F'\t' '{
		global = $2 ~ /\(global\)/ ? " global" : ""
		n = split($2, words, /[ ,]+/)
		for (i = 1; i <= n; i++)
			if (words[i] ~ /^-/)
				print $1, words[i] global
	}'
}

# The flags each command parses: its options in the command table, which
# the option parser (cli_next_option) reads too. Lines "COMMAND FLAG
# ARGUMENT", where ARGUMENT is "yes" when the option takes one; hearth's
# own options ("(global)") are left out.
docs_source_flags() {
	docs_dump option | awk -F'\t' '$2 !~ /\(global\)/ {
		n = split($2, words, /[ ,]+/)
		value = words[n] !~ /^-/ ? "yes" : "no"
		for (i = 1; i <= n; i++)
			if (words[i] ~ /^-/)
				print $1, words[i], value
	}'
}

# Where a command would parse its argv past its table: lines of tui/cli_*.c
# that call getopt or compare an argument with a flag.
docs_parsing_outside_table() {
	grep -n -E 'getopt|struct option |str(n)?cmp\(argv\[[^]]*\], *"-' \
		"$HEARTH_SOURCE_DIR"/tui/cli_*.c || true
}

# The COMMANDS section of hearth(1) from its mdoc source: "entry NAME" for
# each command's entry, "flag NAME FLAG" for each flag of its synopsis,
# "item NAME FLAG" for each flag its option list describes, "arg NAME WORD"
# for each argument of its synopsis.
docs_page_commands() {
	awk '
		/^\.Sh / { inside = $2 == "COMMANDS"; depth = 0; next }
		!inside { next }
		/^\.Bl/ { depth++; next }
		/^\.El/ { depth--; next }
		/^\.It Xo/ && depth == 1 { head = 1; named = 0; next }
		head && /^\.Xc/ { head = 0; next }
		head && !named && /^\.Cm / { name = $2; named = 1; print "entry", name; next }
		head || (depth == 2 && /^\.It /) {
			sub(/^\./, "", $1)
			for (i = 1; i <= NF; i++) {
				if ($i == "Fl" && i < NF) {
					flag = $(i + 1)
					gsub(/\\-/, "-", flag)
					print (head ? "flag" : "item"), name, "-" flag
				}
				if (head && $i == "Ar")
					for (j = i + 1; j <= NF && $j ~ /^[a-z]/; j++)
						print "arg", name, $j
			}
		}' "$MAN_DIR/hearth.1"
}

# The entry of one command in the rendered hearth(1), as `hearth help NAME`
# prints it: synopsis lines under "usage:", then the text without the
# section's indent (the rule of tui/manual.c, written again).
docs_page_entry() {
	docs_render "$MAN_DIR/hearth.1" | awk -v name="$1" '
		# A synopsis wrapped onto a deeper indented line joins its line.
		open != "" && /^      +[[|]/ { sub(/^ +/, ""); open = open " " $0; next }
		open != "" { print open; open = "" }
		!inside { inside = $0 == "COMMANDS"; next }
		/^[^ ]/ { exit }
		/^     hearth [^ ]/ {
			split(substr($0, 13), words, " ")
			if (entry && words[1] != name)
				exit
			if (words[1] == name) {
				open = (entry ? "       " : "usage: ") substr($0, 6)
				entry = heads = 1
				blanks = 0
				next
			}
		}
		!entry { next }
		/^$/ { blanks++; next }
		{
			if (heads)
				blanks = 1
			heads = 0
			for (; blanks > 0; blanks--)
				print ""
			line = $0
			for (n = 0; n < 5 && substr(line, 1, 1) == " "; n++)
				line = substr(line, 2)
			print line
		}
		END { if (open != "") print open }'
}

# The program's own options (before the command) in the options list of
# hearth(1)'s DESCRIPTION: "-c", "--config", ...
docs_page_global_flags() {
	awk '/^\.Sh DESCRIPTION/ { inside = 1; next } /^\.S[hs] / { inside = 0 }
		inside && /^\.It / {
			for (i = 1; i < NF; i++)
				if ($i == "Fl") {
					flag = $(i + 1)
					gsub(/\\-/, "-", flag)
					print "-" flag
				}
		}' "$MAN_DIR/hearth.1"
}

# The program's own options cli_run in tui/cli.c compares argv with,
# without the hidden --dump-* ones and without a trailing "=".
docs_source_global_flags() {
	grep -o 'strn*cmp(argv\[first\], "-[^"]*"' "$HEARTH_SOURCE_DIR/tui/cli.c" |
		sed 's/.*"\(-[^"=]*\)=*"$/\1/' | grep -v '^--dump-'
}

# The argument words (VERSION, PATH...) of each usage of the command table:
# lines "COMMAND WORD", upper case.
docs_table_arguments() {
	docs_dump command | awk -F'\t' '{
		n = split($2, tokens, / +/)
		for (i = 1; i <= n; i++) {
			gsub(/[][().]/, "", tokens[i])
			m = split(tokens[i], parts, /[|]/)
			for (j = 1; j <= m; j++)
				if (parts[j] ~ /^[A-Z]+$/)
					print toupper($1), parts[j]
		}
	}'
}

# The names of the `.It Ic NAME` items at the top level of a list in a
# section (and subsection, when given) of a page.
docs_page_items() {
	awk -v section="$2" -v subsection="${3:-}" '
		/^\.Sh / { sh = substr($0, 5); ss = ""; depth = 0; next }
		/^\.Ss / { ss = substr($0, 5); depth = 0; next }
		sh != section || (subsection != "" && ss != subsection) { next }
		/^\.Bl/ { depth++; next }
		/^\.El/ { depth--; next }
		depth == 1 && /^\.It Ic / { print $3 }' "$1"
}

# The rendered text of each top-level item of a section of a page, one
# item a line: "NAME<tab>its text, joined and with spaces squeezed".
docs_rendered_items() {
	docs_render "$1" | awk -v section="$2" '
		/^[^ ]/ { inside = $0 == section; next }
		!inside { next }
		/^     [^ ]/ {
			if (name != "")
				print name "\t" text
			name = $1
			text = substr($0, 6 + length(name))
			gsub(/^ +| +$/, "", text)
			next
		}
		{ gsub(/^ +| +$/, ""); text = text " " $0 }
		END { if (name != "") print name "\t" text }' | sed 's/  */ /g'
}

# The key lists of hearth(1)'s Keys subsection: "VIEWS<tab>KEYS<tab>ACTION
# <tab>DESCRIPTION", VIEWS being the title (.Sy) above each list.
docs_page_bindings() {
	awk '
		/^\.Ss Keys/ { inside = 1; next }
		/^\.S[hs] / { inside = 0 }
		!inside { next }
		/^\.Sy / { title = substr($0, 5); gsub(/\\&/, "", title); next }
		/^\.It Li / { keys = substr($0, 8); gsub(/\\&/, "", keys); step = 1; next }
		step == 1 && /^\.Cm / { action = $2; step = 2; next }
		step == 2 { print title "\t" keys "\t" action "\t" $0; step = 0 }' "$MAN_DIR/hearth.1"
}

# The literal displays (.Bd -literal) of a page, each into its own file
# PREFIX.N, with mandoc's escapes \e and \& undone; prints the file names.
docs_page_displays() {
	awk -v prefix="$2" '
		/^\.Bd -literal/ { n++; file = prefix "." n; print file; inside = 1; next }
		/^\.Ed/ { inside = 0; next }
		inside { line = $0; gsub(/\\e/, "\\", line); gsub(/\\&/, "", line); print line >file }' "$1"
}
