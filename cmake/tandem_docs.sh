#!/bin/sh
# The man page and the bash and zsh completions of the tandem command, written at
# build time from the help that each command prints from its own option table, so
# that none can name an option the command does not take, or miss one.
# usage: tandem_docs.sh TANDEM OUT_DIR; writes OUT_DIR/tandem.1, OUT_DIR/tandem.bash
# and OUT_DIR/_tandem.
set -eu
tandem=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# "NAME DESCRIPTION" lines: the commands, and the bench subcommands.
entries() { awk '/^  [a-z]+ +[^ -]/ { name = $1; $1 = ""; sub(/^ +/, ""); print name " " $0 }'; }
"$tandem" --help | entries >"$work/commands"
"$tandem" bench --help | entries >"$work/bench"
[ -s "$work/commands" ] && [ -s "$work/bench" ] || { echo "tandem_docs: no commands in the help"; exit 1; }

# The help of each command ("train", "bench gemm"), one file per command.
help_of() { # WORDS...: the command's help into $work/help.<words joined by _>
  file="$work/help.$(echo "$*" | tr ' ' _)"
  "$tandem" "$@" --help >"$file"
  echo "$file"
}
# "-d --devices" and "--json" for each option line of a help.
options_of() { awk '/^  -/ { sub(/,$/, "", $1); if ($1 ~ /^-[^-]/) print $1 " " $2; else print $1 }' "$1" |
  sed 's/ [A-Z][^ ]*$//' | tr '\n' ' '; }

commands=$(cut -d' ' -f1 "$work/commands" | tr '\n' ' ')
bench=$(cut -d' ' -f1 "$work/bench" | tr '\n' ' ')
version=$("$tandem" --version | cut -d' ' -f2)

# bash: the command, then its options (bench: its subcommand, then that one's).
{
  echo "# bash completion for tandem $version, generated from its option tables."
  echo "_tandem() {"
  echo "    local cur=\${COMP_WORDS[COMP_CWORD]} words="
  echo "    if [ \"\$COMP_CWORD\" -eq 1 ]; then"
  echo "        words=\"$commands--help --version\""
  echo "    else"
  echo "        case \${COMP_WORDS[1]} in"
  for c in $commands; do
    [ "$c" = bench ] && continue
    echo "            $c) words=\"$(options_of "$(help_of "$c")")--help\" ;;"
  done
  echo "            bench)"
  echo "                if [ \"\$COMP_CWORD\" -eq 2 ]; then"
  echo "                    words=\"$bench--help\""
  echo "                else"
  echo "                    case \${COMP_WORDS[2]} in"
  for b in $bench; do
    echo "                        $b) words=\"$(options_of "$(help_of bench "$b")")--help\" ;;"
  done
  echo "                    esac"
  echo "                fi ;;"
  echo "        esac"
  echo "    fi"
  echo "    COMPREPLY=(\$(compgen -W \"\$words\" -- \"\$cur\"))"
  echo "}"
  echo "complete -o default -F _tandem tandem"
} >"$out/tandem.bash"

# zsh: the same words, and files beside them (for the values that name files).
{
  echo "#compdef tandem"
  echo "# zsh completion for tandem $version, generated from its option tables."
  echo "_tandem() {"
  echo "  local -a candidates"
  echo "  if (( CURRENT == 2 )); then"
  echo "    candidates=($commands--help --version)"
  echo "  else"
  echo "    case \$words[2] in"
  for c in $commands; do
    [ "$c" = bench ] && continue
    echo "      $c) candidates=($(options_of "$work/help.$c")--help) ;;"
  done
  echo "      bench)"
  echo "        if (( CURRENT == 3 )); then"
  echo "          candidates=($bench--help)"
  echo "        else"
  echo "          case \$words[3] in"
  for b in $bench; do
    echo "            $b) candidates=($(options_of "$work/help.bench_$b")--help) ;;"
  done
  echo "          esac"
  echo "        fi ;;"
  echo "    esac"
  echo "  fi"
  echo "  compadd -a candidates"
  echo "  _files"
  echo "}"
  echo "_tandem \"\$@\""
} >"$out/_tandem"

# roff text: backslashes escaped, a line never starting with a control character.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
# A command's help as a man page section: its about text, then each option as a
# tagged paragraph (its names and value, its help joined from the wrapped lines).
section() { # HELP_FILE TITLE
  echo ".SS \"$2\""
  awk '
    function esc(s) { gsub(/\\/, "\\e", s); if (s ~ /^[.\047]/) s = "\\&" s; return s }
    function flush() {
      gsub(/-/, "\\-", left)
      print ".TP"; print ".B " left; print esc(text); tag = 0; text = ""
    }
    NR <= 2 { next }                                   # the usage line and a blank
    /^  -/ {
      if (tag) flush()
      tag = 1
      line = substr($0, 3)
      split_at = index(line, "  ")
      left = split_at ? substr(line, 1, split_at - 1) : line
      text = split_at ? substr(line, split_at) : ""
      sub(/^ +/, "", text)
      next
    }
    /^$/ { if (tag) flush(); else if (para != "") { print esc(para); print ".PP" }; para = ""; next }
    tag { t = $0; sub(/^ +/, "", t); text = text " " t; next }
    { para = para (para != "" ? " " : "") $0 }
    END { if (tag) flush(); else if (para != "") print esc(para) }
  ' "$1"
}

{
  echo ".TH TANDEM 1 \"\" \"tandem $version\" \"User Commands\""
  echo ".SH NAME"
  echo "tandem \\- data-parallel training across compute devices of any vendor"
  echo ".SH SYNOPSIS"
  echo ".B tandem"
  echo ".I COMMAND"
  echo ".RI [ OPTIONS ]"
  echo ".br"
  echo ".B tandem"
  echo ".BR \\-\\-help \" | \" \\-\\-version"
  echo ".SH DESCRIPTION"
  echo "tandem trains neural networks data-parallel across the OpenCL and Vulkan devices"
  echo "of a machine, of any vendor, and checks and measures them."
  echo "Each command takes"
  echo ".B \\-\\-help"
  echo "for the options below."
  echo ".SH COMMANDS"
  while read -r name about; do
    echo ".TP"
    echo ".B $name"
    echo "$about" | roff
  done <"$work/commands"
  for c in $commands; do
    if [ "$c" = bench ]; then
      for b in $bench; do
        section "$work/help.bench_$b" "tandem bench $b"
      done
    else
      section "$work/help.$c" "tandem $c"
    fi
  done
  echo ".SH SEE ALSO"
  echo "The documentation under docs/ in tandem's source: GETTING_STARTED.md, TRAINING.md,"
  echo "API.md."
} >"$out/tandem.1"
