# The checks cli_tasks.sh and cli_graph.sh share, sourced after they set $out (a
# scratch folder): say notes a failure and carries on, has looks for a text in a
# file, refused runs a command that must be refused with a text. $fail ends 1 after
# any failure.
fail=0
say() {
  echo "FAIL: $*"
  fail=1
}
has() { # FILE TEXT
  grep -qF -- "$2" "$1" || say "$(basename "$1") lacks '$2': $(tail -n 2 "$1")"
}
refused() { # NAME TEXT COMMAND...: exit 1 or 2, TEXT on stderr
  name=$1 text=$2
  shift 2
  "$@" >"$out/$name.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || [ $rc -eq 2 ] || say "$name: exit $rc, expected a refusal"
  has "$out/$name.log" "$text"
}
