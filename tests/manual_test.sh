#!/usr/bin/env bash
# The help, the man page and the completions, as a user meets them:
# every value named (no TEXT or INT), every command with examples that run
# as written, the man page rendered by `man -l` without a warning, and the
# completion scripts loaded by their shells.
# Usage: manual_test.sh MELANGE
set -uo pipefail
melange=$(realpath "$1")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "FAIL  $*"; failed=1; }
ok() { echo "ok    $*"; }

commands=$("$melange" --help | awk '/^Subcommands:/ {on = 1; next} on && NF {print $1}')
[ -n "$commands" ] || fail "no commands in 'melange --help'"

# --- the help -------------------------------------------------------------
for c in $commands; do
  help=$("$melange" "$c" --help)
  if unnamed=$(grep -E '^ +[-a-z][^ ]* (TEXT|INT|UINT|FLOAT)\b' <<<"$help"); then
    fail "$c --help names a value by its type: $unnamed"
  fi
  grep -q '^Examples:' <<<"$help" || fail "$c --help has no examples"
done
ok "every command's help names its values and has examples"

# --- the examples run as written --------------------------------------------
# In a folder holding deals.txt (fair shuffles of 4 items), with melange on
# PATH, as a user would paste them.
mkdir -p "$scratch/bin" "$scratch/run"
ln -s "$melange" "$scratch/bin/melange"
"$melange" sample --n 4 --count 2000 --output "$scratch/run/deals.txt" || fail "sample for deals.txt"
examples=0
for c in $commands; do
  while IFS= read -r line; do
    examples=$((examples + 1))
    if ! (cd "$scratch/run" && PATH="$scratch/bin:$PATH" timeout 120 bash -c "$line" >out.txt 2>err.txt </dev/null); then
      fail "example '$line' failed: $(head -c 300 "$scratch/run/err.txt")"
    fi
  done < <("$melange" "$c" --help | awk '/^Examples:/ {on = 1; next} on && /^  melange|^  [a-z].*melange/ {sub(/^  /, ""); print} on && /^$/ {on = 0}')
done
[ "$examples" -ge 12 ] || fail "only $examples examples found"
ok "$examples examples ran"

# --- the man page ------------------------------------------------------------
"$melange" man --output "$scratch/melange.1" || fail "melange man --output"
if command -v man >/dev/null; then
  warnings=$(MANWIDTH=100 man --warnings -l "$scratch/melange.1" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man -l warns: $warnings"
  page=$(MANWIDTH=100 man -l "$scratch/melange.1" 2>/dev/null)
  for c in $commands; do
    grep -q "melange $c\$" <<<"$page" || fail "the man page has no section for $c"
  done
  grep -q -- "--memory-cap BYTES" <<<"$page" || fail "the man page lacks audit's --memory-cap BYTES"
  ok "man -l renders the page, every command in it"
else
  echo "skip  man is not installed: the page was written, not rendered"
fi

# --- bash completion ---------------------------------------------------------
# complete_words WORDS...: what bash offers for the last word.
complete_words() {
  bash -c 'source <("$0" completion bash)
           COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _melange
           printf "%s\n" "${COMPREPLY[@]}"' "$melange" "$@"
}
got=$(complete_words melange au | tr '\n' ' ')
[ "$got" = "audit " ] || fail "bash: 'melange au<TAB>' offers '$got'"
got=$(complete_words melange audit --tr | tr '\n' ' ')
[ "$got" = "--trials " ] || fail "bash: 'melange audit --tr<TAB>' offers '$got'"
got=$(complete_words melange audit --algo naive | tr '\n' ' ')
[ "$got" = "naive-swap " ] || fail "bash: '--algo naive<TAB>' offers '$got'"
got=$(complete_words melange bounded --method ba | tr '\n' ' ')
[ "$got" = "batched " ] || fail "bash: '--method ba<TAB>' offers '$got'"
touch "$scratch/run/records-of-today.txt"
got=$(cd "$scratch/run" && complete_words melange audit records-of | tr '\n' ' ')
[ "$got" = "records-of-today.txt " ] || fail "bash: 'melange audit records-of<TAB>' offers '$got'"
ok "bash completes commands, flags, names and files"

# --- zsh and fish: their scripts parse -------------------------------------
for shell in zsh fish; do
  if command -v "$shell" >/dev/null; then
    "$melange" completion "$shell" >"$scratch/completion.$shell"
    if "$shell" -n "$scratch/completion.$shell"; then ok "$shell parses its script"; else fail "$shell -n"; fi
  else
    echo "skip  $shell is not installed"
  fi
done
if command -v fish >/dev/null; then
  got=$(fish -c "source $scratch/completion.fish; complete -C 'melange audit --algo naive'" | cut -f1 | tr '\n' ' ')
  [ "$got" = "naive-swap " ] || fail "fish: '--algo naive<TAB>' offers '$got'"
fi

"$melange" completion tcsh >/dev/null 2>&1 && fail "completion tcsh was accepted"
exit $failed
