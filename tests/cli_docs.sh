#!/bin/sh
# The man page and the bash and zsh completions the build writes name every option
# of every command, as each command's --help lists it from its table; the bash
# completion completes them, and groff reads the page without a warning.
# usage: cli_docs.sh TANDEM SHARE_DIR (the build's share/: man/man1/tandem.1,
# tandem.bash, _tandem)
set -eu
tandem=$1 share=$2
page=$share/man/man1/tandem.1 bash_file=$share/tandem.bash zsh_file=$share/_tandem
fail=0
# Each command's long options, from its help.
longs() { "$tandem" "$@" --help | sed -n 's/^  \(-[a-z], \)\{0,1\}\(--[a-z0-9-]*\).*/\2/p'; }
checked=0
for words in train predict export devices conformance "bench allreduce" "bench gemm" "bench train"; do
  for option in $(longs $words); do
    checked=$((checked + 1))
    roff=$(printf '%s' "$option" | sed 's/-/\\-/g')
    # In the command's own section, from its .SS line to the next.
    awk -v o="$roff" -v title=".SS \"tandem $words\"" '
      /^\.SS / { inside = $0 == title }
      inside && $1 == ".B" { for (i = 2; i <= NF; i++) { f = $i; sub(/,$/, "", f); if (f == o) found = 1 } }
      END { exit !found }' "$page" || { echo "the man page lacks tandem $words $option"; fail=1; }
    grep -q -- " $option " "$bash_file" || { echo "bash completion lacks tandem $words $option"; fail=1; }
    grep -q -- " $option " "$zsh_file" || { echo "zsh completion lacks tandem $words $option"; fail=1; }
  done
done
[ "$checked" -gt 50 ] || { echo "only $checked options read from the help"; fail=1; }
# bash completes a command's option from its first letters, and a bench subcommand.
complete_words() { # WORDS...: what bash offers for the last word
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tandem; echo "${COMPREPLY[*]}"' \
    sh "$bash_file" "$@"
}
[ "$(complete_words tandem predict --mo)" = "--model" ] || { echo "bash does not complete --mo to --model"; fail=1; }
[ "$(complete_words tandem conf)" = "conformance" ] || { echo "bash does not complete conf"; fail=1; }
[ "$(complete_words tandem bench gem)" = "gemm" ] || { echo "bash does not complete bench gem"; fail=1; }
if command -v zsh >/dev/null; then zsh -n "$zsh_file" || { echo "zsh cannot read _tandem"; fail=1; }; fi
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || { echo "groff warns: $warnings"; fail=1; }
fi
[ $fail -eq 0 ] && echo "cli_docs: ok ($checked options in the page and both completions)"
exit $fail
