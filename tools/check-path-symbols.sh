#!/usr/bin/env bash
# Each kernel path object is compiled with its own ISA flags. A weak (inline or template) symbol defined by two of
# them would let the linker keep one copy for both paths, e.g. AVX-512 code behind the avx2 table. Fails when a path
# object defines a weak symbol outside its own onemodel::path_<name> namespace (C++ runtime data excepted).
# Usage: tools/check-path-symbols.sh PATH_NAME=OBJECT...
set -euo pipefail
status=0
for arg in "$@"; do
  name=${arg%%=*}
  object=${arg#*=}
  leaks=$(nm -C "$object" | awk '$2 ~ /^[WV]$/' | grep -v "onemodel::path_$name::" | grep -v "DW.ref.__gxx_personality_v0" || true)
  if [ -n "$leaks" ]; then
    echo "path $name shares weak symbols with other translation units:"
    echo "$leaks" | head -20 | sed 's/^/    /'
    status=1
  else
    echo "path $name: no shared weak symbols"
  fi
done
exit $status
