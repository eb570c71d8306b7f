# Sourced by the tests that run hearth as an ordinary user, where root's
# right to write any file would hide what they check: user_root is a
# folder of uid 65534's, or empty where setpriv cannot become that user
# (those tests then pass without checking); as_user CMD... runs CMD as it.
user_root=
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	user_root=$(mktemp -d "${TMPDIR:-/tmp}/hearth-user.XXXXXX")
	chmod 755 "$user_root" && chown 65534:65534 "$user_root"
fi
as_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$user_root" "$@"
}
