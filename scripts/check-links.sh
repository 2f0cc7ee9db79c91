#!/usr/bin/env bash
# Checks the links of the repository's Markdown files, so that a reader who follows one finds
# what it names: every relative link (inline `[text](path#anchor)` or a reference definition
# `[label]: path#anchor`) points at a file or folder that git tracks, an anchor names a heading
# of the target file (GitHub's heading ids), and every `[text][label]` has its definition.
# Web addresses are not fetched. With a rustdoc output folder as argument it also checks that
# every anchor that warpwork's pages link to in its `guide` module is an id of the page it
# names (rustdoc checks the items of intra-doc links, not their anchors).
#   scripts/check-links.sh                  # the Markdown files
#   scripts/check-links.sh target/doc       # ... and the rendered guide
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
bad() { echo "FAIL: $*"; fail=1; }

# GitHub's id of a heading: lower case, code marks and punctuation dropped, spaces to hyphens.
heading_ids() {
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//; s/[[:space:]]+$//' | tr '[:upper:]' '[:lower:]' |
    sed -E 's/[^[:alnum:] _-]//g; s/ /-/g'
}

# Prints "target" for every relative link of a Markdown file, fenced code blocks left out.
links_of() {
  awk '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced' "$1" |
    sed -E 's/`[^`]*`//g' | {
      grep -oE '\]\([^) ]+\)|^\[[^]]+\]: +[^ ]+' || true
    } | sed -E 's/^\]\(//; s/\)$//; s/^\[[^]]+\]: +//' | grep -vE '^(https?|mailto):' || true
}

for md in $(git ls-files '*.md'); do
  dir=$(dirname "$md")
  while read -r link; do
    [ -n "$link" ] || continue
    path=${link%%#*}
    anchor=${link#"$path"}
    anchor=${anchor#\#}
    if [ -z "$path" ]; then
      target=$md
    else
      target=$(realpath -m --relative-to=. "$dir/$path")
      if [ -f "$target" ]; then
        tracked=$(git ls-files -- "$target")
      elif [ -d "$target" ]; then
        tracked=$(git ls-files -- "$target" | head -n 1)
      else
        tracked=
      fi
      [ -n "$tracked" ] || { bad "$md links to $link: no such file in the repository"; continue; }
    fi
    if [ -n "$anchor" ]; then
      case $target in
        *.md) heading_ids "$target" | grep -qx -- "$anchor" || bad "$md links to $link: no such heading in $target" ;;
        *) bad "$md links to $link: an anchor into a file that is not Markdown" ;;
      esac
    fi
  done < <(links_of "$md")
  # Reference-style links need their definitions (an undefined one renders as plain brackets).
  while read -r label; do
    [ -n "$label" ] || continue
    grep -qF "[$label]: " "$md" || bad "$md uses [$label] without a definition"
  done < <(awk '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced' "$md" | sed -E 's/`[^`]*`//g' |
    { grep -oE '\]\[[^]]+\]' || true; } | sed -E 's/^\]\[//; s/\]$//' | sort -u)
done

if [ $# -gt 0 ]; then
  doc=$(realpath "$1")
  [ -d "$doc/warpwork/guide" ] || { echo "FAIL: $1/warpwork/guide is missing (run cargo doc first)"; exit 1; }
  # Every link of warpwork's pages to an anchor of a guide page: rustdoc made the page, the
  # anchor comes from a heading of the note, which a change of words can move.
  while read -r page; do
    while read -r href; do
      target=$(realpath -m "$(dirname "$page")/${href%%#*}")
      case $target in "$doc"/warpwork/guide/*) ;; *) continue ;; esac
      grep -q "id=\"${href#*#}\"" "$target" ||
        bad "${page#"$doc"/} links to $href: no such id in ${target#"$doc"/}"
    done < <(grep -oE 'href="[^"#:]+#[^"]+"' "$page" | sed -E 's/^href="//; s/"$//' | sort -u)
  done < <(find "$doc/warpwork" -name '*.html')
fi

[ "$fail" = 0 ] && echo "links: every relative link resolves"
exit "$fail"
