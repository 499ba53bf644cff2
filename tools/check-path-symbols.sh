#!/usr/bin/env bash
# Each kernel path object is compiled with its own ISA flags. A weak (inline or template) symbol defined by two of
# them lets the linker keep one copy for both paths, e.g. AVX-512 code behind the avx2 table. Fails when any weak
# symbol (C++ runtime data excepted) is defined by more than one path object.
# Usage: tools/check-path-symbols.sh PATH_NAME=OBJECT...
set -euo pipefail
all=$(mktemp)
trap 'rm -f "$all"' EXIT
for arg in "$@"; do
  name=${arg%%=*}
  object=${arg#*=}
  nm "$object" | awk -v path="$name" '$2 ~ /^[WV]$/ && $3 != "DW.ref.__gxx_personality_v0" { print $3, path }' >> "$all"
  echo "path $name: $(awk -v path="$name" '$2 == path' "$all" | wc -l) weak symbols"
done
shared=$(sort -u "$all" | awk '{ count[$1]++; paths[$1] = paths[$1] " " $2 } END { for (s in count) if (count[s] > 1) print s ":" paths[s] }')
if [ -n "$shared" ]; then
  echo "weak symbols defined by several kernel paths (the linker may pick the wrong ISA's copy):"
  echo "$shared" | head -20 | sed 's/^/    /'
  exit 1
fi
echo "no weak symbol is shared between kernel paths"
